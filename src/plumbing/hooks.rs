//! Hooks that read the browser: a media query that re-renders when it flips (dark mode,
//! narrow screens), and whether an element is on screen.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::MediaQueryList;
use yew::prelude::*;

fn media(query: &str) -> Option<MediaQueryList> {
    web_sys::window()?.match_media(query).ok()?
}

/// Whether `query` matches now; the component re-renders on every `change` of it.
#[hook]
pub fn use_media_query(query: &'static str) -> bool {
    let matches = use_state(|| media(query).is_some_and(|m| m.matches()));
    {
        let matches = matches.clone();
        use_effect_with(query, move |q| {
            let mql = media(q);
            let listener = mql.as_ref().map(|m| {
                let list = m.clone();
                let cb = Closure::<dyn Fn()>::new(move || matches.set(list.matches()));
                // A failed subscription only loses live updates; the first value stands.
                let _ = m.add_event_listener_with_callback("change", cb.as_ref().unchecked_ref());
                cb
            });
            move || {
                if let (Some(m), Some(cb)) = (mql, listener) {
                    let _ = m
                        .remove_event_listener_with_callback("change", cb.as_ref().unchecked_ref());
                }
            }
        });
    }
    *matches
}

/// Whether the element behind `node` is on screen (or near it); re-renders when that flips.
/// True until the observer reports, and where IntersectionObserver is missing.
#[hook]
pub fn use_in_view(node: NodeRef, mounted: bool) -> bool {
    use_near_view(node, mounted, true)
}

/// Whether the element behind `node` is on screen (or within a quarter screen of it). Unlike
/// [`use_in_view`] it starts false: a panel far down the page (or a framed page) computes or
/// loads nothing while the page loads, only once the observer has seen it near the screen.
#[hook]
pub fn use_on_screen(node: NodeRef) -> bool {
    use_near_view(node, true, false)
}

/// [`use_in_view`] and [`use_on_screen`]: `initial` until the observer reports.
#[hook]
fn use_near_view(node: NodeRef, mounted: bool, initial: bool) -> bool {
    let visible = use_state_eq(move || initial);
    {
        let visible = visible.clone();
        // Re-run once the node is in the page (`mounted`): a NodeRef compares by identity.
        use_effect_with((node, mounted), move |(node, _)| {
            let el = node.cast::<web_sys::Element>();
            let cb = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
                if let Some(e) = entries.iter().last().and_then(|e| e.dyn_into::<web_sys::IntersectionObserverEntry>().ok()) {
                    visible.set(e.is_intersecting());
                }
            });
            let init = web_sys::IntersectionObserverInit::new();
            // A quarter screen of margin: drawn just before it scrolls into view.
            init.set_root_margin("25% 0px 25% 0px");
            let obs = web_sys::IntersectionObserver::new_with_options(cb.as_ref().unchecked_ref(), &init).ok();
            if let (Some(o), Some(el)) = (&obs, &el) {
                o.observe(el);
            }
            move || {
                if let Some(o) = obs {
                    o.disconnect();
                }
                drop(cb);
            }
        });
    }
    *visible
}

/// About one frame at 60 Hz, ms: each step of [`use_steps`] gets its own frame.
const FRAME_MS: u32 = 16;

/// How many of a page's `total` loading steps have been taken: 0 on the first render, then
/// one more per frame. A page shows its parts in steps, so loading is a few short tasks of
/// DOM, style and layout work, not one long one (issue 9: no main-thread task over 50 ms).
#[hook]
pub fn use_steps(total: u8) -> u8 {
    use_steps_after(total, true)
}

/// [`use_steps`] that takes its first step one frame after `ready` (until then, 0).
#[hook]
pub fn use_steps_after(total: u8, ready: bool) -> u8 {
    let taken = use_state(|| 0u8);
    {
        let taken = taken.clone();
        use_effect_with((*taken, ready), move |(n, ready)| {
            if *ready && *n < total {
                let next = *n + 1;
                gloo_timers::callback::Timeout::new(FRAME_MS, move || taken.set(next)).forget();
            }
        });
    }
    *taken
}

/// How long after the last slider input the page counts as no longer being dragged.
const DRAG_SETTLE_MS: u32 = 400;

thread_local! {
    static DRAG_END: std::cell::RefCell<Option<gloo_timers::callback::Timeout>> = const { std::cell::RefCell::new(None) };
}

/// Marks the page as being dragged (class `dragging` on `<html>`) until [`DRAG_SETTLE_MS`]
/// after the last call. While it is set, panels off screen skip rendering (the stylesheet's
/// `content-visibility: auto`), which keeps input-to-paint short; afterwards every panel
/// renders again, so printing and full-page captures show the whole page.
pub fn mark_dragging() {
    let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) else {
        return;
    };
    let _ = root.class_list().add_1("dragging");
    let timeout = gloo_timers::callback::Timeout::new(DRAG_SETTLE_MS, move || {
        let _ = root.class_list().remove_1("dragging");
        // Listeners may unsubscribe while they run: call a copy of the list.
        let settled: Vec<Callback<()>> = AT_REST.with(|l| l.borrow().iter().map(|(_, cb)| cb.clone()).collect());
        for cb in settled {
            cb.emit(());
        }
    });
    // Replacing the pending timeout cancels it.
    DRAG_END.with(|t| *t.borrow_mut() = Some(timeout));
}

thread_local! {
    /// Who re-renders when a drag comes to rest (see [`use_dragging`]), by subscription number.
    static AT_REST: std::cell::RefCell<Vec<(u32, Callback<()>)>> = const { std::cell::RefCell::new(Vec::new()) };
    static SUBSCRIBED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Whether a slider is being dragged (see [`mark_dragging`]); the component re-renders when
/// the drag comes to rest.
#[hook]
pub fn use_dragging() -> bool {
    let update = use_force_update();
    use_effect_with((), move |_| {
        let id = SUBSCRIBED.with(|n| {
            n.set(n.get() + 1);
            n.get()
        });
        AT_REST.with(|l| l.borrow_mut().push((id, Callback::from(move |_| update.force_update()))));
        move || AT_REST.with(|l| l.borrow_mut().retain(|(i, _)| *i != id))
    });
    dragging()
}

/// `value` while `live`; otherwise the value of the last render in which it was live. A panel
/// off screen gets the props it was last drawn with while a slider is dragged, so it skips
/// rendering (its props compare equal) and catches up when the drag comes to rest or it
/// scrolls into view.
#[hook]
pub fn use_frozen<T: Clone + 'static>(value: T, live: bool) -> T {
    let kept = use_mut_ref(|| None::<T>);
    let mut kept = kept.borrow_mut();
    match &*kept {
        Some(v) if !live => v.clone(),
        _ => {
            *kept = Some(value.clone());
            value
        }
    }
}

/// Marks a `<select>` the user has changed (see [`sync_selects`]).
const PICKED: &str = "data-picked";

thread_local! {
    /// Whether the document's `change` listener that marks picked selects is installed.
    static WATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a slider is being dragged (see [`mark_dragging`]).
pub fn dragging() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .is_some_and(|root| root.class_list().contains("dragging"))
}

/// Makes every `<select>` show the option its render marked `selected`. Once the user has
/// picked from a select, the browser keeps that choice and ignores later changes of the
/// `selected` attribute, so a preset or a link could leave a picker showing hardware the
/// model is not using (issue 9). A select nobody has picked from follows the attribute by
/// itself, so only the picked ones (marked on their `change` event) are visited: none while a
/// slider is dragged on a fresh page, where visiting all of them on every input cost about a
/// millisecond. Runs after every render of the app.
pub fn sync_selects() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if !WATCHING.with(|w| w.replace(true)) {
        let mark = Closure::<dyn Fn(web_sys::Event)>::new(|e: web_sys::Event| {
            if let Some(sel) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()) {
                let _ = sel.set_attribute(PICKED, "");
            }
        });
        // Capture: marked before the app's own handler re-renders.
        let _ = doc.add_event_listener_with_callback_and_bool("change", mark.as_ref().unchecked_ref(), true);
        mark.forget();
    }
    let Ok(list) = doc.query_selector_all("select[data-picked]") else {
        return;
    };
    for i in 0..list.length() {
        let Some(sel) = list.item(i).and_then(|n| n.dyn_into::<web_sys::HtmlSelectElement>().ok()) else {
            continue;
        };
        if let Ok(Some(opt)) = sel.query_selector("option[selected]") {
            let want = opt.get_attribute("value").unwrap_or_default();
            if sel.value() != want {
                sel.set_value(&want);
            }
        }
    }
}

/// The media query of a dark colour scheme.
pub const DARK: &str = "(prefers-color-scheme: dark)";
/// Below this width charts are drawn smaller so their text stays legible when scaled.
pub const NARROW: &str = "(max-width: 640px)";
