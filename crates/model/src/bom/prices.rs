//! The price book: list or street prices per part id, each with its source and date, and the
//! power of parts whose maker publishes none (a switch's draw from a vendor quote). Data the
//! user supplies or overrides (a scenario file's `prices`, the CLI's `--prices FILE`); the
//! built-in book is empty because no list price of these parts is published by their maker,
//! and a figure without a source is never made up. Unpriced parts leave the cost `None`.

use crate::error::{ModelError, Result};
use serde::{Deserialize, Serialize};

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

/// Prices by part id; later entries override earlier ones. Read through `serde_json::Value`
/// (whose reader the page already has) rather than a derived reader: a smaller bundle.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PriceBook(#[serde(deserialize_with = "read_book")] pub Vec<Price>);

/// Reads `[{"item", "usd", "power_w", "source", "date"}, ...]`; any other key is an error.
fn read_book<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Vec<Price>, D::Error> {
    use serde::de::Error;
    let v = serde_json::Value::deserialize(d)?;
    let list = v.as_array().ok_or_else(|| D::Error::custom("prices: a list of {\"item\", \"usd\", \"power_w\", \"source\", \"date\"}"))?;
    let mut out = Vec::with_capacity(list.len());
    for e in list {
        let o = e.as_object().ok_or_else(|| D::Error::custom("prices: each entry is an object"))?;
        if let Some(k) = o.keys().find(|k| !["item", "usd", "power_w", "source", "date"].contains(&k.as_str())) {
            return Err(D::Error::custom(format!("prices: unknown field `{}`; allowed: item, usd, power_w, source, date", crate::error::printable(k, 40))));
        }
        let text = |k: &str| o.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_string();
        let num = |k: &str| match o.get(k) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(v) => v.as_f64().map(Some).ok_or_else(|| D::Error::custom(format!("prices: `{k}` is a number"))),
        };
        out.push(Price { item: text("item"), usd: num("usd")?, power_w: num("power_w")?, source: text("source"), date: text("date") });
    }
    Ok(out)
}

/// Most prices a book may hold (a bill of materials has a few dozen parts).
pub const MAX_PRICES: usize = 256;

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
            for (what, v) in [("usd", p.usd), ("power_w", p.power_w)] {
                if let Some(x) = v.filter(|x| !x.is_finite() || *x < 0.0) {
                    return Err(ModelError::new("prices", format!("{}: {what} must be a finite amount, 0 or more; got {x}", p.item)));
                }
            }
        }
        Ok(())
    }
}
