//! Learn's door into the model: plan a played collective and draw its frames, compare the
//! algorithms NCCL could run, on the design of the page's link. Plain data for the components;
//! no model math here (crates/model's teach and collective modules do it).

use fabricscope_charts::teach::{link_names, teach_frame, LinkNames};
use fabricscope_charts::Theme;
use fabricscope_model::link::{decode, find_in_url};
use fabricscope_teach::algos::{compare, curves, reason, Terms};
use fabricscope_teach::{schedule, unavailable, Instance, Play, Schedule};
use fabricscope_model::units::{Bytes, Micros};
use fabricscope_model::{sweep_sizes, AlgoChoice, Cluster, Collective, Comm, ProtoChoice, Scenario, SizeRange, Topology, YAxis};

/// The page's link: (query, fragment) as `location` has them ("" outside a browser).
pub fn page_url() -> (String, String) {
    web_sys::window()
        .map(|w| {
            let loc = w.location();
            (loc.search().unwrap_or_default(), loc.hash().unwrap_or_default())
        })
        .unwrap_or_default()
}

/// The scenario of a link (default when it has none).
pub fn scenario_of(query: &str, hash: &str) -> Scenario {
    find_in_url(query, hash).map(|l| decode(l).scenario).unwrap_or_default()
}

/// The cluster of the page's link.
pub fn page_cluster() -> Cluster {
    let (q, h) = page_url();
    scenario_of(&q, &h).cluster
}

/// Which cluster the player plays on: the page's design, or one node of either platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    Link,
    NvSwitch,
    XgmiMesh,
}

impl Platform {
    /// Every platform: its id and its name in the picker.
    pub const ALL: [(Platform, &'static str, &'static str); 3] = [
        (Platform::Link, "link", "Your design (the page's link)"),
        (Platform::NvSwitch, "nvswitch", "NVIDIA NVSwitch node (8x H100)"),
        (Platform::XgmiMesh, "xgmi", "AMD xGMI mesh (8x MI300X)"),
    ];
    pub fn id(self) -> &'static str {
        Self::ALL.iter().find(|x| x.0 == self).map_or("link", |x| x.1)
    }
    pub fn from_id(id: &str) -> Platform {
        Self::ALL.iter().find(|x| x.1 == id).map_or(Platform::Link, |x| x.0)
    }
    /// The cluster played: the link's, or one 8-GPU node of the platform.
    pub fn cluster(self) -> Cluster {
        use fabricscope_model::catalog::{GpuKind, ScaleUp};
        match self {
            Platform::Link => page_cluster(),
            Platform::NvSwitch => Cluster { nodes: 1, ..Cluster::default() },
            Platform::XgmiMesh => Cluster {
                gpu: GpuKind::Mi300x,
                nodes: 1,
                gpus_per_node: 8,
                scale_up: ScaleUp::Xgmi,
                nvls: false,
                cpu: fabricscope_model::topology::CpuVendor::Amd,
                ..Cluster::default()
            },
        }
    }
}

/// The algorithms the player offers, with their names.
pub const PLAYS: [(Play, &str); 6] = [(Play::Ring, "Ring"), (Play::Tree, "Tree"), (Play::Nvls, "NVLS"), (Play::NvlsTree, "NVLSTree"), (Play::AllToAll, "AllToAll"), (Play::KvHandoff, "KV handoff")];

/// A play's name ("Ring").
pub fn play_name(p: Play) -> &'static str {
    PLAYS.iter().find(|(x, _)| *x == p).map_or("", |(_, n)| n)
}

/// What NCCL runs for the played algorithm on the whole design, forced (the Algorithms
/// table's time), with its channels.
#[derive(Clone, Debug, PartialEq)]
pub struct Nccl {
    pub algorithm: String,
    pub protocol: String,
    pub channels: u32,
    /// µs.
    pub time: f64,
    pub ranks: u32,
}

/// A planned play: its schedule on a small copy of the design and what the page says of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub schedule: Schedule,
    /// Why the played design is smaller than the user's, if it is.
    pub reduced: Option<String>,
    pub nccl: Option<Nccl>,
    /// The counter's name and formula ("bytes each GPU sent", "2(n-1)/n x S").
    pub what: &'static str,
    pub formula: &'static str,
    /// The transcript: each step's start (µs) and line.
    pub steps: Vec<(f64, String)>,
    pub scale_up: String,
    pub nic: String,
    /// On an xGMI mesh: which links the play uses and why RCCL runs several rings and no NVLS.
    pub mesh_note: Option<String>,
}

impl Plan {
    /// µs of the whole play.
    pub fn total(&self) -> f64 {
        self.schedule.total().0
    }
}

/// What the player offers on a design: each algorithm and why it cannot play (if it cannot),
/// and the plan of the one asked for, or why there is none.
#[derive(Clone, Debug, PartialEq)]
pub struct Planned {
    pub plays: Vec<(Play, Option<&'static str>)>,
    pub plan: Result<Plan, String>,
}

fn nccl(play: Play, topo: &Topology, bytes: Bytes) -> Option<Nccl> {
    let algo = match play {
        Play::Ring => AlgoChoice::Ring,
        Play::Tree => AlgoChoice::Tree,
        Play::Nvls => AlgoChoice::Nvls,
        Play::NvlsTree => AlgoChoice::NvlsTree,
        Play::AllToAll | Play::KvHandoff => return None,
    };
    let c = Comm::new(topo, topo.whole()).ok()?;
    let p = c.predict(Collective::AllReduce, bytes, algo, ProtoChoice::Auto).ok()?;
    Some(Nccl { algorithm: p.algorithm.to_string(), protocol: p.protocol.to_string(), channels: c.channels(p.algorithm), time: p.time.0, ranks: p.ranks })
}

/// Plans `play` with `bytes` per GPU on a small copy of `cluster`.
pub fn plan(cluster: &Cluster, play: Play, bytes: u64) -> Planned {
    let topo = match cluster.topology() {
        Ok(t) => t,
        Err(e) => return Planned { plays: Vec::new(), plan: Err(e.message) },
    };
    let inst = Instance::of(&topo);
    let plays = Play::ALL.into_iter().map(|p| (p, unavailable(p, &inst))).collect();
    let asked = Bytes(bytes.clamp(1024, 1_000_000_000_000));
    let plan = schedule(play, inst, asked).map_err(|e| e.message).map(|s| {
        let (what, formula) = s.play.formula();
        let steps = (0..s.steps.len()).map(|i| (s.start_of(i).0, s.describe(i))).collect();
        let (scale_up, nic) = link_names(&topo);
        let nccl = nccl(s.play, &topo, asked);
        let channels = Comm::new(&topo, topo.whole()).ok().map(|c| c.channels("Ring"));
        let mesh_note = fabricscope_teach::mesh::note(&s, channels);
        Plan { reduced: fabricscope_teach::schedule::reduction(&topo, &s), nccl, what, formula, steps, scale_up, nic, mesh_note, schedule: s }
    });
    Planned { plays, plan }
}

/// One frame of a plan at `t` µs, `width` px wide: the counter's bytes, the step under way,
/// whether the play is done, and the drawing (SVG from crates/charts).
#[derive(Clone, Debug, PartialEq)]
pub struct Drawn {
    pub measured: f64,
    pub step: usize,
    pub done: bool,
    pub svg: String,
}

pub fn frame(p: &Plan, t: f64, dark: bool, width: u32) -> Drawn {
    let f = p.schedule.frame(Micros(t.max(0.0)));
    let svg = teach_frame(&p.schedule, &f, &LinkNames { scale_up: &p.scale_up, nic: &p.nic }, &Theme::for_dark(dark), width);
    Drawn { measured: p.schedule.measured(&f), step: f.step, done: f.done, svg }
}

/// One algorithm's numbers in the Algorithms table.
#[derive(Clone, Debug, PartialEq)]
pub struct AlgoRow {
    pub algorithm: String,
    pub protocol: String,
    /// µs, GB/s, µs, GB/s.
    pub time: f64,
    pub busbw: f64,
    pub latency: f64,
    pub bandwidth: f64,
    /// busbw's 90% interval, GB/s (the explorer's and the CLI's for the same prediction).
    pub busbw_interval: Option<(f64, f64)>,
}

impl From<&Terms> for AlgoRow {
    fn from(t: &Terms) -> Self {
        let p = &t.prediction;
        let busbw_interval = fabricscope_model::calibration::apply::collective_ratios(&p.trust).map(|(lo, hi)| (p.busbw.0 * lo, p.busbw.0 * hi));
        AlgoRow { algorithm: p.algorithm.to_string(), protocol: p.protocol.to_string(), time: p.time.0, busbw: p.busbw.0, latency: t.latency.0, bandwidth: t.bandwidth, busbw_interval }
    }
}

/// Every algorithm NCCL could run for the link's collective on the whole cluster at one size.
#[derive(Clone, Debug, PartialEq)]
pub struct Algos {
    pub op: &'static str,
    pub reason: String,
    pub auto: AlgoRow,
    /// Each forcible algorithm's id and its numbers, or why it cannot run.
    pub rows: Vec<(&'static str, Result<AlgoRow, String>)>,
    /// The throughput chart with each algorithm's curve over NCCL's ("" when `width` is 0).
    pub svg: String,
}

/// The algorithms of `scenario`'s collective at `bytes`, forced with protocol `proto` (auto,
/// ll, ll128, simple); with `width` > 0 the chart too.
pub fn algos(scenario: &Scenario, bytes: u64, proto: &str, width: u32, dark: bool) -> Result<Algos, String> {
    let mut s = scenario.clone();
    let op = s.view.selected_op;
    let bytes = Bytes(bytes.clamp(8, 16_000_000_000));
    let topo = s.cluster.topology().map_err(|e| e.message)?;
    let comm = Comm::new(&topo, topo.whole()).map_err(|e| e.message)?;
    let (auto, rows) = compare(&comm, op, bytes, ProtoChoice::from_id(proto).unwrap_or_default()).map_err(|e| e.message)?;
    let mut svg = String::new();
    if width > 0 {
        s.view.sizes = SizeRange::All;
        s.view.y_axis = YAxis::Log;
        s.view.key_bytes = bytes;
        s.view.ops = vec![op];
        let sizes: Vec<Bytes> = sweep_sizes(s.view.min_bytes, s.view.max_bytes).collect();
        let extra = curves(&comm, op, &sizes, s.view.algbw)
            .into_iter()
            .map(|(a, points)| fabricscope_charts::Series { label: format!("{} forced", a.id()), points, ..Default::default() })
            .collect();
        if let Ok(r) = fabricscope_model::evaluate(&s) {
            svg = fabricscope_charts::report::throughput_chart_with(&r, &s.view, &Theme::for_dark(dark), width, 420, width < 600, extra);
        }
    }
    Ok(Algos {
        op: op.name(),
        reason: reason(&auto, &rows),
        auto: AlgoRow::from(&auto),
        rows: rows.iter().map(|r| (r.algo.id(), r.run.as_ref().map(AlgoRow::from).map_err(Clone::clone))).collect(),
        svg,
    })
}

/// "16.00 MiB" or "512.0 KiB".
pub fn mib(b: f64) -> String {
    if b >= 1_048_576.0 {
        format!("{:.2} MiB", b / 1_048_576.0)
    } else {
        format!("{:.1} KiB", b / 1024.0)
    }
}

/// A power-of-two size as the page writes it ("1G", "64K", "8").
pub fn size_name(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{}G", b >> 30),
        b if b >= 1 << 20 => format!("{}M", b >> 20),
        b if b >= 1 << 10 => format!("{}K", b >> 10),
        b => b.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The played ring's counter at the end is the textbook 2(n-1)/n x S (n = 32 GPUs).
    #[test]
    fn a_ring_played_to_the_end_sends_the_formula() {
        let p = plan(&Cluster::default(), Play::Ring, 1 << 24).plan.expect("ring plays");
        let end = frame(&p, p.total(), false, 900);
        let n = p.schedule.instance.ranks() as f64;
        assert_eq!(n, 32.0);
        let want = 2.0 * (n - 1.0) / n * (1u64 << 24) as f64;
        assert!(end.done && (end.measured - want).abs() < 1e-6 * want, "{} vs {want}", end.measured);
        assert_eq!(p.steps.len(), 62, "2(n-1) steps of a ring");
        assert!(end.svg.starts_with("<svg"));
    }

    /// On the AMD platform the ring plays on the mesh and the page explains it.
    #[test]
    fn the_xgmi_platform_plays_on_a_mesh_without_nvls() {
        let planned = plan(&Platform::XgmiMesh.cluster(), Play::Ring, 1 << 24);
        let p = planned.plan.expect("ring plays on MI300X");
        assert_eq!(p.schedule.instance.mesh_links(), Some(7));
        let note = p.mesh_note.expect("a mesh note");
        assert!(note.contains("28 links") && note.contains("no NVLS"), "{note}");
        assert!(planned.plays.iter().any(|(x, why)| *x == Play::Nvls && why.is_some_and(|w| w.contains("no switch"))));
        assert!(plan(&Platform::NvSwitch.cluster(), Play::Ring, 1 << 24).plan.unwrap().mesh_note.is_none());
    }

    #[test]
    fn sizes_read_as_the_page_writes_them() {
        assert_eq!(size_name(1 << 30), "1G");
        assert_eq!(size_name(1 << 10), "1K");
        assert_eq!(size_name(8), "8");
        assert_eq!(mib((1u64 << 24) as f64), "16.00 MiB");
        assert_eq!(mib(524_288.0), "512.0 KiB");
    }
}
