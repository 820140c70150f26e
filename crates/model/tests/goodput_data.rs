//! The goodput model against its field data (validation/failures.csv): every failure count the
//! rates use is read from the file and the rates recomputed (a number typed in differently from
//! the file fails here); each site's own interruption rate is predicted from the other sites'
//! rates (leave one site out) and must land inside the interval the model states; and the Llama 3
//! job's published figures are reproduced from its design.

mod common;

use fabricscope_model::goodput::rates::{Site, HOURS_PER_MONTH, LLAMA3, STEPFUN};
use fabricscope_model::goodput::{self, Component, Job, Policy, MTTF_COVERAGE, MTTF_FACTOR};
use fabricscope_model::presets::cluster_preset;
use fabricscope_model::topology::Cluster;
use fabricscope_model::training::{preset, Evaluator, Framework, Parallel, Recompute};
use std::collections::HashMap;

struct Row {
    source: String,
    quote: String,
    metric: String,
    value: f64,
    condition: String,
    component: String,
    notes: String,
}

fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../validation/failures.csv")).expect("validation/failures.csv");
    let table = common::read_csv(&text);
    let head = &table[0];
    let col = |name: &str| head.iter().position(|h| h == name).unwrap_or_else(|| panic!("column {name}"));
    let (src, quote, metric, value, cond, comp, notes) = (col("source"), col("quote"), col("metric"), col("value"), col("condition"), col("component"), col("notes"));
    table[1..]
        .iter()
        .map(|r| Row {
            source: r[src].clone(),
            quote: r[quote].clone(),
            metric: r[metric].clone(),
            value: r[value].parse().unwrap_or(f64::NAN),
            condition: r[cond].clone(),
            component: r[comp].clone(),
            notes: r[notes].clone(),
        })
        .collect()
}

/// Counts per component class of the failure model, for one site.
type Counts = HashMap<Component, f64>;

/// Llama 3's Table 5 rows (the rows quoting a table line) by component; the power supply row
/// is its own class; network switch/cable (switch and optics not separated) is returned apart.
fn llama3(rows: &[Row]) -> (Counts, f64, f64) {
    let mut c = Counts::new();
    let (mut network, mut total) = (0.0, f64::NAN);
    for r in rows.iter().filter(|r| r.source.contains("Llama 3") && r.metric == "interruptions_count") {
        if !r.quote.starts_with('|') {
            if r.condition.ends_with("unexpected only") {
                total = r.value;
            }
            continue;
        }
        let class = match r.component.as_str() {
            "gpu" => Component::Gpu,
            "hbm" => Component::Hbm,
            "host" if r.quote.contains("Power Supply") => Component::Power,
            "host" => Component::Host,
            "nic" => Component::Nic,
            "software" => Component::Software,
            "unknown" => Component::Unknown,
            "switch" => {
                network += r.value;
                continue;
            }
            other => panic!("Llama 3 row of component {other}"),
        };
        *c.entry(class).or_default() += r.value;
    }
    (c, network, total)
}

/// StepFun's hardware-level node faults by component, plus software and unknown faults from
/// the README's shares of all faults.
fn stepfun(rows: &[Row]) -> Counts {
    let mut c = Counts::new();
    let mut all = f64::NAN;
    let mut hbm = 0.0;
    for r in rows.iter().filter(|r| r.source.starts_with("StepFun")) {
        if r.metric == "failures_per_1000_node_days" && r.condition.ends_with("all fault levels") {
            all = (r.value * 400.0 * 348.0 / 1000.0).round();
        }
        if r.metric != "fault_count" {
            continue;
        }
        let hardware = r.condition.contains("'Hardware Failure'");
        match (r.component.as_str(), hardware) {
            ("hbm", _) => hbm += r.value,
            ("gpu", true) => *c.entry(Component::Gpu).or_default() += r.value,
            ("optics", true) => *c.entry(Component::Optics).or_default() += r.value,
            ("nic", true) => *c.entry(Component::Nic).or_default() += r.value,
            ("host", true) if r.quote.contains("Power Supply") => *c.entry(Component::Power).or_default() += r.value,
            ("host", true) => *c.entry(Component::Host).or_default() += r.value,
            _ => {}
        }
    }
    assert_eq!(all, 584.0, "StepFun's 584 faults");
    // HBM faults are a subset of the GPU class.
    *c.entry(Component::Gpu).or_default() -= hbm;
    c.insert(Component::Hbm, hbm);
    let shares = rows.iter().find(|r| r.source.starts_with("StepFun") && r.metric == "failure_share_pct" && r.value == 51.03).expect("StepFun share row");
    let software: f64 = shares.notes.split("Software 4.11% (").nth(1).and_then(|t| t.split(')').next()).and_then(|n| n.parse().ok()).expect("software count");
    c.insert(Component::Software, software);
    let unknown = rows.iter().find(|r| r.source.starts_with("StepFun") && r.metric == "failure_share_pct" && r.value == 24.66).expect("unknown share");
    c.insert(Component::Unknown, (unknown.value / 100.0 * all).round());
    c
}

/// Alibaba HPN's NIC-ToR link and ToR switch failure rates, per unit-hour.
fn alibaba(rows: &[Row]) -> (f64, f64) {
    let get = |m: &str| rows.iter().find(|r| r.source.contains("Alibaba") && r.metric == m).map(|r| r.value / 100.0 / HOURS_PER_MONTH).expect(m);
    (get("link_failure_pct_per_month"), get("switch_failure_pct_per_month"))
}

/// A site's rate per unit-hour of a component class.
fn site_rate(site: &Site, counts: &Counts, c: Component) -> Option<f64> {
    let n = *counts.get(&c)?;
    Some(match c {
        Component::Host | Component::Power => n / site.node_hours(),
        Component::Nic | Component::Optics => n / site.nic_hours(),
        _ => n / site.gpu_hours(),
    })
}

/// Geometric mean of the rates that exist.
fn geomean(rates: &[Option<f64>]) -> Option<f64> {
    let v: Vec<f64> = rates.iter().flatten().copied().collect();
    (!v.is_empty()).then(|| v.iter().map(|x| x.ln()).sum::<f64>().exp().powf(1.0 / v.len() as f64))
}

/// The model's rates from the given sites (and Alibaba's link and switch rates).
fn rates_from(sites: &[(&Site, &Counts)], alibaba: (f64, f64)) -> HashMap<Component, f64> {
    let mut out = HashMap::new();
    for c in [Component::Gpu, Component::Hbm, Component::Host, Component::Power, Component::Nic, Component::Software, Component::Unknown] {
        let r: Vec<Option<f64>> = sites.iter().map(|(s, k)| site_rate(s, k, c)).collect();
        if let Some(g) = geomean(&r) {
            out.insert(c, g);
        }
    }
    let mut optics: Vec<Option<f64>> = vec![Some(alibaba.0)];
    optics.extend(sites.iter().map(|(s, k)| site_rate(s, k, Component::Optics)));
    out.insert(Component::Optics, geomean(&optics).expect("Alibaba's rate"));
    out.insert(Component::LeafSwitch, alibaba.1);
    out
}

/// Interruptions per hour a site of `gpus` GPUs in `nodes` nodes (one NIC and link per GPU,
/// `leaves` ToRs) suffers at `rates`, counting the classes in `classes`.
fn predicted(rates: &HashMap<Component, f64>, gpus: f64, nodes: f64, leaves: f64, classes: &[Component]) -> f64 {
    classes
        .iter()
        .map(|c| {
            let n = match c {
                Component::Host | Component::Power => nodes,
                Component::LeafSwitch => leaves,
                _ => gpus,
            };
            rates.get(c).copied().unwrap_or(0.0) * n
        })
        .sum()
}

const JOB_STOPPING: [Component; 9] = [
    Component::Gpu,
    Component::Hbm,
    Component::Host,
    Component::Power,
    Component::Nic,
    Component::Optics,
    Component::LeafSwitch,
    Component::Software,
    Component::Unknown,
];

#[test]
fn the_rates_are_the_files_counts_over_their_exposure() {
    let rows = rows();
    let (l, network, total) = llama3(&rows);
    // Table 5 adds up to its 419 unexpected interruptions (by count: the printed 30.1% is a typo).
    assert_eq!(l.values().sum::<f64>() + network, 419.0);
    assert_eq!(total, 419.0);
    assert_eq!((l[&Component::Gpu], l[&Component::Hbm], l[&Component::Host], l[&Component::Power]), (196.0, 72.0, 43.0, 3.0));
    assert_eq!((l[&Component::Nic], l[&Component::Software], l[&Component::Unknown], network), (7.0, 56.0, 7.0, 35.0));
    let s = stepfun(&rows);
    assert_eq!((s[&Component::Gpu], s[&Component::Hbm], s[&Component::Host], s[&Component::Power]), (98.0, 60.0, 40.0, 26.0));
    assert_eq!((s[&Component::Nic], s[&Component::Optics], s[&Component::Software], s[&Component::Unknown]), (30.0, 40.0, 24.0, 144.0));
    let rates = rates_from(&[(&LLAMA3, &l), (&STEPFUN, &s)], alibaba(&rows));
    for (c, r) in &rates {
        let model = c.rate_per_hour();
        assert!((model / r - 1.0).abs() < 1e-9, "{c:?}: model {model}, file {r}");
    }
    // Links between switches and every switch tier take the measured link and ToR rates.
    assert_eq!(Component::FabricLink.rate_per_hour(), Component::Optics.rate_per_hour());
    assert_eq!(Component::SpineSwitch.rate_per_hour(), Component::LeafSwitch.rate_per_hour());
}

/// Each site with a whole-cluster figure, predicted from the others' rates alone.
#[test]
fn each_site_predicted_without_its_own_data_lands_inside_the_stated_interval() {
    let rows = rows();
    let (l, _, l_total) = llama3(&rows);
    let s = stepfun(&rows);
    let ali = alibaba(&rows);
    let tor_gpus = rows.iter().find(|r| r.metric == "gpus_per_tor_switch").map(|r| r.value).expect("GPUs per ToR");
    // Llama 3 from StepFun and Alibaba: its 419 interruptions in 54 days on 16,384 GPUs.
    let without_llama = rates_from(&[(&STEPFUN, &s)], ali);
    let llama_pred = predicted(&without_llama, LLAMA3.gpus, LLAMA3.nodes, LLAMA3.gpus / tor_gpus, &JOB_STOPPING);
    let llama_ratio = llama_pred / (l_total / LLAMA3.hours);
    // StepFun from Llama 3 and Alibaba: the faults of the classes the model counts.
    let without_stepfun = rates_from(&[(&LLAMA3, &l)], ali);
    let classes = [Component::Gpu, Component::Hbm, Component::Host, Component::Power, Component::Nic, Component::Optics, Component::Software, Component::Unknown];
    let s_total: f64 = classes.iter().map(|c| s[c]).sum();
    let stepfun_pred = predicted(&without_stepfun, STEPFUN.gpus, STEPFUN.nodes, 0.0, &classes);
    let stepfun_ratio = stepfun_pred / (s_total / STEPFUN.hours);
    // OPT-175B (2021, A100 in a cloud): about 2 machines down a day on ~128 machines, from
    // both sites' node-level rates.
    let both = rates_from(&[(&LLAMA3, &l), (&STEPFUN, &s)], ali);
    let machines = rows.iter().find(|r| r.metric == "machines_down_per_day").map(|r| r.value).expect("OPT machines down");
    let node_level = [Component::Gpu, Component::Hbm, Component::Host, Component::Power, Component::Nic, Component::Optics];
    let opt_ratio = predicted(&both, 1024.0, 128.0, 0.0, &node_level) / (machines / 24.0);
    let ratios = [("Llama 3", llama_ratio), ("StepFun", stepfun_ratio), ("OPT-175B", opt_ratio)];
    eprintln!("predicted/measured interruption rate: {ratios:?}");
    // The two modern sites within 1.25x of each other's prediction, well inside the 2x interval.
    assert!((1.0 / 1.25..=1.25).contains(&llama_ratio), "Llama 3 {llama_ratio}");
    assert!((1.0 / 1.25..=1.25).contains(&stepfun_ratio), "StepFun {stepfun_ratio}");
    // OPT-175B's 2021 cloud run failed far more often than either: outside, and the stated
    // coverage says so.
    assert!(opt_ratio < 1.0 / MTTF_FACTOR, "OPT-175B {opt_ratio}");
    let inside = ratios.iter().filter(|(_, r)| (1.0 / MTTF_FACTOR..=MTTF_FACTOR).contains(r)).count();
    assert_eq!(inside as f64 / ratios.len() as f64, MTTF_COVERAGE);
}

fn llama3_job(policy: &Policy) -> goodput::GoodputReport {
    // 16,384 H100 on a 400G RoCE fabric, Llama 3 405B at TP 8, PP 16 (the paper's layout).
    let c = Cluster { nodes: 2048, ..cluster_preset("h100-roce").expect("preset").cluster() };
    let topo = c.topology().expect("cluster");
    let w = preset("llama3-405b").expect("workload");
    let par = Parallel { tp: 8, pp: 16, dp: 128, recompute: Recompute::Selective, ..Parallel::default() };
    let r = Evaluator::new(&topo, &w, Framework::default()).expect("evaluator").evaluate(&par).expect("step");
    let job = Job { params: w.params(), step_time_s: r.step_time_s, tokens_per_s: r.tokens_per_s, replicas: par.dp, network_share: 0.05 };
    goodput::goodput(&topo, &job, policy)
}

#[test]
fn the_llama3_job_stops_as_published_and_trains_as_published() {
    let r = llama3_job(&Policy::default());
    // 419 unexpected interruptions in 54 days: one every 3.09 h.
    let measured = 54.0 * 24.0 / 419.0;
    assert!(r.intervals.mttf_hours.contains(measured), "MTTF {} h, interval {:?}", r.mttf_hours, r.intervals.mttf_hours);
    assert!(r.mttf_hours / measured < 2.0 && measured / r.mttf_hours < 2.0);
    assert!(r.intervals.mttf_hours.hi / r.intervals.mttf_hours.lo <= 4.0 + 1e-9);
    // GPUs and HBM cause most stops (Table 5 by count: 268 of 419).
    let (gpu, network) = r.shares();
    assert!(gpu > 0.5 && network < 0.2, "GPU share {gpu}, network {network}");
    // 'Higher than 90% effective training time' with 466 interruptions (planned included) in
    // 54 days, given that rate: within 0.12 of 0.90 and, as the paper says, above it.
    let given = llama3_job(&Policy { mttf_hours: Some(54.0 * 24.0 / 466.0), ..Policy::default() });
    assert!(given.ettr >= 0.90 && given.ettr <= 1.0, "ETTR {}", given.ettr);
}

#[test]
fn the_async_checkpoint_stall_is_the_measured_one_and_sync_is_the_write() {
    let a = llama3_job(&Policy::default());
    // Pasqualin et al.: async DCP stalls 6.3 s (7B); a 405B shard per GPU adds its copy.
    assert!(a.checkpoint_stall_s >= 6.3 && a.checkpoint_stall_s < 10.0, "{}", a.checkpoint_stall_s);
    let s = llama3_job(&Policy { checkpoint: goodput::CheckpointMode::Sync, ..Policy::default() });
    assert!((s.checkpoint_stall_s - s.checkpoint_save_s).abs() < 1e-9);
    // 405B x 14 bytes = 5.7 TB at Llama 3's 2 TB/s: about 3 s.
    assert!((s.checkpoint_gb / 1000.0 - 5.67).abs() < 0.1 && (s.checkpoint_save_s - 2.8).abs() < 0.2, "{} GB in {} s", s.checkpoint_gb, s.checkpoint_save_s);
}
