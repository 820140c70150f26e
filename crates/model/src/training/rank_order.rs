//! The rank order: which parallel dimension lies innermost on consecutive GPUs
//! (Megatron-LM's `RankGenerator` order, TP innermost and PP outermost by default).

use crate::error::{ModelError, Result};
use serde::{Deserialize, Serialize};

/// One parallel dimension of the rank order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dim {
    Tp,
    Cp,
    Dp,
    Pp,
}

impl Dim {
    pub fn id(self) -> &'static str {
        match self {
            Dim::Tp => "tp",
            Dim::Cp => "cp",
            Dim::Dp => "dp",
            Dim::Pp => "pp",
        }
    }
}

/// The order in which dimensions are laid onto consecutive GPUs, innermost first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RankOrder(pub [Dim; 4]);

impl Default for RankOrder {
    /// Megatron-LM's: TP innermost, then CP, then DP, PP outermost.
    fn default() -> Self {
        RankOrder([Dim::Tp, Dim::Cp, Dim::Dp, Dim::Pp])
    }
}

impl RankOrder {
    /// PP is the outermost dimension (a stage's GPUs are contiguous): what folding needs.
    pub fn pp_outermost(&self) -> bool {
        self.0[3] == Dim::Pp
    }
    pub fn id(&self) -> String {
        self.0.iter().map(|d| d.id()).collect::<Vec<_>>().join("-")
    }
    /// Parses "tp-cp-dp-pp" (any permutation; "ep" may appear and is ignored: EP folds over
    /// the stage's TP x CP x DP, or sits inside DP, as `Parallel::etp` decides).
    pub fn parse(s: &str) -> Result<RankOrder> {
        let bad = || {
            ModelError::new(
                "order",
                format!("'{s}' is not a rank order: list tp, cp, dp and pp once each, innermost first, e.g. tp-cp-dp-pp (Megatron) or tp-dp-cp-pp"),
            )
        };
        let mut dims = Vec::new();
        for part in s.split(['-', ',', ' ']).filter(|p| !p.is_empty()) {
            let d = match part.to_ascii_lowercase().as_str() {
                "tp" => Dim::Tp,
                "cp" => Dim::Cp,
                "dp" => Dim::Dp,
                "pp" => Dim::Pp,
                "ep" => continue,
                _ => return Err(bad()),
            };
            if dims.contains(&d) {
                return Err(bad());
            }
            dims.push(d);
        }
        if dims.len() != 4 {
            return Err(bad());
        }
        Ok(RankOrder([dims[0], dims[1], dims[2], dims[3]]))
    }
}

impl TryFrom<String> for RankOrder {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        RankOrder::parse(&s).map_err(|e| e.message)
    }
}
impl From<RankOrder> for String {
    fn from(o: RankOrder) -> String {
        o.id()
    }
}
