//! The key numbers of a design (a scenario) for comparing designs side by side: whole-cluster
//! AllReduce busbw at 1 GiB, the chosen job's step time, MFU and tokens/s, power and cost, and
//! the efficiency they give; and the delta table that marks the better design per row.

use crate::bom::{scenario_bom, Bom};
use crate::collective::{AlgoChoice, Collective, Comm, ProtoChoice};
use crate::error::Result;
use crate::scenario::Scenario;
use crate::training::explore::{constraints, start, workload};
use crate::training::StepReport;
use crate::units::Bytes;
use serde::Serialize;

/// Message size of the headline busbw: 1 GiB, where nccl-tests' busbw has reached its plateau.
pub const BUSBW_BYTES: Bytes = Bytes(1 << 30);

/// One design's numbers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DesignNumbers {
    pub name: String,
    pub gpus: u32,
    /// AllReduce over every GPU at [`BUSBW_BYTES`], GB/s per direction.
    #[serde(rename = "allreduce_busbw_GBps")]
    pub allreduce_busbw_gbps: f64,
    /// The scenario's job on its chosen layout (`None` when nothing fits).
    pub step_time_s: Option<f64>,
    pub mfu: Option<f64>,
    pub tokens_per_s: Option<f64>,
    pub power_kw: f64,
    /// Every item's power is published; otherwise `power_kw` is a lower bound (switches
    /// without a published figure) and no design wins on power.
    pub power_complete: bool,
    /// `None` unless every item of the bill of materials has a price.
    pub cost_usd: Option<f64>,
    pub tokens_per_s_per_mw: Option<f64>,
    pub tokens_per_s_per_musd: Option<f64>,
    #[serde(skip)]
    pub bom: Bom,
}

/// The numbers of one scenario, named `name`.
pub fn design_numbers(name: &str, s: &Scenario) -> Result<DesignNumbers> {
    let topo = s.cluster.topology()?;
    let comm = Comm::new(&topo, topo.whole())?;
    let busbw = comm.predict(Collective::AllReduce, BUSBW_BYTES, AlgoChoice::Auto, ProtoChoice::Auto)?.busbw.0;
    let w = workload(&s.training.workload)?;
    let view = start(&topo, &s.training.workload, constraints(&s.training, topo.total_gpus, &w))?;
    let bom = scenario_bom(s)?;
    Ok(DesignNumbers::new(name, topo.total_gpus, busbw, view.chosen.as_ref(), bom))
}

impl DesignNumbers {
    /// A design's numbers from its parts: `busbw` (GB/s per direction), the job's chosen
    /// layout (its numbers only when it fits) and the bill of materials.
    pub fn new(name: &str, gpus: u32, busbw: f64, chosen: Option<&StepReport>, bom: Bom) -> DesignNumbers {
        let chosen = chosen.filter(|c| c.fits);
        let eff = chosen.map(|c| bom.efficiency(c.tokens_per_s));
        DesignNumbers {
            name: name.to_string(),
            gpus,
            allreduce_busbw_gbps: busbw,
            step_time_s: chosen.map(|c| c.step_time_s),
            mfu: chosen.map(|c| c.mfu),
            tokens_per_s: chosen.map(|c| c.tokens_per_s),
            power_kw: bom.power_kw,
            power_complete: bom.unpowered.is_empty(),
            cost_usd: bom.cost_usd,
            tokens_per_s_per_mw: eff.and_then(|e| e.tokens_per_s_per_mw),
            tokens_per_s_per_musd: eff.and_then(|e| e.tokens_per_s_per_musd),
            bom,
        }
    }
}

/// Whether more or less of a row's number is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    Higher,
    Lower,
}

/// One row of the delta table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeltaRow {
    pub key: &'static str,
    pub label: &'static str,
    pub unit: &'static str,
    pub better: Better,
    /// One value per design (`None` where the design has none).
    pub values: Vec<Option<f64>>,
    /// Index of the better design, when at least two have a value and they differ.
    pub best: Option<usize>,
    /// Best value over the worst (always >= 1), with `best`.
    pub ratio: Option<f64>,
}

/// The rows compared, in order: (key, label, unit, which is better, value, whether the value
/// rests on the total power).
type RowSpec = (&'static str, &'static str, &'static str, Better, fn(&DesignNumbers) -> Option<f64>, bool);

const ROWS: [RowSpec; 8] = [
    ("allreduce_busbw_GBps", "AllReduce busbw, whole cluster, 1 GiB", "GB/s", Better::Higher, |d| Some(d.allreduce_busbw_gbps), false),
    ("step_time_s", "step time", "s", Better::Lower, |d| d.step_time_s, false),
    ("mfu", "MFU", "", Better::Higher, |d| d.mfu, false),
    ("tokens_per_s", "tokens/s", "tok/s", Better::Higher, |d| d.tokens_per_s, false),
    ("power_kw", "power", "kW", Better::Lower, |d| Some(d.power_kw), true),
    ("cost_usd", "cost", "USD", Better::Lower, |d| d.cost_usd, false),
    ("tokens_per_s_per_mw", "tokens/s per MW", "tok/s/MW", Better::Higher, |d| d.tokens_per_s_per_mw, true),
    ("tokens_per_s_per_musd", "tokens/s per million USD", "tok/s/M$", Better::Higher, |d| d.tokens_per_s_per_musd, false),
];

/// The delta table of `designs`.
pub fn delta_table(designs: &[DesignNumbers]) -> Vec<DeltaRow> {
    let power_known = designs.iter().all(|d| d.power_complete);
    ROWS.iter()
        .map(|(key, label, unit, better, get, on_power)| {
            let values: Vec<Option<f64>> = designs.iter().map(get).collect();
            let known: Vec<(usize, f64)> = values.iter().enumerate().filter_map(|(i, v)| v.filter(|x| x.is_finite()).map(|x| (i, x))).collect();
            let max = known.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1));
            let min = known.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1));
            let (best, worst) = if *better == Better::Higher { (max, min) } else { (min, max) };
            let (best, ratio) = match (best, worst) {
                (Some(b), Some(w)) if known.len() > 1 && b.1 != w.1 && b.1 > 0.0 && w.1 > 0.0 && (power_known || !on_power) => {
                    (Some(b.0), Some(if b.1 > w.1 { b.1 / w.1 } else { w.1 / b.1 }))
                }
                _ => (None, None),
            };
            DeltaRow { key, label, unit, better: *better, values, best, ratio }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::NicKind;
    use crate::topology::Cluster;

    fn numbers(name: &str, busbw: f64, step: Option<f64>, kw: f64) -> DesignNumbers {
        let bom = scenario_bom(&Scenario::default()).unwrap();
        DesignNumbers {
            name: name.into(),
            gpus: 8,
            allreduce_busbw_gbps: busbw,
            step_time_s: step,
            mfu: None,
            tokens_per_s: None,
            power_kw: kw,
            power_complete: true,
            cost_usd: None,
            tokens_per_s_per_mw: None,
            tokens_per_s_per_musd: None,
            bom,
        }
    }

    #[test]
    fn delta_marks_the_better_design_and_the_ratio() {
        let t = delta_table(&[numbers("A", 300.0, Some(2.0), 100.0), numbers("B", 150.0, Some(1.0), 100.0)]);
        let row = |k: &str| t.iter().find(|r| r.key == k).unwrap();
        assert_eq!((row("allreduce_busbw_GBps").best, row("allreduce_busbw_GBps").ratio), (Some(0), Some(2.0)));
        assert_eq!((row("step_time_s").best, row("step_time_s").ratio), (Some(1), Some(2.0)));
        // Equal values or missing ones: no winner.
        assert_eq!(row("power_kw").best, None);
        // Power that is only a lower bound crowns no design.
        let mut lower = numbers("C", 300.0, Some(2.0), 90.0);
        lower.power_complete = false;
        let t = delta_table(&[numbers("A", 300.0, Some(2.0), 100.0), lower]);
        assert_eq!(t.iter().find(|r| r.key == "power_kw").unwrap().best, None);
        assert_eq!(row("cost_usd").best, None);
    }

    #[test]
    fn ib_beats_roce_on_busbw_and_costs_the_same_power_in_dgx_nodes() {
        let ib = Scenario::new(Cluster { nodes: 16, ..Cluster::default() });
        let roce = Scenario::new(Cluster { nodes: 16, nic: NicKind::Roce400, ..Cluster::default() });
        let (a, b) = (design_numbers("ib", &ib).unwrap(), design_numbers("roce", &roce).unwrap());
        assert_eq!(a.gpus, 128);
        // RoCE's framing costs 1% of goodput (catalog::fabric) and ECMP collisions more.
        assert!(a.allreduce_busbw_gbps > b.allreduce_busbw_gbps, "{} vs {}", a.allreduce_busbw_gbps, b.allreduce_busbw_gbps);
        // 16 DGX H100 at 10.2 kW plus optics; no published switch power for either fabric.
        assert!(a.power_kw >= 16.0 * 10.2 && b.power_kw >= 16.0 * 10.2);
        assert!(a.step_time_s.is_some() && a.tokens_per_s_per_mw.is_some());
        assert_eq!(a.cost_usd, None);
    }
}
