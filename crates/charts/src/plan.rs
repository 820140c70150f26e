//! The serving planner's chart: every deployment that meets the targets at the rate as a point
//! of output tokens/s per user (x) against output tokens/s per GPU (y), the Pareto front joined,
//! aggregated replicas as circles and disaggregated pools as squares, the smallest deployment
//! (fewest GPUs) ringed. One series per design: serving.html draws one, compare.html overlays
//! the designs' fronts under the same targets, `serve --search --rate ... --svg` writes the same.

use crate::pareto::{grid, tick_label, ticks};
use crate::svg::{error_svg, escape, Axis, Doc};
use crate::theme::Theme;
use fabricscope_serving::planner::{Mode, PlanDeployment, PlanResult};
use std::fmt::Write;

/// Below this width, pixels, the legend keeps short texts (a phone's 400 px chart).
const NARROW_PX: u32 = 600;

/// One design's answer under a label ("A · GB200 NVL72").
pub struct PlanSeries<'a> {
    pub label: String,
    pub plan: &'a PlanResult,
}

/// (tokens/s per user, tokens/s per GPU) of a deployment.
fn xy(d: &PlanDeployment) -> (f64, f64) {
    (d.tokens_per_s_per_user, d.tokens_per_s_per_gpu)
}

/// What a point's hover title says.
fn title(series: &str, d: &PlanDeployment) -> String {
    format!(
        "{series}{}{} {} on {} GPUs: {:.0} tokens/s per GPU, {:.1} per user, TTFT {:.0} ms, TPOT {:.1} ms",
        if series.is_empty() { "" } else { ": " },
        d.mode.id(),
        d.label(),
        d.gpus,
        d.tokens_per_s_per_gpu,
        d.tokens_per_s_per_user,
        d.ttft_ms,
        d.tpot_ms
    )
}

/// A point: a circle (aggregated) or a square (disaggregated), titled.
fn mark(d: &mut Doc, (x, y): (f64, f64), disaggregated: bool, color: &str, front: bool, title: &str) {
    let opacity = if front { "1" } else { "0.5" };
    let r = if front { 4.5 } else { 3.5 };
    if disaggregated {
        let _ = write!(d.s, "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{color}\" fill-opacity=\"{opacity}\"><title>{}</title></rect>", x - r, y - r, 2.0 * r, 2.0 * r, escape(title));
    } else {
        let _ = write!(d.s, "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r}\" fill=\"{color}\" fill-opacity=\"{opacity}\"><title>{}</title></circle>", escape(title));
    }
}

/// The chart, `width` x `height` pixels.
pub fn plan_chart(series: &[PlanSeries], width: u32, height: u32, theme: &Theme) -> String {
    let (w, h) = (width.clamp(320, 4000), height.clamp(200, 4000));
    let narrow = w < NARROW_PX;
    let all: Vec<(f64, f64)> = series.iter().flat_map(|s| s.plan.deployments.iter().chain(&s.plan.pareto).map(xy)).filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
    if all.is_empty() {
        return error_svg(w, h, theme, "no deployment meets the targets at this rate");
    }
    let fold = |f: fn(&(f64, f64)) -> f64, max: bool| all.iter().map(f).fold(if max { f64::MIN } else { f64::MAX }, if max { f64::max } else { f64::min });
    let (x0, x1, xt) = ticks(fold(|p| p.0, false) * 0.95, fold(|p| p.0, true) * 1.05);
    let (y0, y1, yt) = ticks(0.0, fold(|p| p.1, true) * 1.05);
    let legend_rows = series.len() + 1;
    let (left, right, top, bottom) = (62.0, w as f64 - 16.0, 16.0 + 16.0 * legend_rows as f64, h as f64 - 46.0);
    let (ax, ay) = (Axis::new(x0, x1, left, right), Axis::new(y0, y1, bottom, top));
    let px = |p: (f64, f64)| (ax.px(p.0), ay.px(p.1));
    let mut d = Doc::new(w, h, theme);
    let text = theme.text.hex();
    grid(&mut d, (&ax, &ay), (&xt, &yt), (left, right, top, bottom), theme, &tick_label);
    d.text((left + right) / 2.0, h as f64 - 10.0, 12.0, "middle", "middle", &text, 400, "output tokens/s per user (1000 / TPOT)");
    let mid = (top + bottom) / 2.0;
    let _ = write!(d.s, "<text x=\"14\" y=\"{mid:.1}\" font-size=\"12\" text-anchor=\"middle\" fill=\"{text}\" transform=\"rotate(-90 14 {mid:.1})\">output tokens/s per GPU at the rate</text>");
    for (i, s) in series.iter().enumerate() {
        let color = theme.series_color(i).hex();
        let mut front: Vec<(f64, f64)> = s.plan.pareto.iter().map(xy).collect();
        front.sort_by(|a, b| a.0.total_cmp(&b.0));
        let line: Vec<(f64, f64)> = front.iter().map(|p| px(*p)).collect();
        let _ = write!(d.s, "<g data-series=\"{i}\" data-front=\"{}\">", s.plan.pareto.len());
        d.polyline(&line, &color, 1.5);
        for dep in s.plan.deployments.iter().filter(|dep| !s.plan.pareto.contains(dep)) {
            mark(&mut d, px(xy(dep)), dep.mode == Mode::Disaggregated, &color, false, &title(&s.label, dep));
        }
        for dep in &s.plan.pareto {
            mark(&mut d, px(xy(dep)), dep.mode == Mode::Disaggregated, &color, true, &title(&s.label, dep));
        }
        if let Some(first) = s.plan.deployments.first() {
            let (cx, cy) = px(xy(first));
            d.circle(cx, cy, 8.0, "none", &text, 1.5);
        }
        d.s.push_str("</g>");
        let y = 14.0 + 16.0 * i as f64;
        d.seg(left, y, left + 18.0, y, &color, 2.5);
        // A phone's chart keeps the count only: the deployment is in the table under it.
        let smallest = s.plan.deployments.first().map_or("none meets the targets".to_string(), |f| if narrow { format!("fewest GPUs: {} (ringed)", f.gpus) } else { format!("fewest GPUs: {} ({}, ringed)", f.gpus, f.label()) });
        // A front drawn over an earlier design's identical one hides it: say so.
        let same = series[..i].iter().find(|e| !s.plan.pareto.is_empty() && e.plan.pareto.iter().map(xy).eq(s.plan.pareto.iter().map(xy))).map_or(String::new(), |e| format!("; the same front as {}", e.label.split(" · ").next().unwrap_or_default()));
        let label = if s.label.is_empty() { smallest } else { format!("{}: {smallest}{same}", s.label) };
        d.text_role(left + 24.0, y, 11.0, "start", "middle", &text, 400, &label, "legend");
    }
    d.flush();
    let y = 14.0 + 16.0 * series.len() as f64;
    let muted = theme.muted.hex();
    let (second, agg, disagg) = if narrow { (95.0, "aggregated", "disaggregated; line: the front") } else { (150.0, "aggregated replicas", "disaggregated prefill + decode pools; line: the Pareto front") };
    mark(&mut d, (left + 5.0, y), false, &muted, true, "aggregated");
    d.text_role(left + 14.0, y, 11.0, "start", "middle", &text, 400, agg, "legend");
    mark(&mut d, (left + second, y), true, &muted, true, "disaggregated");
    d.text_role(left + second + 9.0, y, 11.0, "start", "middle", &text, 400, disagg, "legend");
    d.finish("Deployments meeting the latency targets: tokens/s per GPU against per user")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::svg::texts;
    use fabricscope_model::Cluster;
    use fabricscope_serving::planner::{plan_request, PlanInput, PlanRequest};

    fn answer(rate: f64, tpot_ms: f64) -> PlanResult {
        let model = fabricscope_serving::serving_preset("llama3-70b").unwrap();
        let input = PlanInput { rate, tpot_ms, ..PlanInput::default() };
        plan_request(&PlanRequest { cluster: Cluster { nodes: 8, ..Cluster::default() }, model, input }).unwrap()
    }

    #[test]
    fn draws_every_listed_deployment_and_rings_the_smallest() {
        let r = answer(20.0, 50.0);
        assert!(!r.deployments.is_empty() && !r.pareto.is_empty());
        let svg = plan_chart(&[PlanSeries { label: String::new(), plan: &r }], 760, 420, &Theme::light());
        // Every distinct deployment of the list and the front is one titled mark; the two
        // legend marks and the chart's own title are the others.
        let mut distinct: Vec<&PlanDeployment> = r.deployments.iter().collect();
        distinct.extend(r.pareto.iter().filter(|p| !r.deployments.contains(p)));
        let marks = svg.matches("<title>").count();
        assert_eq!(marks, distinct.len() + 3, "{marks} marks for {} deployments", distinct.len());
        let t = texts(&svg);
        let first = &r.deployments[0];
        assert!(t.iter().any(|s| s == &format!("fewest GPUs: {} ({}, ringed)", first.gpus, first.label())), "{t:?}");
        assert!(svg.contains(&format!("data-front=\"{}\"", r.pareto.len())));
    }

    #[test]
    fn overlays_two_designs_and_says_when_none_meets() {
        let (a, none) = (answer(20.0, 50.0), answer(20.0, 0.5));
        assert!(none.deployments.is_empty());
        let svg = plan_chart(&[PlanSeries { label: "A".into(), plan: &a }, PlanSeries { label: "B".into(), plan: &none }], 760, 420, &Theme::dark());
        let t = texts(&svg);
        assert!(t.iter().any(|s| s == "B: none meets the targets"), "{t:?}");
        assert!(t.iter().any(|s| s.starts_with("A: fewest GPUs")), "{t:?}");
        // Two designs with one front: the second says it hides the first.
        let twins = plan_chart(&[PlanSeries { label: "B".into(), plan: &a }, PlanSeries { label: "C".into(), plan: &a }], 760, 420, &Theme::light());
        assert!(texts(&twins).iter().any(|s| s.starts_with("C: fewest GPUs") && s.ends_with("; the same front as B")), "{:?}", texts(&twins));
        let empty = plan_chart(&[PlanSeries { label: String::new(), plan: &none }], 760, 420, &Theme::light());
        assert!(texts(&empty).iter().any(|s| s.contains("no deployment meets")), "{:?}", texts(&empty));
    }
}
