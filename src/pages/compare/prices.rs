//! compare.html's price book, as its own state beside the controls': this browser's saved copy,
//! with a link's book (`prices` of `#s=`) beside it (the link's is the book only where none is
//! saved; switching to it is the user's, with Undo); saved in localStorage on every change and carried back out in the link and the scenario file. Only books the model
//! accepts ([`PriceBook::validate`]) are held; the editor keeps a refused entry beside its input.

use crate::plumbing::storage::storage;
use fabricscope_design::bom::prices::open_book;
use fabricscope_design::bom::PriceBook;
use fabricscope_model::link::{decode, json_text};

/// Where the book is saved in the browser.
const STORAGE_KEY: &str = "fabricscope-prices";

/// The page's book, the notes of reading it, a link's book offered beside a saved one, and the
/// book before the last "use the link's" (for Undo).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prices {
    pub book: PriceBook,
    pub notes: Vec<String>,
    pub linked: Option<PriceBook>,
    pub undo: Option<PriceBook>,
}

/// The book saved in this browser and, beside it, the link's (`prices` of `#s=`): a link's book
/// never replaces a saved one (`fabricscope_design::bom::prices::open_book`).
pub fn load() -> Prices {
    let linked = crate::plumbing::url::link().map(|l| decode(&l).scenario.prices).unwrap_or_default();
    let saved = storage("localStorage", "getItem", &[STORAGE_KEY]).and_then(|v| v.as_string());
    let o = open_book(saved.as_deref(), &linked);
    Prices { book: o.book, notes: o.notes, linked: o.linked, undo: None }
}

/// Saves the book (an empty book removes the entry). A refused write only loses the saving.
pub fn save(book: &PriceBook) {
    let _ = if book.is_empty() {
        storage("localStorage", "removeItem", &[STORAGE_KEY])
    } else {
        storage("localStorage", "setItem", &[STORAGE_KEY, &json_text(&book.to_value())])
    };
}
