//! Every chart at every width from a phone (320 px) to 4K keeps its text readable: each text
//! box (estimated with the renderers' own width table) lies inside the SVG viewport that
//! holds it, none but the in-plot annotations touches the plot area, and in the throughput
//! chart no two texts overlap (title, axis titles with units, legend, ticks, caption).

use fabricscope_charts::report::{render_chart, CHART_IDS};
use fabricscope_charts::text::text_width;
use fabricscope_charts::Theme;
use fabricscope_model::training::explore::explore;
use fabricscope_model::{cluster_preset, evaluate, Cluster, Scenario, SizeRange, YAxis};

const WIDTHS: [u32; 5] = [320, 400, 800, 1400, 3840];

/// An axis-aligned box: x0, y0, x1, y1.
#[derive(Clone, Copy, Debug)]
struct BoxPx(f64, f64, f64, f64);

impl BoxPx {
    fn overlaps(&self, o: &BoxPx) -> bool {
        self.0 < o.2 - 0.5 && o.0 < self.2 - 0.5 && self.1 < o.3 - 0.5 && o.1 < self.3 - 0.5
    }
    fn inside(&self, o: &BoxPx) -> bool {
        self.0 >= o.0 - 0.5 && self.1 >= o.1 - 0.5 && self.2 <= o.2 + 0.5 && self.3 <= o.3 + 0.5
    }
}

#[derive(Debug)]
struct Text {
    content: String,
    role: String,
    /// In root coordinates.
    bbox: BoxPx,
    /// The viewport of the innermost `<svg>` holding it, in root coordinates.
    viewport: BoxPx,
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    Some(tag[i..i + tag[i..].find('"')?].to_string())
}

fn num(tag: &str, name: &str) -> f64 {
    attr(tag, name).and_then(|v| v.parse().ok()).unwrap_or(0.0)
}

/// Every `<text>` of an SVG with its estimated box, and the plot rectangles.
fn layout(svg: &str) -> (Vec<Text>, Vec<BoxPx>) {
    let mut texts = Vec::new();
    let mut plots = Vec::new();
    let mut stack: Vec<BoxPx> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        rest = &rest[i..];
        let end = rest.find('>').unwrap_or(rest.len() - 1);
        let tag = &rest[..=end];
        let origin = stack.last().map_or((0.0, 0.0), |v| (v.0, v.1));
        if tag.starts_with("<svg") {
            let (x, y) = (origin.0 + num(tag, "x"), origin.1 + num(tag, "y"));
            stack.push(BoxPx(x, y, x + num(tag, "width"), y + num(tag, "height")));
        } else if tag.starts_with("</svg") {
            stack.pop();
        } else if tag.starts_with("<rect") && attr(tag, "data-role").as_deref() == Some("plot") {
            let (x, y) = (origin.0 + num(tag, "x"), origin.1 + num(tag, "y"));
            plots.push(BoxPx(x, y, x + num(tag, "width"), y + num(tag, "height")));
        } else if tag.starts_with("<text") {
            let body = &rest[end + 1..];
            let content = body[..body.find("</text>").unwrap_or(0)]
                .replace("&amp;", "&")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#39;", "'");
            let size = attr(tag, "font-size").and_then(|v| v.parse().ok()).unwrap_or(16.0);
            let bold = attr(tag, "font-weight").and_then(|v| v.parse::<u32>().ok()).unwrap_or(400) >= 600;
            let w = text_width(content.trim(), size, bold);
            let (x, y) = (origin.0 + num(tag, "x"), origin.1 + num(tag, "y"));
            let x0 = match attr(tag, "text-anchor").as_deref() {
                Some("middle") => x - w / 2.0,
                Some("end") => x - w,
                _ => x,
            };
            let (y0, y1) = match attr(tag, "dominant-baseline").as_deref() {
                Some("hanging") => (y, y + size * 1.15),
                Some("middle") | Some("central") => (y - size * 0.6, y + size * 0.6),
                _ => (y - size * 0.95, y + size * 0.25),
            };
            let viewport = *stack.last().expect("text inside an svg");
            assert!(attr(tag, "transform").is_none(), "rotated text cannot be checked: {tag}");
            texts.push(Text { content, role: attr(tag, "data-role").unwrap_or_default(), bbox: BoxPx(x0, y0, x0 + w, y1), viewport });
        }
        rest = &rest[end + 1..];
    }
    (texts, plots)
}

fn scenarios() -> Vec<(&'static str, Scenario)> {
    let gb = cluster_preset("gb200-nvl72").expect("preset").cluster();
    let mut log_all = Scenario::default();
    log_all.view.y_axis = YAxis::Log;
    log_all.view.sizes = SizeRange::All;
    log_all.view.algbw = true;
    vec![
        ("default", Scenario::default()),
        ("log, all sizes, algbw", log_all),
        ("one node", Scenario::new(Cluster { nodes: 1, ..Cluster::default() })),
        ("gb200", Scenario::new(gb)),
        ("1024 nodes", Scenario::new(Cluster { nodes: 1024, ..Cluster::default() })),
    ]
}

fn check_chart(what: &str, svg: &str, pairwise: bool) {
    let (texts, plots) = layout(svg);
    assert!(!texts.is_empty(), "{what}: no text");
    for bad in ["height=\"-", "width=\"-"] {
        if let Some(i) = svg.find(bad) {
            let from = svg[..i].rfind('<').unwrap_or(0);
            panic!("{what}: a negative size in {}", &svg[from..(i + 20).min(svg.len())]);
        }
    }
    for t in &texts {
        assert!(t.bbox.inside(&t.viewport), "{what}: {:?} ({}) leaves its viewport {:?}: {:?}", t.content, t.role, t.viewport, t.bbox);
        if t.role != "in-plot" {
            for p in &plots {
                assert!(!t.bbox.overlaps(p), "{what}: {:?} ({}) overlaps the plot {:?}: {:?}", t.content, t.role, p, t.bbox);
            }
        }
    }
    if pairwise {
        let outside: Vec<&Text> = texts.iter().filter(|t| t.role != "in-plot").collect();
        for (i, a) in outside.iter().enumerate() {
            for b in &outside[i + 1..] {
                assert!(!a.bbox.overlaps(&b.bbox), "{what}: {:?} overlaps {:?}: {:?} {:?}", a.content, b.content, a.bbox, b.bbox);
            }
        }
    }
}

#[test]
fn every_chart_at_every_width_keeps_its_text_inside_and_off_the_plot() {
    for (name, s) in scenarios() {
        let r = evaluate(&s).expect("evaluates");
        let v = explore(&s.cluster, &s.training).ok();
        for id in CHART_IDS {
            for w in WIDTHS {
                for titled in [false, true] {
                    let Some(c) = render_chart(id, &s, &r, v.as_ref(), &Theme::light(), w, 0, titled) else { continue };
                    let what = format!("{name}: {id} at {w} px{}", if titled { ", titled" } else { "" });
                    check_chart(&what, &c.svg, matches!(id, "busbw" | "hierarchy"));
                    if titled {
                        // The whole caption is there, in order, never cut.
                        let (texts, _) = layout(&c.svg);
                        let cap: Vec<&str> = texts.iter().filter(|t| t.role == "caption").map(|t| t.content.as_str()).collect();
                        assert_eq!(cap.join(" "), c.caption, "{what}");
                        let title: Vec<&str> = texts.iter().filter(|t| t.role == "title").map(|t| t.content.as_str()).collect();
                        assert_eq!(title.join(" "), c.title, "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn embeds_of_a_given_size_keep_their_text_too() {
    // ?embed= sizes: a 16:9 iframe at 400, 800 and 1400 px, and a phone.
    let s = Scenario::default();
    let r = evaluate(&s).expect("evaluates");
    let v = explore(&s.cluster, &s.training).ok();
    for (w, h) in [(400, 225), (800, 450), (1400, 788), (390, 700), (320, 180), (388, 126), (388, 60)] {
        for id in CHART_IDS {
            for titled in [false, true] {
                let Some(c) = render_chart(id, &s, &r, v.as_ref(), &Theme::dark(), w, h, titled) else { continue };
                check_chart(&format!("{id} at {w}x{h}{}", if titled { ", titled" } else { "" }), &c.svg, matches!(id, "busbw" | "hierarchy"));
            }
        }
    }
}

#[test]
fn the_throughput_chart_has_title_axes_with_units_and_a_legend_at_every_width() {
    let s = Scenario::new(Cluster { nodes: 2, ..Cluster::default() });
    let r = evaluate(&s).expect("evaluates");
    for w in WIDTHS {
        let c = render_chart("busbw", &s, &r, None, &Theme::light(), w, 0, true).expect("busbw");
        let (texts, plots) = layout(&c.svg);
        assert_eq!(plots.len(), 1);
        let all: String = texts.iter().map(|t| t.content.as_str()).collect::<Vec<_>>().join(" | ");
        for want in ["AllReduce busbw vs message size", "busbw, GB/s per direction", "message size", "inside one domain, 8 GPUs", "whole cluster, 16 GPUs", "1M", "16G"] {
            assert!(all.contains(want), "{w} px: no {want:?} in {all}");
        }
        // The legend sits above the plot, outside it.
        let legend: Vec<&Text> = texts.iter().filter(|t| t.role == "legend").collect();
        assert_eq!(legend.len(), 2, "{w} px: {all}");
        assert!(legend.iter().all(|t| t.bbox.3 <= plots[0].1), "{w} px: legend above the plot");
    }
}
