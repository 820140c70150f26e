//! A page of its own wasm (serving.html, congestion.html) shown in a frame inside another page,
//! for the design of the link. The frame gets its address only once its section has come near
//! the screen (no load, and no task, for a reader who never scrolls there); after that a new
//! link moves only the frame's fragment, which the framed page follows without reloading. So a
//! capability whose model would take a page over its byte budget costs that page nothing.

use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The framed page (`serving.html`) and the fragment it is given (`s=...&d=...`).
    pub page: &'static str,
    pub fragment: Rc<String>,
    /// Names the section, the frame and the test ids (`{kind}-section`, `{kind}-frame`, `to-{kind}`).
    pub kind: &'static str,
    pub heading: &'static str,
    pub frame_title: &'static str,
    pub open_text: &'static str,
    /// Extra class of the frame (its height).
    #[prop_or_default]
    pub class: Classes,
}

#[function_component(PageFrame)]
pub fn page_frame(p: &Props) -> Html {
    let node = use_node_ref();
    let near = crate::hooks::use_on_screen(node.clone());
    let seen = use_mut_ref(|| false);
    if near {
        *seen.borrow_mut() = true;
    }
    let (page, fragment, kind) = (p.page, &*p.fragment, p.kind);
    let heading_id = format!("{kind}-frame-h");
    html! {
        <section ref={node} class="panel chart wide" data-testid={format!("{kind}-section")} aria-labelledby={heading_id.clone()}>
            <div class="figcaption">
                <h3 id={heading_id} class="chart-title">{ p.heading }</h3>
                <a class="chart-sub" href={format!("{page}#{fragment}")} data-testid={format!("to-{kind}")}>{ p.open_text }</a>
            </div>
            <iframe class={classes!(format!("{kind}-frame"), p.class.clone())} data-testid={format!("{kind}-frame")} title={p.frame_title}
                src={(*seen.borrow()).then(|| format!("{page}?frame#{fragment}"))}></iframe>
        </section>
    }
}

/// Mounts a framed page's root `C` into `#app` one timer tick after the wasm is instantiated;
/// in a frame (`?frame`), marks the document so the stylesheet hides the masthead and footer.
pub fn mount_framed<C>()
where
    C: BaseComponent,
    C::Properties: Default,
{
    gloo_timers::callback::Timeout::new(0, || {
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
        if doc.url().unwrap_or_default().contains("?frame") {
            if let Some(html) = doc.document_element() {
                let _ = html.class_list().add_1("frame-mode");
            }
        }
        if let Some(el) = doc.get_element_by_id("app") {
            yew::Renderer::<C>::with_root(el).render();
        }
    })
    .forget();
}
