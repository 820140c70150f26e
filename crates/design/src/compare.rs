//! Comparing designs: up to four named Scenarios (A-D), their default names from the preset
//! or from what differs between them, the delta table of their key numbers, scaling curves
//! against node count, and the designs in a link. Each design is evaluated by the same
//! [`fabricscope_model::evaluate`] as a single scenario; nothing here is web-specific.

use crate::catalog::{GpuKind, NicKind};
use crate::collective::{AlgoChoice, Collective, Comm, ProtoChoice};
use crate::error::{ModelError, Result};
use crate::link::{base64url_decode, base64url_encode, decode, encode, MAX_LINK_BYTES};
use crate::presets::CLUSTER_PRESETS;
use crate::scenario::Scenario;
use crate::topology::Cluster;
use crate::topology::Topology;
use crate::training::search::Search;
use crate::training::step::EvaluatorCaches;
use crate::training::{Evaluator, Framework, SearchOptions, Workload};
use crate::bom::Bom;
use crate::design::DesignNumbers;
use crate::report::{Report, Scope};
use crate::training::StepReport;
use crate::units::Bytes;
use serde_json::Value;

/// Designs a comparison holds (A-D): more lines than four stop reading apart on one chart.
pub const MAX_DESIGNS: usize = 4;

/// Longest design name kept, in characters (a name is a chart legend entry, not a note).
pub const MAX_NAME_CHARS: usize = 40;

/// The letter of design `i` (A-D; later ones `?`).
pub fn letter(i: usize) -> char {
    ['A', 'B', 'C', 'D'].get(i).copied().unwrap_or('?')
}

/// One named design of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Design {
    pub name: String,
    pub scenario: Scenario,
}

/// Adds `scenario` to `list` under `name` (its [`default_name`] when `None` or blank).
/// Refused when the list already holds [`MAX_DESIGNS`].
pub fn pin(list: &mut Vec<Design>, scenario: Scenario, name: Option<&str>) -> Result<()> {
    if list.len() >= MAX_DESIGNS {
        return Err(ModelError::new("designs", format!("a comparison holds at most {MAX_DESIGNS} designs (A-D); remove one first")));
    }
    let name = match name.map(clean_name).filter(|n| !n.is_empty()) {
        Some(n) => n,
        None => {
            let others: Vec<&Scenario> = list.iter().map(|d| &d.scenario).collect();
            default_name(&scenario, &others)
        }
    };
    list.push(Design { name, scenario });
    Ok(())
}

/// A name as kept: trimmed, control and bidi characters dropped
/// ([`crate::error::is_unsafe_char`]), at most [`MAX_NAME_CHARS`].
pub fn clean_name(s: &str) -> String {
    s.trim().chars().filter(|c| !crate::error::is_unsafe_char(*c)).take(MAX_NAME_CHARS).collect()
}

/// Short GPU name for a design name: "H100", "H100 PCIe", "GB200".
fn gpu_short(g: GpuKind) -> &'static str {
    match g {
        GpuKind::V100 => "V100",
        GpuKind::A100 => "A100",
        GpuKind::H100 => "H100",
        GpuKind::H100Pcie => "H100 PCIe",
        GpuKind::H100Nvl => "H100 NVL",
        GpuKind::H200Nvl => "H200 NVL",
        GpuKind::H200 => "H200",
        GpuKind::H800 => "H800",
        GpuKind::B200 => "B200",
        GpuKind::Gb200 => "GB200",
        GpuKind::Gh200 => "GH200",
        GpuKind::Gh200Hbm3e => "GH200 144G",
        GpuKind::Mi300x => "MI300X",
        GpuKind::Mi325x => "MI325X",
        GpuKind::Mi355x => "MI355X",
        GpuKind::B300 => "B300",
        GpuKind::Gb300 => "GB300",
        GpuKind::H20 => "H20",
    }
}

/// Short NIC name for a design name: "NDR IB", "400G RoCE".
fn nic_short(n: NicKind) -> &'static str {
    match n {
        NicKind::IbHdr => "HDR IB",
        NicKind::IbNdr => "NDR IB",
        NicKind::IbXdr => "XDR IB",
        NicKind::Roce400 => "400G RoCE",
        NicKind::Roce800 => "800G RoCE",
        NicKind::Eth100Tcp => "100GbE TCP",
        NicKind::Efa100 => "100G EFA",
        NicKind::Efa200 => "200G EFA",
        NicKind::Efa400 => "400G EFA",
        NicKind::Roce100 => "100G RoCE",
        NicKind::Roce200 => "200G RoCE",
        NicKind::Tcpxo200 => "200G TCPXO",
    }
}

/// "H100 · 8x NDR IB": the GPU and the scale-out network of one node.
fn base_name(c: &Cluster) -> String {
    if c.nics_per_node == 0 {
        format!("{} · no network", gpu_short(c.gpu))
    } else {
        format!("{} · {}x {}", gpu_short(c.gpu), c.nics_per_node, nic_short(c.nic))
    }
}

/// What tells two designs apart beyond [`base_name`], in the order a name mentions them.
fn traits(s: &Scenario) -> [String; 6] {
    let c = &s.cluster;
    let gpus = c.nodes.saturating_mul(c.gpus_per_node);
    let oversub = c.oversubscription.unwrap_or(1.0);
    [
        format!("{gpus} GPUs"),
        c.scale_up.name().to_string(),
        if c.sharp { "SHARP".into() } else { "no SHARP".into() },
        if c.rail_optimized { "rails".into() } else { "no rails".into() },
        format!("{oversub}:1"),
        s.training.workload.clone(),
    ]
}

/// A default name for `s` beside the designs `others`: the preset's name when the cluster is
/// a preset none of `others` already is; else "GPU · NICs" ("H100 · 8x NDR IB"), followed by
/// what differs from the others that share that much ("· 1024 GPUs", "· SHARP", ...).
pub fn default_name(s: &Scenario, others: &[&Scenario]) -> String {
    if let Some(p) = CLUSTER_PRESETS.iter().find(|p| p.cluster() == s.cluster) {
        if !others.iter().any(|o| o.cluster == s.cluster) {
            return p.name.to_string();
        }
    }
    let base = base_name(&s.cluster);
    let mine = traits(s);
    let same: Vec<[String; 6]> = others.iter().filter(|o| base_name(&o.cluster) == base).map(|o| traits(o)).collect();
    let mut name = base;
    for (i, t) in mine.iter().enumerate() {
        if same.iter().any(|o| o[i] != *t) {
            name.push_str(" · ");
            name.push_str(t);
        }
    }
    clean_name(&name)
}

/// A design's numbers for the delta table ([`crate::design::delta_table`]) from what a page
/// already holds, without a search of its own: busbw of `op` at `bytes` over every GPU (one
/// domain when the cluster is one) from its Report, the job's chosen layout, and its bill of
/// materials. The busbw is stored under `allreduce_busbw_gbps` whatever `op` is.
pub fn numbers(name: &str, r: &Report, op: Collective, bytes: Bytes, step: Option<&StepReport>, bom: Bom) -> DesignNumbers {
    let busbw = r
        .curves
        .iter()
        .filter(|c| c.op == op)
        .max_by_key(|c| c.scope == Scope::Cluster)
        .and_then(|c| c.points.iter().find(|p| p.bytes == bytes))
        .map_or(crate::design::Busbw::default(), crate::design::Busbw::of);
    DesignNumbers::new(name, r.summary.total_gpus, busbw, step, bom)
}

/// [`numbers`] of a design whose training view the page holds: its chosen layout's numbers and
/// the goodput the view carries (the same [`crate::goodput::of_step`] the CLI's compare runs).
pub fn numbers_with(name: &str, r: &Report, op: Collective, bytes: Bytes, view: Option<&crate::training::explore::TrainingView>, bom: Bom) -> DesignNumbers {
    let n = numbers(name, r, op, bytes, view.and_then(|v| v.chosen.as_ref()), bom);
    match view.and_then(|v| v.goodput.as_ref()) {
        Some(g) => n.with_goodput(g),
        None => n,
    }
}

/// Node counts of the scaling curves: 2 to 4096 in powers of two.
pub const SCALE_NODES: [u32; 12] = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

/// One point of a design's scaling curves.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ScalePoint {
    pub nodes: u32,
    pub gpus: u32,
    /// busbw over every GPU, GB/s per direction; `None` where the cluster cannot be built.
    pub busbw_gbps: Option<f64>,
    /// Step time of the design's job on the best layout searched at this size (the search of
    /// `fabricscope search --nodes N`: every TP, PP, CP, EP, micro-batch, recompute and ZeRO
    /// stage, nothing pinned); `None` where no layout fits.
    pub step_s: Option<f64>,
}

/// The design's cluster at `nodes` nodes. Switch counts the user fixed are dropped (the fat
/// tree is sized for each count, at the same radix and oversubscription): a fixed count
/// fits one size only.
pub fn at_nodes(c: &Cluster, nodes: u32) -> Cluster {
    Cluster { nodes, leaf_switches: None, spine_switches: None, ..c.clone() }
}

/// GPU count every design is scaled to, for comparing like with like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SameGpus {
    /// The largest design's GPU count.
    Largest,
    /// A given count.
    Count(u32),
}

impl SameGpus {
    /// Reads "largest" or a GPU count ("1024", "1,024"); the error names the field and what
    /// it takes.
    pub fn parse(text: &str) -> Result<SameGpus> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("largest") {
            return Ok(SameGpus::Largest);
        }
        match t.replace(',', "").parse::<u32>() {
            Ok(n) if n >= 1 => Ok(SameGpus::Count(n)),
            _ => Err(ModelError::new("same_gpus", format!("'largest' or a GPU count of 1 or more; got '{}'", crate::error::printable(t, 40)))),
        }
    }

    /// The count for designs of `gpus` GPUs each.
    pub fn target(self, gpus: &[u32]) -> u32 {
        match self {
            SameGpus::Largest => gpus.iter().copied().max().unwrap_or(0),
            SameGpus::Count(n) => n,
        }
    }
}

/// `s` scaled to `gpus` GPUs, as one would build it: whole nodes (for NVL72, whole 4-GPU
/// trays in racks filled as evenly as trays allow), the fat tree re-sized at the same radix,
/// rails and oversubscription ([`at_nodes`]: switch counts set by hand fit one size only and
/// are dropped), the same job (its global batch, so data parallelism takes the GPUs). A count
/// that is not a whole number of nodes is rounded up, and the note says so. An error when the
/// model cannot build the design at that size (the field and the allowed range).
pub fn at_gpus(s: &Scenario, gpus: u32) -> Result<(Scenario, Option<String>)> {
    let per = s.cluster.gpus_per_node.max(1);
    let nodes = gpus.div_ceil(per).max(1);
    let cluster = at_nodes(&s.cluster, nodes);
    cluster.topology()?;
    let built = nodes.saturating_mul(per);
    let note = (built != gpus).then(|| {
        let t = crate::figures::thousands;
        format!("{} GPUs is not a whole number of {per}-GPU nodes: {} nodes, {} GPUs", t(gpus as f64), t(nodes as f64), t(built as f64))
    });
    Ok((Scenario { cluster, ..s.clone() }, note))
}

/// Every design of `list` (name, scenario) at the same GPU count `same`, with the warnings
/// to show beside the comparison: the count and, per design, what rounding changed.
pub fn scale_designs(list: &[(String, Scenario)], same: SameGpus) -> Result<(Vec<(String, Scenario)>, Vec<String>)> {
    let counts: Vec<u32> = list.iter().map(|(_, s)| s.cluster.nodes.saturating_mul(s.cluster.gpus_per_node)).collect();
    let target = same.target(&counts);
    let mut out = Vec::with_capacity(list.len());
    let mut notes = vec![format!(
        "each design scaled to {} GPUs (nodes added or removed, fat tree re-sized, the same job)",
        crate::figures::thousands(target as f64)
    )];
    for (name, s) in list {
        let (scaled, note) = at_gpus(s, target).map_err(|e| ModelError::new("same_gpus", format!("{name} at {} GPUs: {}", crate::figures::thousands(target as f64), e.message)))?;
        if let Some(n) = note {
            notes.push(format!("{name}: {n}"));
        }
        out.push((name.clone(), scaled));
    }
    Ok((out, notes))
}

/// One point of the scaling curves of `c` under way, for a caller that works in slices
/// (compare.html's main thread): busbw of `op` at `bytes` over every GPU at once, then the
/// job's layout search on the cluster at that size, advanced by [`ScaleRun::run`].
///
/// Every size is searched in full (no layout is held from another size: a layout found for
/// 576 GPUs, PP 9, fits no power of two). Measured on the shared 2-core box (release CLI,
/// `search --top 1`, Llama 3 70B, 2026-12-06): 0.2-11 ms a size natively, about 40 ms for the
/// twelve sizes of one design (GB200 NVL72 or DGX B200); on compare.html (release build,
/// headless Chromium) four designs (512 H100 IB, 512 B200, 576 GB200, 512 H100 RoCE) have
/// their searches and all 48 points 0.8-1.0 s after load, in slices, with no long task. So
/// nothing is bounded.
pub struct ScaleRun {
    point: ScalePoint,
    job: Option<Job>,
}

/// The layout search of one scaling point, with what its evaluator cached between slices.
struct Job {
    topo: Topology,
    w: Workload,
    search: Search,
    caches: EvaluatorCaches,
}

/// The search's options at each size: those of `fabricscope search` (its defaults, nothing
/// pinned), keeping only the best layout (the step the curve draws).
fn scale_options() -> SearchOptions {
    SearchOptions { top: 1, ..SearchOptions::default() }
}

impl ScaleRun {
    /// Starts the point of `c` at `nodes` nodes; `workload` is the job whose step is searched
    /// (`None`: busbw only).
    pub fn new(c: &Cluster, nodes: u32, op: Collective, bytes: Bytes, workload: Option<&str>) -> ScaleRun {
        let c = at_nodes(c, nodes);
        let mut point = ScalePoint { nodes, gpus: nodes.saturating_mul(c.gpus_per_node), busbw_gbps: None, step_s: None };
        let Ok(topo) = c.topology() else { return ScaleRun { point, job: None } };
        point.gpus = topo.total_gpus;
        if topo.total_gpus >= 2 {
            point.busbw_gbps = Comm::new(&topo, topo.whole())
                .and_then(|comm| comm.predict(op, bytes, AlgoChoice::Auto, ProtoChoice::Auto))
                .ok()
                .map(|r| r.busbw.0);
        }
        let job = workload.and_then(|id| {
            let w = crate::training::explore::workload(id).ok()?;
            let search = Search::new(&w, topo.total_gpus, &scale_options()).ok()?;
            Some(Job { topo, w, search, caches: EvaluatorCaches::default() })
        });
        ScaleRun { point, job }
    }

    /// Searches until done or `more()` says stop; returns whether the point is done.
    pub fn run(&mut self, more: &mut dyn FnMut() -> bool) -> bool {
        let Some(j) = self.job.as_mut() else { return true };
        let Ok(ev) = Evaluator::new(&j.topo, &j.w, Framework::default()) else {
            self.job = None;
            return true;
        };
        let mut ev = ev.with_caches(std::mem::take(&mut j.caches));
        let done = j.search.run(&mut ev, more);
        j.caches = ev.into_caches();
        done
    }

    /// The point: its step is the best fitting layout's (`None` when none fits or the search
    /// has not run to its end).
    pub fn finish(mut self) -> ScalePoint {
        if let Some(Job { topo, w, search, caches }) = self.job.take().filter(|j| j.search.is_done()) {
            if let Ok(ev) = Evaluator::new(&topo, &w, Framework::default()) {
                let mut ev = ev.with_caches(caches);
                self.point.step_s = search.finish(&mut ev).ok().and_then(|f| f.result.best.first().map(|r| r.step_time_s));
            }
        }
        self.point
    }
}

/// One point of the scaling curves of `c`, all at once: what [`ScaleRun`] gives when run to
/// its end (the CLI's `compare --scaling` and `render`, and the tests).
pub fn scale_point(c: &Cluster, nodes: u32, op: Collective, bytes: Bytes, workload: Option<&str>) -> ScalePoint {
    let mut r = ScaleRun::new(c, nodes, op, bytes, workload);
    r.run(&mut || true);
    r.finish()
}

/// The scaling curves of `c` at every [`SCALE_NODES`] count.
pub fn scale_points(c: &Cluster, op: Collective, bytes: Bytes, workload: Option<&str>) -> Vec<ScalePoint> {
    SCALE_NODES.iter().map(|n| scale_point(c, *n, op, bytes, workload)).collect()
}

/// The node count past which a curve stops scaling: the first point whose step to the next
/// doubling gains less than `gain` (0.1 = 10%) of what perfect scaling would give; for busbw
/// (`lower_better` false) the first where busbw falls by more than `gain`.
pub fn knee(points: &[(u32, f64)], lower_better: bool, gain: f64) -> Option<u32> {
    points.windows(2).find_map(|w| {
        let ((n0, a), (_, b)) = (w[0], w[1]);
        let stalls = if lower_better { b > a * (1.0 - gain * 0.5) } else { b < a * (1.0 - gain) };
        stalls.then_some(n0)
    })
}

/// Prefix of a designs link.
const DESIGNS_PREFIX: &str = "v1.";

/// The designs as a link parameter (`d=` beside the scenario's `s=`): `v1.` and the base64url
/// of a JSON array of `[name, scenario link]` pairs, each scenario in the format of
/// [`encode`] (so it only ever carries what differs from the frozen baseline).
pub fn encode_designs(list: &[Design]) -> String {
    let pairs: Vec<Value> = list.iter().map(|d| Value::Array(vec![Value::String(d.name.clone()), Value::String(encode(&d.scenario))])).collect();
    format!("{DESIGNS_PREFIX}{}", base64url_encode(Value::Array(pairs).to_string().as_bytes()))
}

/// Reads a designs parameter. Never panics: a damaged parameter gives no designs and a note;
/// each design's scenario is read by [`decode`], whose notes are kept with the design's
/// letter; designs past [`MAX_DESIGNS`] are dropped with a note.
pub fn decode_designs(param: &str) -> (Vec<Design>, Vec<String>) {
    let mut notes = Vec::new();
    let damaged = |why: &str| (Vec::new(), vec![format!("designs: {why}; no designs pinned")]);
    if param.len() > MAX_LINK_BYTES * MAX_DESIGNS {
        return damaged("the parameter is too long");
    }
    let Some(payload) = param.trim().strip_prefix(DESIGNS_PREFIX) else {
        return damaged("not a designs link (expected v1.<data>)");
    };
    let Some(Value::Array(items)) = base64url_decode(payload).and_then(|b| serde_json::from_slice::<Value>(&b).ok()) else {
        return damaged("the data is damaged");
    };
    if items.len() > MAX_DESIGNS {
        notes.push(format!("designs: {} in the link, keeping the first {MAX_DESIGNS}", items.len()));
    }
    let mut list = Vec::new();
    for (i, item) in items.iter().take(MAX_DESIGNS).enumerate() {
        let (name, link) = match item.as_array().map(|a| (a.first().and_then(Value::as_str), a.get(1).and_then(Value::as_str))) {
            Some((Some(n), Some(l))) => (n, l),
            _ => {
                notes.push(format!("design {}: not a [name, link] pair; left out", letter(list.len())));
                continue;
            }
        };
        let d = decode(link);
        notes.extend(d.warnings.iter().map(|w| format!("design {}: {w}", letter(i))));
        // Named by the link; blank names get a default like a new pin.
        let _ = pin(&mut list, d.scenario, Some(name));
    }
    (list, notes)
}

/// What compare.html shows when it opens: the user's saved list and, beside it, a link's
/// designs. A link never replaces what is saved: the saved list changes only by the user's own
/// action ([`add_linked`], a pin, a rename, a removal, an undo).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Opened {
    /// The list the page shows and edits (the saved one; the link's when nothing is saved).
    pub list: Vec<Design>,
    /// The link's designs shown beside a saved list they differ from (empty otherwise).
    pub linked: Vec<Design>,
    /// What was not read or not used, naming the damaged part and what was kept.
    pub notes: Vec<String>,
}

/// The list to show from the saved designs (`saved`, this browser's copy) and a link's `d=`
/// (`linked`), by the rule of [`Opened`]: a damaged or empty `d=` is named in a note and the
/// saved list is shown as it is; a valid one that differs is offered beside it.
pub fn open_designs(saved: Option<&str>, linked: Option<&str>) -> Opened {
    let (list, mut notes) = match saved {
        Some(p) => {
            let (l, n) = decode_designs(p);
            (l, n.into_iter().map(|n| format!("Your saved designs: {n}")).collect())
        }
        None => (Vec::new(), Vec::new()),
    };
    let Some(param) = linked else { return Opened { list, linked: Vec::new(), notes } };
    let (from_link, link_notes) = decode_designs(param);
    notes.extend(link_notes.into_iter().map(|n| format!("The link's {n}")));
    if list.is_empty() {
        return Opened { list: from_link, linked: Vec::new(), notes };
    }
    let kept = format!("your {} saved design(s) are shown as they were", list.len());
    if from_link.is_empty() {
        notes.push(format!("The link's list of designs (d=) is empty or unreadable; {kept}."));
        return Opened { list, linked: Vec::new(), notes };
    }
    if from_link == list {
        return Opened { list, linked: Vec::new(), notes };
    }
    let names: Vec<String> = from_link.iter().map(|d| d.name.clone()).collect();
    notes.push(format!("The link carries {} design(s) ({}); {kept}: add the link's to yours, or leave them.", from_link.len(), names.join(", ")));
    Opened { list, linked: from_link, notes }
}

/// `list` with the link's designs not already in it (same scenario) added after it, up to
/// [`MAX_DESIGNS`], and a note naming those that did not fit.
pub fn add_linked(list: &[Design], linked: &[Design]) -> (Vec<Design>, Vec<String>) {
    let mut out = list.to_vec();
    let mut left = Vec::new();
    for d in linked.iter().filter(|d| !list.iter().any(|s| s.scenario == d.scenario)) {
        if out.len() < MAX_DESIGNS {
            out.push(d.clone());
        } else {
            left.push(d.name.clone());
        }
    }
    let notes = if left.is_empty() { Vec::new() } else { vec![format!("Not added, a comparison holds at most {MAX_DESIGNS} designs: {}; remove one first.", left.join(", "))] };
    (out, notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::cluster_preset;

    #[test]
    fn a_link_shows_its_designs_beside_the_saved_ones_never_over_them() {
        let two = vec![
            Design { name: "Ours".into(), scenario: sc(Cluster { nodes: 24, ..Cluster::default() }) },
            Design { name: "Theirs".into(), scenario: sc(Cluster { nodes: 24, nic: NicKind::Roce400, ..Cluster::default() }) },
        ];
        let saved = encode_designs(&two);
        let other = encode_designs(&[Design { name: "Colleague".into(), scenario: sc(Cluster { nodes: 128, ..Cluster::default() }) }]);
        let damaged = format!("{}x!", &saved[..saved.len() / 2]);
        // Damaged, not a designs link, an empty list: the saved list as it was, the link named.
        for bad in [damaged.as_str(), "hello", &encode_designs(&[]), ""] {
            let o = open_designs(Some(&saved), Some(bad));
            assert_eq!(o.list, two, "{bad}");
            assert!(o.linked.is_empty());
            assert!(o.notes.iter().any(|n| n.contains("link") && n.contains("2 saved design(s) are shown as they were")), "{bad}: {:?}", o.notes);
        }
        // A valid, different list: beside the saved one, which stays.
        let o = open_designs(Some(&saved), Some(&other));
        assert_eq!(o.list, two);
        assert_eq!(o.linked.len(), 1);
        assert!(o.notes[0].contains("Colleague"), "{:?}", o.notes);
        // Added by the user: after the saved ones; twice adds nothing more.
        let (added, notes) = add_linked(&o.list, &o.linked);
        assert_eq!(added.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(), ["Ours", "Theirs", "Colleague"]);
        assert!(notes.is_empty());
        assert_eq!(add_linked(&added, &o.linked).0, added);
        // The same list as saved: nothing to offer. Nothing saved: the link's list is shown.
        assert_eq!(open_designs(Some(&saved), Some(&saved)), Opened { list: two.clone(), ..Opened::default() });
        assert_eq!(open_designs(None, Some(&other)).list.len(), 1);
        assert_eq!(open_designs(Some(&saved), None).list, two);
        // Full: what does not fit is named.
        let four: Vec<Design> = (0..4).map(|i| Design { name: format!("D{i}"), scenario: sc(Cluster { nodes: 2 + i, ..Cluster::default() }) }).collect();
        let (same, notes) = add_linked(&four, &o.linked);
        assert_eq!(same, four);
        assert!(notes[0].contains("Colleague") && notes[0].contains("at most 4"), "{notes:?}");
    }

    fn sc(c: Cluster) -> Scenario {
        Scenario::new(c)
    }

    #[test]
    fn default_names_come_from_the_preset_or_the_differences() {
        let ndr = sc(Cluster { nodes: 24, ..Cluster::default() });
        let roce = sc(Cluster { nodes: 24, nic: NicKind::Roce400, ..Cluster::default() });
        assert_eq!(default_name(&ndr, &[]), "H100 · 8x NDR IB");
        assert_eq!(default_name(&roce, &[&ndr]), "H100 · 8x 400G RoCE");
        // The same network at another size is told apart by its GPU count, SHARP by SHARP.
        let big = sc(Cluster { nodes: 128, ..Cluster::default() });
        assert_eq!(default_name(&ndr, &[&big]), "H100 · 8x NDR IB · 192 GPUs");
        let sharp = sc(Cluster { nodes: 24, sharp: true, ..Cluster::default() });
        assert_eq!(default_name(&sharp, &[&ndr, &roce]), "H100 · 8x NDR IB · SHARP");
        // A preset keeps its name, unless another design already is that preset.
        let pod = sc(cluster_preset("dgx-h100-superpod").unwrap().cluster());
        assert_eq!(default_name(&pod, &[&ndr]), "DGX H100 SuperPOD");
        let mut pod_gpt = pod.clone();
        pod_gpt.training.workload = "gpt3-175b".into();
        assert_eq!(default_name(&pod_gpt, &[&pod]), "H100 · 8x NDR IB · gpt3-175b");
        assert_eq!(default_name(&sc(Cluster { nics_per_node: 0, nodes: 1, ..Cluster::default() }), &[]), "H100 · no network");
    }

    #[test]
    fn at_most_four_designs_with_clean_names() {
        let mut list = Vec::new();
        for i in 0..MAX_DESIGNS {
            pin(&mut list, sc(Cluster { nodes: 2 << i, ..Cluster::default() }), None).unwrap();
        }
        let e = pin(&mut list, Scenario::default(), None).unwrap_err();
        assert_eq!(e.field, "designs");
        assert_eq!(list.len(), 4);
        assert_eq!(clean_name("  a\u{7}b  "), "ab");
        assert_eq!(clean_name(&"x".repeat(100)).chars().count(), MAX_NAME_CHARS);
        let mut one = Vec::new();
        pin(&mut one, Scenario::default(), Some("   ")).unwrap();
        assert_eq!(one[0].name, "H100 · 8x NDR IB", "a blank name takes the default");
    }

    #[test]
    fn a_designs_numbers_come_from_its_report_layout_and_bill_of_materials() {
        // busbw at the size, the job's step, the BOM's power (4 DGX H100 at 10.2 kW each at
        // least, the DGX H100 user guide); no price book, no cost.
        let sc = Scenario::default();
        let r = fabricscope_model::evaluate(&sc).unwrap();
        let v = crate::training::explore::explore(&sc.cluster, &sc.training).unwrap();
        let bom = crate::bom::scenario_bom(&sc).unwrap();
        let k = numbers("A", &r, Collective::AllReduce, Bytes(1 << 30), v.chosen.as_ref(), bom);
        let at = r.curves.iter().rev().find(|c| c.op == Collective::AllReduce).unwrap().points.iter().find(|p| p.bytes.0 == 1 << 30).unwrap();
        assert_eq!(k.allreduce_busbw_gbps, at.busbw.0);
        assert_eq!(k.step_time_s, v.chosen.as_ref().map(|c| c.step_time_s));
        assert!(k.power_kw >= 4.0 * 10.2, "{}", k.power_kw);
        assert_eq!(k.cost_usd, None);
        // The same numbers as the CLI's `compare` computes from the file (its own search).
        let d = crate::design::design_numbers("A", &sc).unwrap();
        assert_eq!((d.allreduce_busbw_gbps, d.step_time_s, d.power_kw), (k.allreduce_busbw_gbps, k.step_time_s, k.power_kw));
    }

    #[test]
    fn designs_round_trip_through_the_link_and_damage_is_named() {
        let mut list = Vec::new();
        pin(&mut list, sc(Cluster { nodes: 64, ..Cluster::default() }), Some("Ours")).unwrap();
        pin(&mut list, sc(Cluster { nodes: 64, nic: NicKind::Roce400, ..Cluster::default() }), None).unwrap();
        let link = encode_designs(&list);
        assert!(link.starts_with("v1."));
        let (back, notes) = decode_designs(&link);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(back, list);
        let (none, notes) = decode_designs("v1.!!");
        assert!(none.is_empty() && notes[0].starts_with("designs: the data is damaged"), "{notes:?}");
        let (none, notes) = decode_designs("x");
        assert!(none.is_empty() && notes.len() == 1);
        // A bad field in one design falls back with a note naming the design.
        let bad = format!("v1.{}", base64url_encode(br#"[["B",  "v1.eyJuIjoiZm91ciJ9"]]"#));
        let (one, notes) = decode_designs(&bad);
        assert_eq!(one.len(), 1);
        assert!(notes[0].starts_with("design A: "), "{notes:?}");
    }

    #[test]
    fn scaling_points_and_where_a_curve_stops() {
        let c = Cluster::default();
        let small = scale_point(&c, 2, Collective::AllReduce, Bytes(1 << 30), None);
        let big = scale_point(&c, 512, Collective::AllReduce, Bytes(1 << 30), None);
        assert_eq!((small.gpus, big.gpus), (16, 4096));
        // At 4096 GPUs busbw is below the 16-GPU figure: more ranks, more hops, same NICs.
        let (b_small, b_big) = (small.busbw_gbps.unwrap(), big.busbw_gbps.unwrap());
        assert!(b_big > 10.0 && b_big <= b_small, "{b_small} then {b_big}");
        // The job's step at the design's own size is the design's step (the same search);
        // twice the nodes give DP twice the GPUs, so the step is shorter, and never by more
        // than half (the compute per GPU halves at best).
        let v = crate::training::explore::explore(&c, &fabricscope_model::TrainingChoice::default()).unwrap();
        let own = v.chosen.as_ref().unwrap().step_time_s;
        let job = Some(v.workload.as_str());
        let at4 = scale_point(&c, 4, Collective::AllReduce, Bytes(1 << 30), job).step_s.unwrap();
        assert!((at4 - own).abs() <= own * 1e-9, "{at4} vs {own}");
        let at8 = scale_point(&c, 8, Collective::AllReduce, Bytes(1 << 30), job).step_s.unwrap();
        assert!(at8 < own && at8 >= own / 2.0, "{at8} vs {own}");
        // Fixed switch counts are dropped at other sizes (one leaf cannot hold 4096 nodes).
        let fixed = Cluster { leaf_switches: Some(1), ..c };
        assert!(scale_point(&fixed, 4096, Collective::AllReduce, Bytes(1 << 30), None).busbw_gbps.is_some());
        assert_eq!(knee(&[(2, 1.0), (4, 0.5), (8, 0.3), (16, 0.29)], true, 0.1), Some(8));
        assert_eq!(knee(&[(2, 100.0), (4, 95.0), (8, 60.0)], false, 0.1), Some(4));
        assert_eq!(knee(&[(2, 1.0), (4, 0.5)], true, 0.1), None);
    }

    /// Issue 37: compare's step-vs-nodes curve is the layout search at each size, the same
    /// answer as `fabricscope search --nodes N` (its default options, nothing pinned), for
    /// 576 GB200 (NVL72 racks, whose own best layout, PP 9, fits no power of two: with a held
    /// layout GB200 drew no curve) and 512 B200 (whose held layout gave 2.41 s at 256 nodes
    /// where `search` finds 1.21 s).
    #[test]
    fn each_scaling_point_is_the_search_at_that_size() {
        let job = "llama3-70b";
        for (id, nodes) in [("gb200-nvl72", 144), ("dgx-b200-superpod", 64)] {
            let c = Cluster { nodes, ..cluster_preset(id).unwrap().cluster() };
            assert_eq!(c.total_gpus(), if id == "gb200-nvl72" { 576 } else { 512 });
            let pts = scale_points(&c, Collective::AllReduce, Bytes(1 << 30), Some(job));
            assert_eq!(pts.iter().map(|p| p.nodes).collect::<Vec<_>>(), SCALE_NODES);
            for p in &pts {
                let topo = at_nodes(&c, p.nodes).topology().unwrap();
                let w = crate::training::explore::workload(job).unwrap();
                let mut ev = Evaluator::new(&topo, &w, Framework::default()).unwrap();
                let best = crate::training::search(&mut ev, &SearchOptions::default()).unwrap().best;
                let searched = best.first().map(|r| r.step_time_s);
                assert_eq!(p.step_s, searched, "{id} at {} nodes", p.nodes);
                // Every size from 2 nodes (8 or 16 GPUs) up has a layout that fits 70B.
                assert!(p.step_s.is_some(), "{id} at {} nodes: no curve point", p.nodes);
            }
            // More GPUs, shorter steps, up to 256 nodes at least (a doubling may more than halve
            // the step at the smallest sizes, where memory forces recompute or ZeRO).
            for w in pts.windows(2).filter(|w| w[1].nodes <= 256) {
                let (a, b) = (w[0].step_s.unwrap(), w[1].step_s.unwrap());
                assert!(b < a, "{id}: {a} s at {} nodes, {b} s at {}", w[0].nodes, w[1].nodes);
            }
        }
        // DGX B200 at 256 nodes: the 1.21 s `search` finds (issue 37), not the held layout's 2.41 s.
        let b200 = Cluster { nodes: 64, ..cluster_preset("dgx-b200-superpod").unwrap().cluster() };
        let at256 = scale_point(&b200, 256, Collective::AllReduce, Bytes(1 << 30), Some(job)).step_s.unwrap();
        assert!((at256 - 1.21).abs() < 0.01, "{at256}");
    }

    #[test]
    fn designs_scale_to_the_same_gpu_count_in_whole_nodes() {
        let pod = sc(cluster_preset("dgx-h100-superpod").unwrap().cluster());
        let nvl = sc(cluster_preset("gb200-nvl72").unwrap().cluster());
        assert_eq!((pod.cluster.nodes * pod.cluster.gpus_per_node, nvl.cluster.nodes * nvl.cluster.gpus_per_node), (1024, 288));
        let list = vec![("pod".to_string(), pod.clone()), ("nvl".to_string(), nvl.clone())];
        let (scaled, notes) = scale_designs(&list, SameGpus::Largest).unwrap();
        // 1,024 GB200 are 256 trays: racks re-sized, the tree at the same radix.
        assert_eq!(scaled[1].1.cluster.nodes, 256);
        assert_eq!(scaled[0].1, pod, "the largest design is kept as it is");
        assert!(notes[0].contains("1,024 GPUs"), "{notes:?}");
        let topo = scaled[1].1.cluster.topology().unwrap();
        assert_eq!(topo.total_gpus, 1024);
        // 1,000 GPUs are not whole 8-GPU nodes: 125 nodes.
        let (s, note) = at_gpus(&pod, 1000).unwrap();
        assert_eq!((s.cluster.nodes, note.is_none()), (125, true));
        let (s, note) = at_gpus(&pod, 1001).unwrap();
        assert_eq!(s.cluster.nodes, 126);
        assert!(note.unwrap().contains("126 nodes, 1,008 GPUs"));
        // Switch counts set by hand are dropped (one leaf cannot hold 256 nodes).
        let fixed = sc(Cluster { leaf_switches: Some(2), spine_switches: Some(1), ..pod.cluster.clone() });
        assert!(at_gpus(&fixed, 2048).is_ok());
        assert_eq!(SameGpus::parse(" 1,024 ").unwrap(), SameGpus::Count(1024));
        assert_eq!(SameGpus::parse("LARGEST").unwrap(), SameGpus::Largest);
        assert_eq!(SameGpus::parse("0").unwrap_err().field, "same_gpus");
    }

    /// Issue 19: 1,024 H100 (DGX SuperPOD) against 288 GB200 (four NVL72 racks), both fully
    /// priced with the example book. The size is flagged, per-GPU figures are given, and no
    /// total is crowned because one design is 3.6x smaller.
    #[test]
    fn a_superpod_against_four_nvl72_racks_is_flagged_and_ranked_per_gpu() {
        use crate::design::{delta_table, design_numbers, warnings, UNRANKED_SIZE};
        let book = crate::bom::PriceBook::from_file_text(include_str!("../../../examples/price-book.example.json")).unwrap();
        let priced = |id: &str| Scenario { prices: book.to_value(), ..sc(cluster_preset(id).unwrap().cluster()) };
        let (a, b) = (design_numbers("pod", &priced("dgx-h100-superpod")).unwrap(), design_numbers("nvl", &priced("gb200-nvl72")).unwrap());
        assert_eq!((a.gpus, b.gpus), (1024, 288));
        // 288 GPUs = 9 x 32: the batch of 512 cannot take the 9, so the layout does (issue 37).
        assert_eq!(warnings(&[a.clone(), b.clone()]), vec!["designs differ in GPU count: 1,024 vs 288".to_string(), "nvl: 288 GPUs do not divide the batch of 512: PP 9".to_string()]);
        // Per GPU: tokens/s over GPUs, power per 1,000 GPUs, cost per GPU.
        let tpg = a.tokens_per_s_per_gpu.unwrap();
        assert!((tpg - a.tokens_per_s.unwrap() / 1024.0).abs() < 1e-9);
        assert!((a.power_kw_per_1000_gpus.unwrap() - a.power_kw * 1000.0 / 1024.0).abs() < 1e-9);
        let t = delta_table(&[a.clone(), b.clone()]);
        let row = |k: &str| t.iter().find(|r| r.key == k).unwrap_or_else(|| panic!("no row {k}"));
        for k in ["cost_usd", "power_kw", "tokens_per_s", "step_time_s"] {
            let r = row(k);
            assert_eq!(r.best, None, "{k} is crowned across 1,024 and 288 GPUs");
            if r.values.iter().all(Option::is_some) && r.values[0] != r.values[1] {
                assert_eq!(r.unranked, Some(UNRANKED_SIZE), "{k}");
            }
        }
        assert!(a.cost_usd.is_some() && b.cost_usd.is_some(), "the example book prices both bills: {:?} {:?}", a.bom.unpriced, b.bom.unpriced);
        let per = row("cost_usd_per_gpu");
        assert!(per.values.iter().all(Option::is_some) && per.ratio.is_some());
        assert_eq!(row("gpus").best, None, "the GPU count is shown, not ranked");
        // The same designs at the same GPU count: no size warning.
        let list = vec![("pod".to_string(), priced("dgx-h100-superpod")), ("nvl".to_string(), priced("gb200-nvl72"))];
        let (scaled, _) = scale_designs(&list, SameGpus::Largest).unwrap();
        let same: Vec<_> = scaled.iter().map(|(n, s)| design_numbers(n, s).unwrap()).collect();
        assert!(warnings(&same).is_empty());
        assert_eq!(same[1].gpus, 1024);
    }
}
