//! The price book: list or street prices per part id, each with its source and date, and the
//! power of parts whose maker publishes none (a switch's draw from a vendor quote). Data the
//! user supplies or overrides (a scenario file's `prices`, the CLI's `--prices FILE`); the
//! built-in book is empty because no list price of these parts is published by their maker,
//! and a figure without a source is never made up. Unpriced parts leave the cost `None`.

use crate::error::{ModelError, Result};
use serde::Serialize;

/// One price.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Price {
    /// A part id ([`super::parts::known_ids`]).
    pub item: String,
    /// US dollars per unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd: Option<f64>,
    /// Watts per unit, replacing the catalog's figure (or its absence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_w: Option<f64>,
    /// Where the price comes from (quote, list, URL).
    pub source: String,
    /// When the price was seen (ISO date).
    pub date: String,
}

/// Prices by part id; later entries override earlier ones.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct PriceBook(pub Vec<Price>);

impl PriceBook {
    /// Reads `[{"item", "usd", "power_w", "source", "date"}, ...]` (null: an empty book); any
    /// other key is an error naming the field. A scenario keeps its prices as the JSON it was
    /// given ([`crate::Scenario::prices`]) and they are read here, where a bill of materials
    /// is made: the explorer, which makes none, carries no code for them.
    pub fn from_value(v: &serde_json::Value) -> Result<PriceBook> {
        let err = |m: String| ModelError::new("prices", m);
        if v.is_null() {
            return Ok(PriceBook::default());
        }
        let list = v.as_array().ok_or_else(|| err("a list of {\"item\", \"usd\", \"power_w\", \"source\", \"date\"}".into()))?;
        let mut out = Vec::with_capacity(list.len());
        for e in list {
            let o = e.as_object().ok_or_else(|| err("each entry is an object".into()))?;
            if let Some(k) = o.keys().find(|k| !["item", "usd", "power_w", "source", "date"].contains(&k.as_str())) {
                return Err(err(format!("unknown field `{}`; allowed: item, usd, power_w, source, date", crate::error::printable(k, 40))));
            }
            let text = |k: &str| o.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_string();
            // A number, or text as people write amounts ("$380,000"): parse_amount.
            let num = |k: &str| match o.get(k) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(serde_json::Value::String(t)) => parse_amount(k, t).map_err(|e| err(e.message)),
                Some(v) => v.as_f64().map(Some).ok_or_else(|| err(format!("`{k}` is a number (or text such as \"$380,000\")"))),
            };
            out.push(Price { item: text("item"), usd: num("usd")?, power_w: num("power_w")?, source: text("source"), date: text("date") });
        }
        Ok(PriceBook(out))
    }
}

/// A number as people write prices and power: "1,000,000", "$380,000", "USD 1,200.50",
/// "380,000 USD", "1,200 W", " 42 " (commas grouping thousands, an optional dollar sign or
/// USD, or W for `power_w`). Empty gives `None`. Refused, with a message naming `field` and
/// what it takes: anything else, negative amounts, NaN, infinities and more than
/// [`MAX_USD`] or [`MAX_POWER_W`].
pub fn parse_amount(field: &str, text: &str) -> Result<Option<f64>> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    let (field, unit, what, max) = if field == "power_w" { ("power_w", "W", "watts per unit", MAX_POWER_W) } else { ("usd", "USD", "US dollars per unit", MAX_USD) };
    let refuse = || {
        let eg = if field == "power_w" { "1200, 1,200 or 1,200 W" } else { "380000, 380,000, $380,000 or USD 1,200.50" };
        ModelError::new(field, format!("{field} is {what}, from 0 to {}, written like {eg}; got '{}'", crate::figures::thousands(max), crate::error::printable(t, 40)))
    };
    let mut n = t;
    if field != "power_w" {
        n = n.strip_prefix('$').or_else(|| n.strip_prefix(unit)).unwrap_or(n).trim_start();
    }
    n = n.strip_suffix(unit).unwrap_or(n).trim_end();
    // Digits, commas grouping whole thousands, one optional decimal part.
    let (whole, frac) = n.split_once('.').unwrap_or((n, ""));
    let groups: Vec<&str> = whole.split(',').collect();
    let digits = |g: &str| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
    let grouped = groups.len() == 1 || (groups[0].len() <= 3 && groups[1..].iter().all(|g| g.len() == 3));
    if !groups.iter().all(|g| digits(g)) || !grouped || !(frac.is_empty() || digits(frac)) || n.ends_with('.') {
        return Err(refuse());
    }
    let plain = if frac.is_empty() { groups.concat() } else { format!("{}.{frac}", groups.concat()) };
    match plain.parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..=max).contains(&x) => Ok(Some(x)),
        _ => Err(refuse()),
    }
}

/// Most prices a book may hold (a bill of materials has a few dozen parts).
pub const MAX_PRICES: usize = 256;

/// Largest price-book file, bytes: a scenario file may carry the book, so a scenario file's
/// limit (1 MiB); a book of [`MAX_PRICES`] entries with full texts is under 200 KB.
pub const MAX_FILE_BYTES: u64 = crate::link::MAX_FILE_BYTES as u64;

/// Refuses a price-book file of `len` bytes over [`MAX_FILE_BYTES`], before it is read.
pub fn check_file_size(len: u64) -> Result<()> {
    if len > MAX_FILE_BYTES {
        return Err(ModelError::new(
            "prices",
            format!("the price book is too large: {len} bytes, more than the {MAX_FILE_BYTES} (1 MiB) a price-book file may have"),
        ));
    }
    Ok(())
}

/// Longest `source` or `date` text, in characters (a URL and a note fit).
pub const MAX_TEXT: usize = 300;

/// Largest price of one part, US dollars: a billion, well above any part of a cluster (a
/// switch or a GPU costs tens of thousands) and small enough that a bill of thousands of
/// parts stays a finite, printable sum (1e308 per part printed "inf").
pub const MAX_USD: f64 = 1e9;

/// Largest power of one part, watts: a megawatt, well above any part (an NVL72 rack draws
/// about 120 kW) and small enough that totals stay finite.
pub const MAX_POWER_W: f64 = 1e6;

/// The fields of an entry a user edits ([`PriceBook::edited`]), as named in files.
pub const FIELDS: [&str; 4] = ["usd", "power_w", "source", "date"];

impl PriceBook {
    /// The book as a scenario's `prices` (null when empty).
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        if self.is_empty() {
            return Value::Null;
        }
        // Written out: a derived serializer to a Value would be one more in the page's bundle.
        let entry = |p: &Price| {
            let mut o = serde_json::Map::new();
            o.insert("item".into(), Value::from(p.item.as_str()));
            for (k, v) in [("usd", p.usd), ("power_w", p.power_w)] {
                if let Some(x) = v {
                    o.insert(k.into(), Value::from(x));
                }
            }
            o.insert("source".into(), Value::from(p.source.as_str()));
            o.insert("date".into(), Value::from(p.date.as_str()));
            Value::Object(o)
        };
        Value::Array(self.0.iter().map(entry).collect())
    }

    /// The entry the book reads for `item` (the last one naming it).
    pub fn entry(&self, item: &str) -> Option<&Price> {
        self.0.iter().rev().find(|p| p.item == item)
    }

    /// The book with `item`'s `field` ([`FIELDS`]) set from what the user typed: an amount as
    /// [`parse_amount`] reads it for `usd` and `power_w` (empty clears it), text for `source` and `date`. An
    /// entry left with nothing in it is dropped. An error names the field and what it takes;
    /// the book is then unchanged (the caller keeps `self`).
    pub fn edited(&self, item: &str, field: &str, text: &str) -> Result<PriceBook> {
        let text = text.trim();
        let err = |m: String| ModelError::new("prices", format!("{}: {m}", crate::error::printable(item, 40)));
        let number = || parse_amount(field, text).map_err(|e| err(e.message));
        let mut next = self.clone();
        // Later entries win: edit the one the book reads, or add one.
        let at = match next.0.iter().rposition(|p| p.item == item) {
            Some(i) => i,
            None => {
                next.0.push(Price { item: item.to_string(), usd: None, power_w: None, source: String::new(), date: String::new() });
                next.0.len() - 1
            }
        };
        let e = &mut next.0[at];
        match field {
            "usd" => e.usd = number()?,
            "power_w" => e.power_w = number()?,
            "source" | "date" if text.chars().count() > MAX_TEXT => return Err(err(format!("{field} is at most {MAX_TEXT} characters"))),
            "source" => e.source = text.to_string(),
            "date" => e.date = text.to_string(),
            _ => return Err(err(format!("no field `{}`; allowed: {}", crate::error::printable(field, 40), FIELDS.join(", ")))),
        }
        if e.usd.is_none() && e.power_w.is_none() && e.source.is_empty() && e.date.is_empty() {
            next.0.remove(at);
        }
        next.validate()?;
        Ok(next)
    }

    /// A price-book file: a list of entries, or a scenario file whose `prices` is one;
    /// checked ([`PriceBook::validate`]).
    pub fn from_file_text(text: &str) -> Result<PriceBook> {
        check_file_size(text.len() as u64)?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        // from_slice, as links are read: one JSON parser in the page's bundle.
        let v: serde_json::Value = serde_json::from_slice(text.as_bytes()).map_err(|e| ModelError::new("prices", format!("not JSON: {}", crate::error::printable(&e.to_string(), 80))))?;
        let list = match &v {
            serde_json::Value::Object(o) => o.get("prices").ok_or_else(|| ModelError::new("prices", "a list of prices, or a scenario file with `prices`"))?,
            _ => &v,
        };
        let book = PriceBook::from_value(list)?;
        book.validate()?;
        Ok(book)
    }
}

impl PriceBook {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The price of a part in US dollars, if the book has one.
    pub fn usd(&self, item: &str) -> Option<f64> {
        self.0.iter().rev().find_map(|p| p.usd.filter(|_| p.item == item))
    }

    /// The user's power figure for a part in watts, if the book has one.
    pub fn power_w(&self, item: &str) -> Option<f64> {
        self.0.iter().rev().find_map(|p| p.power_w.filter(|_| p.item == item))
    }

    /// `self` with `other`'s prices on top.
    pub fn merged(&self, other: &PriceBook) -> PriceBook {
        PriceBook(self.0.iter().chain(&other.0).cloned().collect())
    }

    /// Every price names a known part and is a finite, non-negative amount.
    pub fn validate(&self) -> Result<()> {
        if self.0.len() > MAX_PRICES {
            return Err(ModelError::new("prices", format!("{} prices is more than the {MAX_PRICES} allowed", self.0.len())));
        }
        let known = super::parts::known_ids();
        for p in &self.0 {
            if !known.contains(&p.item.as_str()) {
                return Err(ModelError::new(
                    "prices",
                    format!("unknown part '{}'; allowed: {}", crate::error::printable(&p.item, 40), known.join(", ")),
                ));
            }
            if p.source.chars().count() > MAX_TEXT || p.date.chars().count() > MAX_TEXT {
                return Err(ModelError::new("prices", format!("{}: source and date are at most {MAX_TEXT} characters", p.item)));
            }
            for (what, v, max) in [("usd", p.usd, MAX_USD), ("power_w", p.power_w, MAX_POWER_W)] {
                if let Some(x) = v.filter(|x| !x.is_finite() || !(0.0..=max).contains(x)) {
                    let max = crate::figures::thousands(max);
                    return Err(ModelError::new("prices", format!("{}: {what} must be a finite amount, 0 or more and at most {max}; got {x}", p.item)));
                }
            }
        }
        Ok(())
    }

    /// The book with every amount above its bound ([`MAX_USD`], [`MAX_POWER_W`]) brought down
    /// to it, and a note for each: what a page does with a decoded book (a link's or saved
    /// one), where a typed amount is refused instead ([`PriceBook::edited`]).
    pub fn clamped(mut self) -> (PriceBook, Vec<String>) {
        let mut notes = Vec::new();
        for p in &mut self.0 {
            for (what, v, max) in [("usd", &mut p.usd, MAX_USD), ("power_w", &mut p.power_w, MAX_POWER_W)] {
                if let Some(x) = v.filter(|x| *x > max) {
                    notes.push(format!("{}: {what} {x:e} is over the bound of {max}; {max} used", crate::error::printable(&p.item, 40), max = crate::figures::thousands(max)));
                    *v = Some(max);
                }
            }
        }
        (self, notes)
    }
}

/// The book compare.html opens with: this browser's saved book, and a link's beside it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpenedBook {
    /// The book the page prices with and edits (the saved one; the link's when none is saved).
    pub book: PriceBook,
    /// A link's valid book that differs from a saved one, offered beside it.
    pub linked: Option<PriceBook>,
    pub notes: Vec<String>,
}

/// A book as a page reads it: amounts past their bounds brought down (with a note), checked.
fn read_book(v: &serde_json::Value, whence: &str) -> std::result::Result<(PriceBook, Vec<String>), String> {
    PriceBook::from_value(v)
        .map(PriceBook::clamped)
        .and_then(|(b, n)| b.validate().map(|_| (b, n)))
        .map(|(b, n)| (b, n.into_iter().map(|n| format!("{whence} price book: {n}")).collect()))
        .map_err(|e| format!("{whence} price book ({}): {}", e.field, e.message))
}

/// The book to show from the saved text (`saved`, localStorage: its size checked before it is
/// parsed) and a link's `prices` (`linked`, null for none). A link never replaces a saved book:
/// a bad one is named in a note, a valid different one is offered beside it.
pub fn open_book(saved: Option<&str>, linked: &serde_json::Value) -> OpenedBook {
    let mut notes = Vec::new();
    let book = match saved {
        Some(t) if t.len() as u64 > MAX_FILE_BYTES => {
            notes.push(format!("The saved price book is too large ({} bytes, more than {MAX_FILE_BYTES}); not read, nothing priced", t.len()));
            PriceBook::default()
        }
        Some(t) => match serde_json::from_slice::<serde_json::Value>(t.as_bytes()).map_err(|_| "The saved price book is not JSON; nothing priced".to_string()).and_then(|v| read_book(&v, "The saved")) {
            Ok((b, mut n)) => {
                notes.append(&mut n);
                b
            }
            Err(m) => {
                notes.push(m);
                PriceBook::default()
            }
        },
        None => PriceBook::default(),
    };
    if linked.is_null() {
        return OpenedBook { book, linked: None, notes };
    }
    let kept = format!("your saved book of {} price(s) is kept", book.0.len());
    match read_book(linked, "The link's") {
        Ok((lb, mut n)) if book.is_empty() => {
            notes.append(&mut n);
            OpenedBook { book: lb, linked: None, notes }
        }
        Ok((lb, _)) if lb == book => OpenedBook { book, linked: None, notes },
        Ok((lb, _)) => {
            notes.push(format!("The link carries a price book of {} price(s); {kept}: use the link's, or leave it.", lb.0.len()));
            OpenedBook { book, linked: Some(lb), notes }
        }
        Err(m) if book.is_empty() => {
            notes.push(format!("{m}; nothing priced"));
            OpenedBook { book, linked: None, notes }
        }
        Err(m) => {
            notes.push(format!("{m}; not used, {kept}"));
            OpenedBook { book, linked: None, notes }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_read_as_people_write_them() {
        let ok = |f: &str, t: &str| parse_amount(f, t).unwrap();
        assert_eq!(ok("usd", "1,000,000"), Some(1e6));
        assert_eq!(ok("usd", "$380,000"), Some(380_000.0));
        assert_eq!(ok("usd", "USD 1,200.50"), Some(1200.5));
        assert_eq!(ok("usd", "380,000 USD"), Some(380_000.0));
        assert_eq!(ok("usd", " 42 "), Some(42.0));
        assert_eq!(ok("usd", "0"), Some(0.0));
        assert_eq!(ok("usd", "   "), None);
        assert_eq!(ok("power_w", "1,200 W"), Some(1200.0));
        assert_eq!(ok("usd", "1000000000"), Some(MAX_USD));
        assert_eq!(ok("power_w", "1,000,000 W"), Some(MAX_POWER_W));
        assert!(parse_amount("power_w", "1,000,001").is_err());
        for bad in ["abc", "-5", "$-5", "NaN", "inf", "1e3", "1e308", "1,00", "12,3456", ",100", "1..2", "1.", "$", "1000000001", "$ 1 000", "4.2.1", "€100"] {
            let e = parse_amount("usd", bad).unwrap_err();
            assert_eq!(e.field, "usd", "{bad}");
            assert!(e.message.contains("US dollars per unit") && e.message.contains("$380,000") && e.message.contains("1,000,000,000"), "{bad}: {}", e.message);
        }
        // Dollar signs are for prices, not watts.
        assert!(parse_amount("power_w", "$1,200").unwrap_err().message.contains("watts per unit"));
    }

    #[test]
    fn typed_and_filed_amounts_reach_the_book_and_slips_leave_it_unchanged() {
        let book = PriceBook::default().edited("dgx-h100", "usd", "$380,000").unwrap();
        assert_eq!(book.usd("dgx-h100"), Some(380_000.0));
        let book = book.edited("dgx-h100", "usd", "1,000,000").unwrap();
        assert_eq!(book.usd("dgx-h100"), Some(1e6));
        let e = book.edited("dgx-h100", "usd", "lots").unwrap_err();
        assert!(e.message.starts_with("dgx-h100: usd is US dollars per unit"), "{}", e.message);
        let e = book.edited("dgx-h100", "power_w", "-3").unwrap_err();
        assert!(e.message.contains("power_w is watts per unit"), "{}", e.message);
        // A file may write amounts as text; absurd numbers are refused whichever way written.
        let v = serde_json::json!([{"item": "dgx-h100", "usd": "$380,000", "source": "example", "date": ""}]);
        assert_eq!(PriceBook::from_value(&v).unwrap().usd("dgx-h100"), Some(380_000.0));
        let v = serde_json::json!([{"item": "dgx-h100", "usd": 5e12}]);
        let e = PriceBook::from_value(&v).unwrap().validate().unwrap_err();
        assert!(e.message.contains("0 or more and at most 1,000,000,000"), "{}", e.message);
    }

    #[test]
    fn the_example_price_book_loads_and_is_marked_as_an_example() {
        let text = include_str!("../../../../examples/price-book.example.json");
        let book = PriceBook::from_file_text(text).unwrap();
        assert!(book.0.len() >= 5);
        // Made-up round numbers, each saying so where a source would be.
        for p in &book.0 {
            assert!(p.source.to_ascii_lowercase().contains("example"), "{}: {}", p.item, p.source);
            assert!(p.usd.is_some_and(|x| x > 0.0 && x % 100.0 == 0.0), "{}: {:?}", p.item, p.usd);
        }
    }

    #[test]
    fn a_links_book_never_replaces_a_saved_one() {
        use serde_json::json;
        let items = ["dgx-h100", "dgx-h200", "dgx-b200", "gpu-server"];
        let saved_book = PriceBook((0..16).map(|i| Price { item: items[i % 4].into(), usd: Some(1000.0 + i as f64), power_w: None, source: "quote".into(), date: String::new() }).collect());
        saved_book.validate().expect("a valid book");
        let saved = serde_json::to_string(&saved_book.to_value()).expect("JSON");
        // A bad link book: the saved one is kept, the link's named.
        let o = open_book(Some(&saved), &json!([{"item": "no-such-part", "usd": 5}]));
        assert_eq!(o.book, saved_book);
        assert!(o.linked.is_none());
        assert!(o.notes[0].starts_with("The link's price book") && o.notes[0].contains("16 price(s) is kept"), "{:?}", o.notes);
        // A valid, different one: offered beside.
        let o = open_book(Some(&saved), &json!([{"item": "dgx-h100", "usd": 5}]));
        assert_eq!((o.book.0.len(), o.linked.as_ref().map(|b| b.0.len())), (16, Some(1)));
        // Nothing saved: the link's is the book. No link: the saved one.
        assert_eq!(open_book(None, &json!([{"item": "dgx-h100", "usd": 5}])).book.0.len(), 1);
        assert_eq!(open_book(Some(&saved), &serde_json::Value::Null).book, saved_book);
        // A saved value over the limit is not parsed.
        let huge = " ".repeat(MAX_FILE_BYTES as usize + 1);
        let o = open_book(Some(&huge), &serde_json::Value::Null);
        assert!(o.book.is_empty() && o.notes[0].contains("too large"), "{:?}", o.notes);
    }
}
