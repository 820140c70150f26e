//! A page of its own wasm (serving.html, congestion.html) shown in a frame inside another page,
//! for the design of the link. The frame is made only once its section has come near the
//! screen (no load, and no task, for a reader who never scrolls there); after that a new
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
    let near = crate::plumbing::hooks::use_on_screen(node.clone());
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
            // Until seen, a placeholder of the frame's height: even an iframe without an
            // address creates a browsing context (about:blank, 15-35 ms of the explorer's load
            // task for its two frames in a Chromium trace), which a reader who never scrolls
            // here should not pay.
            if *seen.borrow() {
                <iframe class={classes!(format!("{kind}-frame"), p.class.clone())} data-testid={format!("{kind}-frame")} title={p.frame_title}
                    src={format!("{page}?frame#{fragment}")}></iframe>
            } else {
                <div class={classes!(format!("{kind}-frame"), p.class.clone())} data-testid={format!("{kind}-frame")} aria-hidden="true"></div>
            }
        </section>
    }
}

/// Mounts a framed page's root `C` into `#app` one timer tick after the wasm is instantiated;
/// in a frame (`?frame`), marks the document so the stylesheet hides the masthead and footer,
/// and keeps the frame as tall as the page's content ([`follow_height`]).
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
            follow_height(&doc);
        }
        if let Some(el) = doc.get_element_by_id("app") {
            yew::Renderer::<C>::with_root(el).render();
        }
    })
    .forget();
}

/// Sets the height of the frame showing this page (same origin: `window.frameElement`) to the
/// height of its body whenever that changes, so the outer page scrolls it as one with its own
/// content: no blank space under a short panel, no inner scroll bar under a tall one. Through
/// the CSSOM (`style.height`), which the pages' CSP allows where a `style` attribute is not.
fn follow_height(doc: &web_sys::Document) {
    use wasm_bindgen::{closure::Closure, JsCast};
    // The frame element belongs to the outer page's realm, where `instanceof` of this one
    // fails: cast without the check (frameElement is an iframe, an HTMLElement).
    let frame = web_sys::window().and_then(|w| w.frame_element().ok().flatten()).map(|f| f.unchecked_into::<web_sys::HtmlElement>());
    let (Some(frame), Some(body)) = (frame, doc.body()) else { return };
    let measured = body.clone();
    let resize = Closure::<dyn Fn()>::new(move || {
        let _ = frame.style().set_property("height", &format!("{}px", measured.scroll_height()));
    });
    if let Ok(obs) = web_sys::ResizeObserver::new(resize.as_ref().unchecked_ref()) {
        obs.observe(&body);
        // Both live as long as the page.
        std::mem::forget(obs);
        resize.forget();
    }
}
