//! The line serving.html and congestion.html open with (issue 37): the cluster they model, in
//! words, and a link to the explorer on the same design (the page's own `#s=` fragment). Framed
//! in the explorer or compare (`?frame`), the host page shows the design, so the link is left
//! out. Not used by the explorer (its bundle is at its budget).

use fabricscope_model::{Cluster, Topology};
use yew::prelude::*;

/// Whether this page is shown in another page's frame (`?frame`, see `widgets::page_frame`):
/// the host's section then carries the title and the card, so the framed panel shows neither
/// again (its heading stays for screen readers).
pub fn framed() -> bool {
    web_sys::window().and_then(|w| w.location().search().ok()).is_some_and(|q| q.contains("frame"))
}

/// "16 nodes × 8 H100-SXM5 80GB (128 GPUs in NVLink domains of 8), 8× InfiniBand NDR 400G per
/// node, rail-optimized"; the oversubscription when the design sets one.
pub fn cluster_words(t: &Topology) -> String {
    let c = &t.cluster;
    // NVL72 racks count compute trays, as the explorer's controls and the CLI's cluster line
    // do ("576 GPUs = 144 trays x 4 GB200"), not nodes.
    let (node, nodes) = if c.scale_up == fabricscope_model::catalog::ScaleUp::Nvl72 { ("tray", "trays") } else { ("node", "nodes") };
    let net = if c.nics_per_node == 0 { "no scale-out NICs".to_string() } else { format!("{}× {} per {node}", c.nics_per_node, t.nic.name) };
    let rails = if c.rail_only {
        ", rail-only"
    } else if c.rail_optimized {
        ", rail-optimized"
    } else {
        ", not rail-optimized"
    };
    let over = c.oversubscription.filter(|r| *r > 1.0).map_or(String::new(), |r| format!(", {r}:1 oversubscribed"));
    format!(
        "{} {} × {} {} ({} GPUs in NVLink domains of {}), {net}{rails}{over}",
        c.nodes,
        if c.nodes == 1 { node } else { nodes },
        c.gpus_per_node,
        t.gpu.name,
        t.total_gpus,
        t.domain_gpus
    )
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub cluster: Cluster,
}

/// `<p>Cluster: … · open in the explorer</p>`.
#[component]
pub fn ClusterLine(p: &Props) -> Html {
    let Ok(t) = p.cluster.topology() else { return html! {} };
    let loc = web_sys::window().map(|w| w.location());
    let framed = framed();
    // The page's own fragment (`#s=…`; none for the default design), so the explorer opens
    // the same design.
    let href = format!("index.html{}", loc.and_then(|l| l.hash().ok()).unwrap_or_default());
    html! {
        <p class="muted small" data-testid="cluster-line">
            { "Cluster: " }{ cluster_words(&t) }
            if !framed {
                { " · " }<a href={href} data-testid="cluster-link">{ "open this design in the explorer" }</a>
            }
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_name_nodes_gpus_nics_and_fabric() {
        let t = Cluster { nodes: 16, ..Cluster::default() }.topology().unwrap();
        let w = cluster_words(&t);
        assert!(w.starts_with("16 nodes × 8 H100"), "{w}");
        assert!(w.contains("(128 GPUs in NVLink domains of 8), 8× InfiniBand NDR 400G per node, rail-optimized"), "{w}");
        let t = Cluster { nodes: 16, oversubscription: Some(3.0), rail_optimized: false, ..Cluster::default() }.topology().unwrap();
        assert!(cluster_words(&t).ends_with("not rail-optimized, 3:1 oversubscribed"), "{}", cluster_words(&t));
        // GB200 NVL72 in trays, as the explorer's controls and `fabricscope`'s cluster line.
        let c = Cluster { gpu: fabricscope_model::catalog::GpuKind::Gb200, scale_up: fabricscope_model::catalog::ScaleUp::Nvl72, gpus_per_node: 4, nics_per_node: 4, nodes: 144, ..Cluster::default() };
        let w = cluster_words(&c.topology().unwrap());
        assert!(w.starts_with("144 trays × 4 GB200") && w.contains("(576 GPUs in NVLink domains of 72), 4× InfiniBand NDR 400G per tray"), "{w}");
    }
}
