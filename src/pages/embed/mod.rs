//! embed.html: one chart of the link's scenario, sized to its iframe (the embed view is
//! [`crate::widgets::embed`], which compare.html's `?embed=compare-…` shares), without the
//! explorer's app.

use crate::widgets::embed::{mount_if_embed, show, EmbedBody, EmbedContent};

/// embed.html: the chart its URL asks for (`?embed=<chart>`) in `#app`, or, without one, how
/// to ask and a way to the explorer.
pub fn mount_page() {
    let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("app")) else {
        return;
    };
    if !mount_if_embed(&root) {
        show(&root, EmbedContent { warnings: None, body: EmbedBody::Help, open: String::new() });
    }
}
