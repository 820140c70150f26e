//! A requestAnimationFrame loop as a Yew hook: while `active`, `on_frame` gets the
//! milliseconds since the previous frame (0 on the first, at most 100 after a stall); the loop
//! is cancelled when `active` turns false or the component unmounts.

use gloo_render::{request_animation_frame, AnimationFrame};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The pending frame, dropped (cancelled) when the loop stops.
type Pending = Rc<RefCell<Option<AnimationFrame>>>;

/// Longest step one frame may take, ms: a tab in the background does not jump to the end.
const MAX_FRAME_MS: f64 = 100.0;

fn next(pending: Pending, on_frame: Rc<RefCell<Callback<f64>>>, last: Option<f64>) {
    let p = pending.clone();
    let frame = request_animation_frame(move |now| {
        let dt = last.map_or(0.0, |l| (now - l).clamp(0.0, MAX_FRAME_MS));
        // The callback may stop the loop (the pending frame is then gone): ask again only
        // while the loop still runs.
        let running = p.borrow().is_some();
        // Cloned first: the render the callback causes writes the latest callback.
        let cb = on_frame.borrow().clone();
        cb.emit(dt);
        if running && p.borrow().is_some() {
            next(p, on_frame, Some(now));
        }
    });
    *pending.borrow_mut() = Some(frame);
}

#[hook]
pub fn use_animation_frame(active: bool, on_frame: Callback<f64>) {
    // The latest callback (it closes over the latest state), read by the running loop.
    let latest = use_mut_ref(|| on_frame.clone());
    *latest.borrow_mut() = on_frame;
    use_effect_with(active, move |&active| {
        let pending: Pending = Rc::default();
        if active {
            next(pending.clone(), latest, None);
        }
        move || {
            pending.borrow_mut().take();
        }
    });
}
