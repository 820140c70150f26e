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
            let num = |k: &str| match o.get(k) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(v) => v.as_f64().map(Some).ok_or_else(|| err(format!("`{k}` is a number"))),
            };
            out.push(Price { item: text("item"), usd: num("usd")?, power_w: num("power_w")?, source: text("source"), date: text("date") });
        }
        Ok(PriceBook(out))
    }
}

/// Most prices a book may hold (a bill of materials has a few dozen parts).
pub const MAX_PRICES: usize = 256;

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

    /// The book with `item`'s `field` ([`FIELDS`]) set from what the user typed: a number of
    /// 0 or more for `usd` and `power_w` (empty clears it), text for `source` and `date`. An
    /// entry left with nothing in it is dropped. An error names the field and what it takes;
    /// the book is then unchanged (the caller keeps `self`).
    pub fn edited(&self, item: &str, field: &str, text: &str) -> Result<PriceBook> {
        let text = text.trim();
        let err = |m: String| ModelError::new("prices", format!("{}: {m}", crate::error::printable(item, 40)));
        let number = |unit: &str, max: f64| -> Result<Option<f64>> {
            if text.is_empty() {
                return Ok(None);
            }
            match text.parse::<f64>() {
                Ok(x) if x.is_finite() && (0.0..=max).contains(&x) => Ok(Some(x)),
                _ => Err(err(format!("{field} is {unit}, 0 or more and at most {max:e}; got '{}'", crate::error::printable(text, 40)))),
            }
        };
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
            "usd" => e.usd = number("US dollars per unit", MAX_USD)?,
            "power_w" => e.power_w = number("watts per unit", MAX_POWER_W)?,
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
                    return Err(ModelError::new("prices", format!("{}: {what} must be a finite amount, 0 or more and at most {max:e}; got {x}", p.item)));
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
                    notes.push(format!("{}: {what} {x:e} is above the {max:e} allowed; using {max:e}", crate::error::printable(&p.item, 40)));
                    *v = Some(max);
                }
            }
        }
        (self, notes)
    }
}
