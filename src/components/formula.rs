//! Panel 6: how the headline numbers are computed, with this cluster's values filled in.
//! Every number comes from the model's `explain` (NCCL's own terms); this file only writes.

use crate::eval::{size_words, Evaluation};
use fabricscope_charts::scale::gbps_label;
use super::{esc, raw};
use std::fmt::Write;
use std::rc::Rc;
use yew::prelude::*;

pub struct Props {
    pub eval: Rc<Evaluation>,
}

fn n(v: f64) -> String {
    gbps_label(v)
}

/// Drawn as a plain function (not a component): no state, and one generic component less
/// in the bundle.
pub fn formula_panel(props: &Props) -> Html {
    let e = &props.eval;
    let mut o = String::with_capacity(4096);
    o.push_str("<section class=\"panel prose\" data-testid=\"formula\" aria-labelledby=\"formula-h\"><h3 id=\"formula-h\">5 · How is this computed</h3>");
    let Some(f) = &e.formula else {
        o.push_str("<p>One GPU runs no collectives; add GPUs or nodes to see NCCL's formula.</p></section>");
        return raw(o);
    };
    let bytes = f.bytes.0 as f64;
    let transfer = bytes / (1000.0 * f.bw.0);
    let plateau = f.latency.0 > f.table_latency.0 * 1.0001;
    let corrected = (f.bw.0 - f.table_bw.0).abs() > f.table_bw.0 * 1e-4;
    let _ = write!(
        o,
        "<p class=\"muted\">The headline AllReduce of {} over {} GPUs in {} domain{}, with your cluster's numbers:</p><ol class=\"steps\">",
        size_words(e.key_bytes),
        f.ranks,
        f.domains,
        if f.domains == 1 { "" } else { "s" }
    );
    let _ = write!(
        o,
        "<li><strong>{lib}'s search: </strong>{} ring channels of {} GB/s inside a domain and {} GB/s across the network, per direction.</li>",
        f.channels,
        n(f.channel_bw_intra.0),
        n(f.channel_bw_inter.0),
        lib = e.report.summary.library
    );
    let _ = write!(
        o,
        "<li><strong>{lib}'s choice: </strong>the cheapest (algorithm, protocol) in its tuning table at this size: {} {}, table latency {} µs, algorithm bandwidth {} GB/s.",
        esc(f.algorithm),
        esc(f.protocol),
        n(f.table_latency.0),
        n(f.table_bw.0),
        lib = e.report.summary.library
    );
    if plateau {
        let _ = write!(o, " On the ring plateau NCCL scales the latency to {} µs.", n(f.latency.0));
    }
    if corrected {
        let _ = write!(o, " At this size NCCL corrects Tree's bandwidth to {} GB/s.", n(f.bw.0));
    }
    let _ = write!(
        o,
        "</li><li><strong>NCCL's estimate: </strong><code>latency + bytes ÷ (1000 × bw) = {} + {} ÷ (1000 × {}) = {} µs</code><span class=\"muted\"> (µs and GB/s; NCCL uses it to choose, not to predict what is measured)</span></li>",
        n(f.latency.0),
        f.bytes.0,
        n(f.bw.0),
        n(f.latency.0 + transfer),
    );
    let _ = write!(
        o,
        "<li><strong>Expected time: </strong><code data-testid=\"formula-time\">time = latency + bytes ÷ (1000 × bw) = {} + {} ÷ (1000 × {}) = {} µs</code><span class=\"muted\"> (the same choice timed by the tiers it crosses: NIC goodput, the network family's latency, scale losses measured on real clusters; trust: {})</span></li>",
        n(f.expected_latency.0),
        f.bytes.0,
        n(f.expected_bw.0),
        n(f.time.0),
        esc(&f.trust.describe()),
    );
    let _ = write!(
        o,
        "<li><strong><button type=\"button\" class=\"term\" data-g=\"algbw\">algbw</button> and <button type=\"button\" class=\"term\" data-g=\"busbw\">busbw</button>: </strong><code>algbw = bytes ÷ time = {} GB/s; busbw = algbw × 2(n−1)/n = {} × {} = {} GB/s</code><span class=\"muted\"> (n = {})</span></li>",
        n(f.algbw.0),
        n(f.algbw.0),
        format!("{:.4}", f.busbw_factor).trim_end_matches('0'),
        n(f.busbw.0),
        f.ranks
    );
    if f.nics_per_node > 0 {
        let _ = write!(
            o,
            "<li><strong>Per-GPU NIC share: </strong><code>{} NICs × {} GB/s ÷ {} GPUs = {} GB/s per GPU, per direction</code><span class=\"muted\"> ({} Gb/s line rate ÷ 8 bits = {} GB/s per NIC)</span></li>",
            f.nics_per_node,
            n(f.nic_line.0),
            f.gpus_per_node,
            n(f.nic_per_gpu.0),
            n(f.nic_line.0 * 8.0),
            n(f.nic_line.0)
        );
    }
    if let Some(t) = e.report.summary.fabric.as_ref().filter(|t| t.leaves > 1) {
        let _ = write!(
            o,
            "<li><strong><button type=\"button\" class=\"term\" data-g=\"oversubscription\">Oversubscription</button>: </strong><code>{} NIC ports ÷ {} uplinks per leaf = {}:1</code><span class=\"muted\"> ({} leaves, {} spines of {} ports); a ring or tree with contiguous ranks crosses the spine on few links and barely notices it; all-to-all sends (N−L)/N of its bytes across and pays up to {}:1</span></li>",
            t.down_per_leaf,
            t.up_per_leaf,
            n(t.oversubscription),
            t.leaves,
            t.spines,
            t.radix,
            n(t.oversubscription)
        );
        if let Some(s) = t.tier(fabricscope_model::topology::SwitchLevel::Spine).filter(|_| t.cores > 0) {
            let _ = write!(
                o,
                "<li><strong>Core: </strong><code>{} ports down ÷ {} up per spine = {}:1</code><span class=\"muted\"> ({} cores); traffic that crosses the core gets 1/{} of the NIC bandwidth</span></li>",
                s.ports_down,
                s.ports_up,
                n(s.oversubscription),
                t.cores,
                n(t.core_path_oversubscription())
            );
        }
    }
    if let Some(r) = &e.reading {
        let _ = write!(o, "<li data-testid=\"reading-busbw\"><strong>What busbw means here: </strong>{} Limited by {}.</li>", esc(&r.busbw), esc(&r.limited_by));
        if let Some(a) = &r.algorithm {
            let _ = write!(o, "<li data-testid=\"reading-algorithm\"><strong>How {} moves the data: </strong>{}</li>", esc(f.algorithm), esc(a));
        }
        if let Some(sc) = &r.scaling {
            let _ = write!(o, "<li data-testid=\"reading-scaling\"><strong>One domain vs the cluster: </strong>{}</li>", esc(sc));
        }
    }
    o.push_str("</ol></section>");
    raw(o)
}
