//! The designs a comparison holds (A-D), as their own state and reducer beside the page's
//! (`app::State` holds the design being edited; this holds the pinned ones). Kept in the
//! link (`d=` beside `s=`) and in the browser's localStorage, so a reload without a link
//! still shows the saved designs. The list logic is `fabricscope_design::compare`'s.

use fabricscope_design::compare::{add_linked, clean_name, encode_designs, open_designs, pin, Design};
use fabricscope_model::link::find_param;
use fabricscope_model::Scenario;
use std::rc::Rc;
use crate::plumbing::storage::storage;

use yew::prelude::*;

/// The pinned designs and the notes of reading them (fields of a link that fell back). A
/// link's designs are shown beside the saved list (`linked`), never over it: the saved list
/// changes only by the user's own action, each of which can be undone once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Designs {
    pub list: Vec<Design>,
    /// The link's designs, where they differ from a saved list (added only when asked).
    pub linked: Vec<Design>,
    /// The list before the user's last change, for Undo.
    pub undo: Option<Vec<Design>>,
    pub notes: Vec<String>,
    /// Compared at the largest design's GPU count (the link's `same=largest`; a link without
    /// it compares each design at its own size).
    pub same_gpus: bool,
}

/// What the user does to the list.
#[derive(Clone, Debug, PartialEq)]
pub enum DesignAction {
    /// Pin this scenario (the page's design) under its default name.
    Pin(Box<Scenario>),
    Rename(usize, String),
    Remove(usize),
    /// Compare at the largest design's GPU count, or each at its own.
    SameGpus(bool),
    /// Add the link's designs to the list.
    AddLinked,
    /// Put back the list as it was before the last change.
    Undo,
}

impl Reducible for Designs {
    type Action = DesignAction;

    fn reduce(self: Rc<Self>, action: DesignAction) -> Rc<Self> {
        let mut next = (*self).clone();
        next.notes.clear();
        next.undo = Some(self.list.clone());
        match action {
            DesignAction::Pin(s) => {
                if let Err(e) = pin(&mut next.list, *s, None) {
                    next.notes.push(e.message);
                }
            }
            DesignAction::Rename(i, name) => match (next.list.get_mut(i), clean_name(&name)) {
                (Some(d), n) if !n.is_empty() => d.name = n,
                _ => return self,
            },
            DesignAction::Remove(i) if i < next.list.len() => {
                next.list.remove(i);
            }
            DesignAction::Remove(_) => return self,
            DesignAction::SameGpus(on) => {
                next.same_gpus = on;
                next.undo = self.undo.clone();
                return Rc::new(next);
            }
            DesignAction::AddLinked => {
                let (list, notes) = add_linked(&next.list, &next.linked);
                (next.list, next.notes, next.linked) = (list, notes, Vec::new());
            }
            DesignAction::Undo => match self.undo.clone() {
                Some(prev) => {
                    next.list = prev;
                    next.undo = None;
                }
                None => return self,
            },
        }
        save(&next.list);
        Rc::new(next)
    }
}

/// Where the designs are saved in the browser.
const STORAGE_KEY: &str = "fabricscope-designs";

/// Saves the list (an empty list removes the entry). A refused write only loses the saving.
fn save(list: &[Design]) {
    let _ = if list.is_empty() {
        storage("localStorage", "removeItem", &[STORAGE_KEY])
    } else {
        storage("localStorage", "setItem", &[STORAGE_KEY, &encode_designs(list)])
    };
}

/// The designs of the page's URL (`d=`) or, without one, those saved in this browser, and
/// whether the URL compares them at one GPU count (`same=largest`).
pub fn load() -> Designs {
    let url = web_sys::window().and_then(|w| {
        let loc = w.location();
        Some((loc.search().ok()?, loc.hash().ok()?))
    });
    let from_url = url.as_ref().and_then(|(q, h)| find_param(q, h, "d=").map(str::to_string));
    let same_gpus = url.as_ref().is_some_and(|(q, h)| same_in_url(q, h));
    // The saved list is read whatever the link says: a link shows its designs beside it.
    let saved = storage("localStorage", "getItem", &[STORAGE_KEY]).and_then(|v| v.as_string());
    let o = open_designs(saved.as_deref(), from_url.as_deref());
    Designs { list: o.list, linked: o.linked, undo: None, notes: o.notes, same_gpus }
}

/// Whether a URL's query or fragment asks to compare at the largest design's GPU count.
pub fn same_in_url(query: &str, fragment: &str) -> bool {
    find_param(query, fragment, "same=") == Some(SAME_LARGEST)
}

/// The link's value of `same=` (the CLI's `--same-gpus largest`).
const SAME_LARGEST: &str = "largest";

/// The `&d=…` part of a link for these designs ("" for none), with `&same=largest` when they
/// are compared at one GPU count.
pub fn link_part(list: &[Design], same_gpus: bool) -> String {
    match (list.is_empty(), same_gpus) {
        (true, _) => String::new(),
        (false, false) => format!("&d={}", encode_designs(list)),
        (false, true) => format!("&d={}&same={SAME_LARGEST}", encode_designs(list)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_gpu_count_is_in_the_link_and_old_links_compare_as_they_are() {
        let list = vec![Design { name: "A".into(), scenario: Scenario::default() }];
        let on = link_part(&list, true);
        assert!(on.ends_with("&same=largest") && on.starts_with("&d=v1."), "{on}");
        let off = link_part(&list, false);
        assert!(!off.contains("same="), "{off}");
        assert!(same_in_url("", &format!("s=v1.e30{on}")));
        // A link written before the option (no same=) compares each design at its own size.
        assert!(!same_in_url("", &format!("s=v1.e30{off}")));
        assert!(!same_in_url("same=7", ""));
        let (back, notes) = fabricscope_design::compare::decode_designs(off.trim_start_matches("&d="));
        assert!(back.len() == 1 && notes.is_empty());
        assert_eq!(link_part(&[], true), "");
    }
}
