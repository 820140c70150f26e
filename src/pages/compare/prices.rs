//! compare.html's price book, as its own state beside the controls': read from the page's link
//! (`prices` of `#s=`) or, without one, from this browser's saved copy; saved in localStorage on
//! every change and carried back out in the link and the scenario file. Only books the model
//! accepts ([`PriceBook::validate`]) are held; the editor keeps a refused entry beside its input.

use crate::plumbing::storage::storage;
use fabricscope_design::bom::PriceBook;
use fabricscope_model::link::{decode, json_text};

/// Where the book is saved in the browser.
const STORAGE_KEY: &str = "fabricscope-prices";

/// The page's book and the notes of reading it (a link's or saved book that was refused).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prices {
    pub book: PriceBook,
    pub notes: Vec<String>,
}

/// A book read from JSON, checked; a refused one is empty with a note saying why.
fn read(v: &serde_json::Value, whence: &str) -> Prices {
    // An absurd amount (1e308) is brought down to its bound, with a note, rather than refused.
    let read = PriceBook::from_value(v).map(PriceBook::clamped).and_then(|(b, n)| b.validate().map(|_| (b, n)));
    match read {
        Ok((book, notes)) => Prices { book, notes: notes.into_iter().map(|n| format!("{whence} price book: {n}")).collect() },
        Err(e) => Prices { book: PriceBook::default(), notes: vec![format!("{whence} price book ({}): {}; nothing priced", e.field, e.message)] },
    }
}

/// The book of the page's link or, without one, the one saved in this browser.
pub fn load() -> Prices {
    let linked = crate::plumbing::url::link().map(|l| decode(&l).scenario.prices).filter(|v| !v.is_null());
    if let Some(v) = linked {
        return read(&v, "The link's");
    }
    let saved = storage("localStorage", "getItem", &[STORAGE_KEY]).and_then(|v| v.as_string());
    match saved.map(|t| serde_json::from_slice::<serde_json::Value>(t.as_bytes())) {
        Some(Ok(v)) => read(&v, "The saved"),
        Some(Err(_)) => Prices { book: PriceBook::default(), notes: vec!["The saved price book is not JSON; nothing priced".into()] },
        None => Prices::default(),
    }
}

/// Saves the book (an empty book removes the entry). A refused write only loses the saving.
pub fn save(book: &PriceBook) {
    let _ = if book.is_empty() {
        storage("localStorage", "removeItem", &[STORAGE_KEY])
    } else {
        storage("localStorage", "setItem", &[STORAGE_KEY, &json_text(&book.to_value())])
    };
}
