//! The price book: list or street prices per part id, each with its source and date. Data the
//! user supplies or overrides (a scenario file's `prices`, the CLI's `--prices FILE`); the
//! built-in book is empty because no list price of these parts is published by their maker,
//! and a figure without a source is never made up. Unpriced parts leave the cost `None`.

use crate::error::{ModelError, Result};
use serde::{Deserialize, Serialize};

/// One price.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// A part id ([`super::parts::known_ids`]).
    pub item: String,
    /// US dollars per unit.
    pub usd: f64,
    /// Where the price comes from (quote, list, URL).
    #[serde(default)]
    pub source: String,
    /// When the price was seen (ISO date).
    #[serde(default)]
    pub date: String,
}

/// Prices by part id; later entries override earlier ones.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PriceBook(pub Vec<Price>);

/// Most prices a book may hold (a bill of materials has a few dozen parts).
pub const MAX_PRICES: usize = 256;

impl PriceBook {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The price of a part, if the book has one.
    pub fn get(&self, item: &str) -> Option<&Price> {
        self.0.iter().rev().find(|p| p.item == item)
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
            if !p.usd.is_finite() || p.usd < 0.0 {
                return Err(ModelError::new("prices", format!("{}: a price is a finite amount of US dollars, 0 or more; got {}", p.item, p.usd)));
            }
        }
        Ok(())
    }
}
