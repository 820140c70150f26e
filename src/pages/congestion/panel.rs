//! "Congestion, sharing and failures": routing policy, traffic, placement, neighbours and
//! failures as controls; the flow model's throughput fraction as a band over seeds, the
//! collision probability, the bottleneck tier, the fat tree with its loaded links, and the
//! transport effects the model does not see (issue 25).

use crate::widgets::ChartSvg;
use crate::widgets::state::Action;
use super::study::{cli_line, routing_of, step_spread, step_traffics, use_congestion, Settings, Study, TrainingJob};
use crate::widgets::eval::size_words;
use crate::plumbing::hooks::use_on_screen;
use fabricscope_charts::scale::gbps_label;
use fabricscope_charts::scale::interval_label;
use fabricscope_charts::training::seconds_label;
use fabricscope_charts::{busbw_spread_chart, fabric_loads_chart, fraction_bands_chart, step_bands_chart, BandRow, LoadsOptions, Theme};
use fabricscope_flow::step::{StepSpread, Stragglers, DEFAULT_SLOW_FACTOR};
use fabricscope_flow::compose::{busbw_spread, traffic_is_of, BusbwSpread};
use fabricscope_flow::{Dist, Outcome, Placement, Routing, Traffic};
use fabricscope_model::{Cluster, Collective, ModelError};
use gloo_timers::callback::Timeout;
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// Small props (compared on every render of the page): the cluster and the few numbers the
/// panel reads from the evaluation, not the evaluation itself.
#[derive(Properties, PartialEq)]
pub struct Props {
    pub cluster: Cluster,
    /// The fat tree's leaf oversubscription (down:up) and its leaves (0 without a fabric).
    pub ratio: f64,
    pub leaves: u32,
    /// The collective of the throughput chart and its headline size (bytes).
    pub op: Collective,
    pub key_bytes: u64,
    /// The explorer's training job on show (its link's layout): its step is timed over the
    /// study's seeds; `None` when the link carries none.
    #[prop_or_default]
    pub training: Option<TrainingJob>,
    /// The link carries a layout that does not read back (an edited `p=`).
    #[prop_or_default]
    pub layout_unreadable: bool,
    pub dark: bool,
    pub compact: bool,
    /// Sets the cluster's oversubscription (the page's one fat tree).
    pub on_action: Callback<Action>,
}

/// What each routing policy is and which fabrics do it.
const ROUTINGS: [(Routing, &str, &str); 3] = [
    (Routing::Ecmp, "ECMP", "each flow (queue pair) is hashed onto one path at every switch; RoCE fabrics by default"),
    (Routing::Adaptive, "adaptive", "switches steer traffic to less loaded paths; InfiniBand adaptive routing (modelled as an even split)"),
    (Routing::Spray, "spray", "packets sprayed over every equal-cost path, as Spectrum-X does (modelled as an even split)"),
];

/// The traffic patterns and their labels (the compare page's select uses them too).
pub(crate) const TRAFFIC: [(Traffic, &str); 5] = [
    (Traffic::Ring, "ring (AllReduce, AllGather)"),
    (Traffic::Tree, "tree (AllReduce)"),
    (Traffic::AllToAll, "all-to-all with PXN"),
    (Traffic::AllToAllNoPxn, "all-to-all without PXN"),
    (Traffic::RandomPermutation, "random permutation"),
];

/// Published figures near each effect (validation/congestion.csv); none measures the study the
/// page runs, so each is context and the page's numbers stay "modelled, not measured".
fn published(s: &Settings, r: Routing) -> Vec<&'static str> {
    let mut v = Vec::new();
    if r == Routing::Ecmp {
        v.push("ECMP collisions: Baidu reports about 70 of 100 Gb/s per link with hash collisions; Meta reports up to 40% more AllReduce throughput from QP-aware hashing with more QPs (validation/congestion.csv).");
    } else {
        v.push("Load balancing: NVIDIA reports 98% of theoretical line rate on Spectrum-X with adaptive routing (arXiv:2605.21187; validation/congestion.csv).");
    }
    if s.other_jobs > 0 {
        v.push("Neighbours: CASSINI (NSDI 2024) measured up to 1.6x average and 2.5x tail job time between interleaved and overlapping jobs on a 24-server testbed (validation/congestion.csv).");
    }
    if s.failures.links_down + s.failures.spines_down > 0 {
        v.push("Links down: the only published figure found is a latency change (+7% with 10% of links down, Spectrum-X), not a throughput (validation/congestion.csv).");
    }
    v
}

fn band(label: &str, d: &Dist, color: usize) -> BandRow {
    BandRow { label: label.to_string(), min: d.min, p10: d.p10, p50: d.p50, p90: d.p90, max: d.max, color }
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// A labelled `<select>` of (value, text) pairs.
fn picker(id: &'static str, label: &'static str, opts: Vec<(String, String, bool)>, on: Callback<String>) -> Html {
    let onchange = Callback::from(move |e: Event| {
        let s: HtmlSelectElement = e.target_unchecked_into();
        on.emit(s.value());
    });
    html! {
        <label class="inline" for={id}>{ label }
            <select {id} {onchange}>
                { for opts.into_iter().map(|(v, t, sel)| html! { <option value={v} selected={sel}>{ t }</option> }) }
            </select>
        </label>
    }
}

/// A labelled number box, applied on change; text that is not a whole number from `min` to
/// `max` is refused with its reason and the setting stays.
fn number(id: &'static str, label: &'static str, value: u32, (min, max): (u32, u32), on: Callback<Result<u32, String>>) -> Html {
    let onchange = Callback::from(move |e: Event| {
        let v = crate::widgets::value_of(&e);
        on.emit(match v.trim().parse::<u32>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(format!("{}: '{}' is not a whole number from {min} to {max}", label.trim(), v.chars().take(12).collect::<String>())),
        })
    });
    html! {
        <label class="inline" for={id}>{ label }
            <input {id} class="small-num" type="number" min={min.to_string()} max={max.to_string()} value={value.to_string()} {onchange} />
        </label>
    }
}

/// A number box's callback: a valid count applies `f` to the state and clears the error; a
/// refused one shows its reason and the state stays.
fn count_setter<T: Copy + 'static>(state: UseStateHandle<T>, err: UseStateHandle<Option<String>>, f: fn(&mut T, u32)) -> Callback<Result<u32, String>> {
    Callback::from(move |v: Result<u32, String>| match v {
        Ok(n) => {
            let mut s = *state;
            f(&mut s, n);
            err.set(None);
            state.set(s);
        }
        Err(e) => err.set(Some(e)),
    })
}

thread_local! {
    /// The panel's settings as last drawn: the framed page remounts its panels on each new
    /// design, and the user's routing, traffic, neighbours and failures carry over to it.
    static KEPT: std::cell::Cell<Option<Settings>> = const { std::cell::Cell::new(None) };
    /// The slow GPUs as last set (they change the step, not the flow study).
    static KEPT_SLOW: std::cell::Cell<Stragglers> = const { std::cell::Cell::new(Stragglers { gpus: 0, factor: DEFAULT_SLOW_FACTOR }) };
}

/// The training step over an answer's seeds as drawn: its figures (or why not) and its chart.
type StepDrawn = Option<(Result<StepSpread, ModelError>, Option<AttrValue>)>;

/// What the drawn step depends on: the answer, the job, the slow GPUs and the chart's look.
#[derive(Clone, PartialEq)]
struct StepDeps {
    seq: Option<u64>,
    job: Option<TrainingJob>,
    slow: Stragglers,
    dark: bool,
    compact: bool,
}

#[function_component(CongestionPanel)]
pub fn congestion_panel(props: &Props) -> Html {
    let node = use_node_ref();
    // Starts false: a framed page (re)mounted off screen computes nothing until seen.
    let in_view = use_on_screen(node.clone());
    let settings = use_state(|| KEPT.get().unwrap_or_default());
    KEPT.set(Some(*settings));
    let input_error = use_state(|| None::<String>);
    let cluster = props.cluster.clone();
    let slow = use_state(|| KEPT_SLOW.get());
    KEPT_SLOW.set(*slow);
    // The panel's study first (drawn), then the traffics the training step needs.
    let key = (*use_memo((cluster.clone(), *settings, props.training.clone()), |(c, s, job)| {
        let mut key = vec![(c.clone(), *s)];
        if let Some(job) = job {
            key.extend(step_traffics(c, s, job).into_iter().map(|traffic| (c.clone(), Settings { traffic, ..*s })));
        }
        key
    }))
    .clone();
    let (done, progress) = use_congestion(key.clone(), true, in_view);
    let routing = routing_of(&settings, &cluster);
    let set = |f: fn(&mut Settings, &str)| {
        let (settings, err) = (settings.clone(), input_error.clone());
        Callback::from(move |v: String| {
            let mut s = *settings;
            f(&mut s, &v);
            err.set(None);
            settings.set(s);
        })
    };
    let set_n = |f: fn(&mut Settings, u32)| count_setter(settings.clone(), input_error.clone(), f);
    // The slow GPUs change only the step, not the studies' key: a state of their own.
    let set_slow = |f: fn(&mut Stragglers, u32)| count_setter(slow.clone(), input_error.clone(), f);
    let ratio = props.ratio;
    let over_opts: Vec<(String, String, bool)> = {
        let mut v: Vec<(String, String, bool)> = [1.0, 2.0, 3.0, 4.0].iter().map(|&r| (r.to_string(), if r == 1.0 { "1:1 (non-blocking)".to_string() } else { format!("{r}:1") }, (ratio - r).abs() < 0.01)).collect();
        if !v.iter().any(|o| o.2) {
            v.insert(0, ("".into(), format!("{ratio:.2}:1 (set by the fat tree's switch counts)"), true));
        }
        v
    };
    let on_over = {
        let cb = props.on_action.clone();
        Callback::from(move |v: String| {
            if let Ok(r) = v.parse::<f64>() {
                cb.emit(Action::Oversubscription(if r == 1.0 { None } else { Some(r) }));
            }
        })
    };
    let one_leaf = props.leaves <= 1;
    let current = done.as_ref().is_some_and(|d| d.key.first().is_some_and(|k| k.0 == cluster && k.1 == *settings));
    // The charts of an answer are drawn once per answer and theme, not on every input.
    let svgs = {
        let done = done.clone();
        use_memo((done.as_ref().map(|d| d.seq), props.dark, props.compact, props.op, props.key_bytes), move |(_, dark, compact, op, key)| {
            let theme = Theme::for_dark(*dark);
            let width = if *compact { 360 } else { 720 };
            let first = done.as_ref().and_then(|d| d.studies.first().zip(d.key.first()));
            first.map(|(s, k)| charts(s, &k.0, *op, *key, &theme, width, *compact)).unwrap_or_default()
        })
    };
    // The training step over the answer's seeds: evaluated once per answer, job and slow GPUs,
    // in a task of its own after the answer's charts have painted (together they took 53-74 ms
    // of one task on the 1,024-GPU SuperPOD; apart each stays well under 50 ms).
    let step_deps = StepDeps { seq: done.as_ref().map(|d| d.seq), job: props.training.clone(), slow: *slow, dark: props.dark, compact: props.compact };
    let step_state = use_state(|| None::<(StepDeps, Rc<StepDrawn>)>);
    {
        let (done, key, step_state) = (done.clone(), key.clone(), step_state.clone());
        use_effect_with(step_deps.clone(), move |deps| {
            let deps = deps.clone();
            let tick = Timeout::new(0, move || {
                // Only an answer to this key has every study the step needs.
                let (Some(d), Some(job)) = (done.as_ref().filter(|d| d.key == key), deps.job.as_ref()) else { return };
                let spread = step_spread(&d.key, &d.studies, job, &deps.slow);
                let svg = spread.as_ref().ok().map(|s| AttrValue::from(step_chart(s, &deps.slow, Theme::for_dark(deps.dark), if deps.compact { 360 } else { 720 })));
                step_state.set(Some((deps, Rc::new(Some((spread, svg))))));
            });
            // A change before the tick drops it.
            move || drop(tick)
        });
    }
    // While the next step is timed the last one stays on show, marked not current: the figure
    // neither vanishes nor shifts the page for the one task it takes.
    let (step, step_current): (Rc<StepDrawn>, bool) = match &*step_state {
        Some((d, drawn)) if *d == step_deps => (drawn.clone(), true),
        Some((d, drawn)) if d.job.is_some() && step_deps.job.is_some() => (drawn.clone(), false),
        _ => (Rc::new(None), false),
    };
    html! {
        <section ref={node} class={classes!((!crate::widgets::cluster_line::framed()).then_some("panel"), "wide", "congestion")} data-testid="congestion" aria-labelledby="congestion-h"
            data-running={progress.is_some().to_string()} data-current={current.to_string()}>
            // Framed, the host's section shows this title (and the card) already.
            <h3 id="congestion-h" class={if crate::widgets::cluster_line::framed() { "visually-hidden" } else { "chart-title" }}>{ "Congestion, sharing and failures" }</h3>
            <p class="chart-sub">{ "Flow-level model: the traffic's flows routed over this cluster's fat tree, rates shared max-min fairly on every link, repeated over hash seeds. Modelled, not measured." }</p>
            <crate::widgets::cluster_line::ClusterLine cluster={props.cluster.clone()} />
            <div class="toolbar">
                { picker("cg-routing", "Routing ", ROUTINGS.iter().map(|(r, t, _)| (r.id().to_string(), t.to_string(), *r == routing)).collect(),
                    set(|s, v| s.routing = Routing::ALL.iter().find(|r| r.0 == v).map(|r| r.1))) }
                { picker("cg-traffic", "Traffic ", TRAFFIC.iter().map(|(t, x)| (t.id().to_string(), x.to_string(), *t == settings.traffic)).collect(),
                    set(|s, v| if let Some(t) = Traffic::ALL.iter().find(|t| t.0 == v) { s.traffic = t.1 })) }
                { picker("cg-placement", "Placement ", Placement::ALL.iter().map(|(id, p)| (id.to_string(), id.to_string(), *p == settings.placement)).collect(),
                    set(|s, v| if let Some(p) = Placement::ALL.iter().find(|p| p.0 == v) { s.placement = p.1 })) }
                { picker("cg-oversub", "Oversubscription ", over_opts, on_over) }
                { number("cg-seeds", "Seeds ", settings.seeds, (1, 256), set_n(|s, n| s.seeds = n.max(1))) }
                { number("cg-jobs", "Other jobs ", settings.other_jobs, (0, 15), set_n(|s, n| s.other_jobs = n)) }
                { number("cg-nics", "NICs down ", settings.failures.nics_down, (0, 31), set_n(|s, n| s.failures.nics_down = n)) }
                { number("cg-links", "Links down ", settings.failures.links_down, (0, 256), set_n(|s, n| s.failures.links_down = n)) }
                { number("cg-spines", "Spines down ", settings.failures.spines_down, (0, 256), set_n(|s, n| s.failures.spines_down = n)) }
                // Slow GPUs change only the training step, shown when the link carries one.
                if props.training.is_some() {
                    { number("cg-slow", "Slow GPUs ", slow.gpus, (0, cluster.nodes.saturating_mul(cluster.gpus_per_node).max(1)), set_slow(|s, n| s.gpus = n)) }
                    { number("cg-slow-speed", "at speed % ", (slow.factor * 100.0).round() as u32, (1, 100), set_slow(|s, n| s.factor = n as f64 / 100.0)) }
                }
            </div>
            <p class="hint" data-testid="routing-note">{ ROUTINGS.iter().find(|r| r.0 == routing).map_or(String::new(), |r| format!("{}: {}", r.1, r.2)) }
                if settings.routing.is_none() { { " (this NIC's default)" } }
            </p>
            <p class="hint">{ "Oversubscription is the cluster's own (the fat tree sized at that ratio); NICs go down on the job's first node, links on its first leaf, spines in its pod." }
                if props.training.is_some() { { " Slow GPUs (at the speed given) change only the training step, not the flows." } }</p>
            if one_leaf {
                <p class="hint" data-testid="one-leaf">{ "One leaf switch: no spine for flows to collide on; only NICs limit them. Add nodes for a two-tier tree." }</p>
            }
            if let Some(e) = &*input_error {
                <p class="error" role="alert" data-testid="congestion-input-error">{ e.clone() }</p>
            }
            <p class="muted small" aria-live="polite" data-testid="congestion-status">
                { match (progress, current) {
                    (Some((d, t)), _) => format!("sampling: seed {d} of {t}…{}", if done.is_some() { " (showing the last answer)" } else { "" }),
                    (None, false) if done.is_some() => "last answer, for other settings: scroll here to update".to_string(),
                    _ => String::new(),
                } }
            </p>
            if let Some((d, k)) = done.as_ref().and_then(|d| d.studies.first().zip(d.key.first())) {
                <div class={classes!("congestion-result", (!current).then_some("stale"))}>
                    { result(d, &k.1, props, &svgs, step_section(props.training.as_ref(), &step, step_current, &slow, studied(d, &k.1, &props.cluster))) }
                </div>
            }
        </section>
    }
}

/// What an answer draws: the band chart, the loaded fat tree, and the collective's busbw over
/// the seeds (when the study is its traffic), with its figures at the headline size.
#[derive(Default, Clone, PartialEq)]
struct Drawn {
    bands: AttrValue,
    drawing: Option<AttrValue>,
    busbw: Option<(AttrValue, BusbwSpread)>,
}

/// Sizes of the busbw-over-seeds chart, bytes: 64 KiB to 16 GiB in powers of two.
const SPREAD_SIZES: std::ops::RangeInclusive<u32> = 16..=34;

/// The busbw over seeds of `op` on `cluster` for the study `o`, and its figures at `key`
/// bytes; `None` when the study is not that collective's traffic (or one node: no network).
fn busbw_over_seeds(o: &Outcome, cluster: &Cluster, op: Collective, key: u64, theme: &Theme, width: u32, compact: bool) -> Option<(AttrValue, BusbwSpread)> {
    if cluster.nodes < 2 || !traffic_is_of(op, o.traffic) {
        return None;
    }
    let topo = cluster.topology().ok()?;
    // The chart's sizes and the key in one call: each builds four communicators of the cluster.
    let sizes: Vec<u64> = SPREAD_SIZES.map(|e| 1u64 << e).chain(std::iter::once(key)).collect();
    let mut rows = busbw_spread(&topo, op, o.traffic, &o.throughput_fraction, &sizes).ok()?;
    let at_key = rows.pop()?;
    Some((AttrValue::from(busbw_spread_chart(&rows, op.name(), width, compact, theme)), at_key))
}

/// The charts of an answer (empty when it has none).
fn charts(d: &Study, cluster: &Cluster, op: Collective, key: u64, theme: &Theme, width: u32, compact: bool) -> Drawn {
    let Ok(o) = &d.outcome else { return Drawn::default() };
    let f = &o.throughput_fraction;
    let mut rows = vec![band(if o.sharing.is_some() { "expected" } else { o.routing.id() }, f, 0)];
    if let Some(s) = &o.sharing {
        rows.push(band("best (interleaved)", &s.best, 2));
        rows.push(band("worst (overlapping)", &s.worst, 4));
    }
    let title = format!("Throughput fraction over {} seed(s): p10 {}, median {}, p90 {}", o.seeds, pct(f.p10), pct(f.p50), pct(f.p90));
    let bands = AttrValue::from(fraction_bands_chart(&rows, width, &title, theme));
    let drawing = d.loads.as_ref().map(|l| {
        let what = if o.deterministic { format!("{} {}", o.traffic.id(), o.routing.id()) } else { format!("{} {}, the median of {} seeds: seed {}", o.traffic.id(), o.routing.id(), o.seeds, l.seed) };
        AttrValue::from(fabric_loads_chart(l, &LoadsOptions { width, bottleneck_tier: o.bottleneck_tier.to_string(), what }, theme))
    });
    Drawn { bands, drawing, busbw: busbw_over_seeds(o, cluster, op, key, theme, width, compact) }
}

fn result(d: &Study, settings: &Settings, props: &Props, svgs: &Drawn, step: Html) -> Html {
    let note = d.note.as_ref().map(|n| html! { <p class="warning" data-testid="congestion-note">{ n.clone() }</p> });
    let o = match &d.outcome {
        Ok(o) => o,
        Err(_) if d.note.is_some() => return html! { { for note } },
        Err(e) => return html! { <p class="error" role="alert" data-testid="congestion-error">{ format!("{}: {}", e.field, e.message) }</p> },
    };
    let f = &o.throughput_fraction;
    let Drawn { bands, drawing, busbw } = svgs.clone();
    html! {
        <>
            { for note }
            <p class="congestion-numbers" data-testid="congestion-numbers" data-p10={f.p10.to_string()} data-p50={f.p50.to_string()} data-p90={f.p90.to_string()}
                data-collision={o.collision_probability.to_string()} data-tier={o.bottleneck_tier} data-seeds={o.seeds.to_string()}>
                { format!("Throughput fraction {} (median{}) · flows collide on a limiting switch link in {} of seeds · bottleneck tier: {}",
                    pct(f.p50),
                    if o.deterministic { ", deterministic: one solve".to_string() } else { format!("; p10 {} – p90 {} over {} seeds", pct(f.p10), pct(f.p90), o.seeds) },
                    pct(o.collision_probability), o.bottleneck_tier) }
            </p>
            <div class="chart-svg" data-testid="congestion-bands"><ChartSvg svg={bands} /></div>
            { meaning(o, props, busbw.as_ref().map(|b| &b.1)) }
            if let Some((svg, _)) = busbw {
                <figure class="congestion-drawing" data-testid="busbw-over-seeds">
                    <figcaption class="chart-sub">{ format!("{} busbw on the whole cluster: alone on the fabric, and over this study's seeds (the fraction replaces the network's routing factor; docs/flow.md)", props.op.name()) }</figcaption>
                    <div class="chart-svg"><ChartSvg {svg} /></div>
                </figure>
            }
            { step }
            if let Some(svg) = drawing {
                <figure class="congestion-drawing" data-testid="fabric-loads">
                    <figcaption class="chart-sub">{ "The fat tree's first plane with each link's load in that seed (rates are each flow's max-min share)." }</figcaption>
                    <div class="chart-svg"><ChartSvg {svg} /></div>
                </figure>
            }
            <p class="hint" data-testid="fabric-loads-cli">{ "The same drawing from the command line: " }<code>{ format!("{} --svg", cli_line(&props.cluster, settings)) }</code></p>
            <h4>{ "Not modelled, and the evidence" }</h4>
            <ul class="notes" data-testid="transport">
                { for o.transport.iter().map(|t| format!("{}: not modelled; assumes {} ({}; crates/flow transport.rs)", t.effect, t.assumes, t.source.trim_start_matches("not modelled: ")))
                    .chain(std::iter::once("Every figure above is modelled, not measured: no published measurement matches this study.".to_string()))
                    .chain(published(settings, o.routing).into_iter().map(String::from))
                    .map(|t| html! { <li>{ t }</li> }) }
            </ul>
        </>
    }
}

/// The fraction against the page's collective and step time, with the assumption stated.
fn meaning(o: &Outcome, props: &Props, at_key: Option<&BusbwSpread>) -> Html {
    let matches = traffic_is_of(props.op, o.traffic);
    let busbw = at_key.map(|b| {
        let spread = if o.deterministic { String::new() } else { format!(", {} to {} GB/s from p10 to p90", gbps_label(b.p10), gbps_label(b.p90)) };
        html! {
            <li data-testid="busbw-over-seeds-at-key" data-alone={b.alone.to_string()} data-p50={b.p50.to_string()}>
                { format!("{} busbw at {}: {} GB/s alone on the fabric (the analytical model); under this study {} GB/s at the median fraction{spread}. ", props.op.name(), size_words(props.key_bytes), gbps_label(b.alone), gbps_label(b.p50)) }
                { "NCCL's choice of algorithm is timed again at each fraction, which replaces the network's routing factor; assumes the network's slowest flow sets the whole collective's pace." }
            </li>
        }
    });
    html! {
        <ul class="notes" data-testid="congestion-meaning">
            { for busbw }
            if !matches {
                <li>{ format!("The {} traffic studied is not the {} of the charts above: no busbw is derived from it.", o.traffic.id(), props.op.name()) }</li>
            }
            if props.layout_unreadable {
                <li data-testid="layout-unreadable">{ "Training step: not timed: this link's training layout (p=) could not be read. Open the panel again from the explorer, whose link carries the layout on show." }</li>
            } else if props.training.is_none() {
                <li>{ "Training step: not timed here, because this link carries no training layout. Open the panel from the explorer (its link carries the layout on show), or run fabricscope train with the same routing, sharing and failure flags." }</li>
            }
        </ul>
    }
}

/// The step over seeds as bands: alone on the fabric, and under this study (with the slow
/// GPUs, when set).
fn step_chart(s: &StepSpread, slow: &Stragglers, theme: Theme, width: u32) -> String {
    let d = &s.step_s;
    // Short labels: a phone's chart keeps 84 px for them.
    let under = if slow.gpus > 0 { format!("study, {} slow", slow.gpus) } else { "this study".to_string() };
    let rows = [
        BandRow { label: "alone".into(), min: s.alone_s, p10: s.alone_s, p50: s.alone_s, p90: s.alone_s, max: s.alone_s, color: 0 },
        BandRow { label: under, min: d.min, p10: d.p10, p50: d.p50, p90: d.p90, max: d.max, color: 1 },
    ];
    let title = format!("Training step over {} seed(s): {} alone, median {}, p10 {} to p90 {}", s.per_seed_s.len(), seconds_label(s.alone_s), seconds_label(d.p50), seconds_label(d.p10), seconds_label(d.p90));
    step_bands_chart(&rows, width, &title, &theme)
}

/// The training step of the explorer's layout over the study's seeds: the chart and figures,
/// or why there are none.
/// The job the flows studied: (its nodes, the cluster's, other jobs beside it).
fn studied(d: &Study, s: &Settings, c: &Cluster) -> Option<(u32, u32, u32)> {
    d.outcome.as_ref().ok().map(|o| (o.nodes_in_job, c.nodes, s.other_jobs))
}

/// The fractions that set the step in this study, and the job size the flows studied.
fn step_basis(s: &StepSpread, studied: Option<(u32, u32, u32)>) -> String {
    let frac = |name: &str, d: &Dist| format!("the {name} keeps {} of its bandwidth at the median ({} to {} from p10 to p90)", pct(d.p50), pct(d.p10), pct(d.p90));
    let parts: Vec<String> = [("data-parallel ring", s.ring_fraction.as_ref()), ("all-to-all", s.a2a_fraction.as_ref())].into_iter().filter_map(|(n, d)| Some(frac(n, d?))).collect();
    let fractions = if parts.is_empty() { "The step keeps the analytical model's routing factor".to_string() } else { format!("What sets the step: {}", parts.join("; ")) };
    let size = match studied {
        Some((job, all, others)) if others > 0 || job < all => format!(". The flows studied a job of {job} of the cluster's {all} nodes ({others} other job{} sharing the fabric); the step is the layout's on all {all} nodes at those fractions.", if others == 1 { "" } else { "s" }),
        Some((job, _, _)) => format!(". The flows studied the job on all {job} nodes."),
        None => ".".to_string(),
    };
    format!("{fractions}{size}")
}

fn step_section(job: Option<&TrainingJob>, step: &Option<(Result<StepSpread, ModelError>, Option<AttrValue>)>, current: bool, slow: &Stragglers, studied: Option<(u32, u32, u32)>) -> Html {
    let (Some(job), Some((spread, svg))) = (job, step.as_ref()) else { return Html::default() };
    let layout = fabricscope_model::training::explore::parallel_label(&job.parallel);
    let body = match spread {
        Err(e) => html! { <p class="warning" data-testid="step-over-seeds-error">{ format!("Training step not timed: {}: {}", e.field, e.message) }</p> },
        Ok(s) => {
            let d = &s.step_s;
            let slower = |x: f64| if s.alone_s > 0.0 { format!("{:+.1}%", (x / s.alone_s - 1.0) * 100.0) } else { String::new() };
            let stragglers = if slow.gpus > 0 {
                format!(" With {} slow GPU(s) at {:.0}% speed: the stage holding the slowest sets the pace, its compute and pipeline bubble at 1/F; communication and the optimizer are unchanged.", slow.gpus, slow.factor * 100.0)
            } else {
                String::new()
            };
            html! {
                <>
                    <div class="chart-svg">{ for svg.clone().map(|svg| html! { <ChartSvg {svg} /> }) }</div>
                    <p data-testid="step-over-seeds-numbers" data-alone={s.alone_s.to_string()} data-p10={d.p10.to_string()} data-p50={d.p50.to_string()} data-p90={d.p90.to_string()} data-seeds={s.per_seed_s.len().to_string()}>
                        { format!("{} alone on the fabric ({}); under this study {} at the median ({}), {} to {} from p10 to p90 over {} seed(s); {} tokens/s at the median.",
                            seconds_label(s.alone_s), s.alone_interval_s.map_or_else(|| "not validated".to_string(), |[lo, hi]| format!("{} s, the model's error held out by source", interval_label(lo, hi))), seconds_label(d.p50), slower(d.p50), seconds_label(d.p10), seconds_label(d.p90), s.per_seed_s.len(), tokens_label(s.tokens_per_s.p50)) }
                    </p>
                    <p data-testid="step-basis" data-ring-p50={s.ring_fraction.as_ref().map(|d| d.p50.to_string())}>{ step_basis(s, studied) }</p>
                    <p class="hint">{ format!("Each seed's data-parallel ring fraction (and the all-to-all's, when the experts cross nodes) replaces the network's routing factor and the step is evaluated again, as fabricscope train --routing does (crates/flow step.rs). Modelled, not measured.{stragglers}") }</p>
                </>
            }
        }
    };
    html! {
        <figure class="congestion-drawing" data-testid="step-over-seeds" data-current={current.to_string()} aria-busy={(!current).to_string()}>
            <figcaption class="chart-sub">{ format!("Training step of the explorer's layout ({layout}) over this study's seeds") }</figcaption>
            { body }
        </figure>
    }
}

/// Tokens per second to three figures: 295,675 as "296 thousand".
fn tokens_label(t: f64) -> String {
    match t {
        t if t >= 1e6 => format!("{:.3} million", t / 1e6),
        t if t >= 1e3 => format!("{:.0} thousand", t / 1e3),
        t => format!("{t:.0}"),
    }
}
