//! The pinned designs under the same latency targets (issue 39): when serving.html's link
//! carries compare.html's designs (`d=`), the planner answers the form's question on each, in
//! the page's worker with progress, and their fronts are overlaid on one chart with a row per
//! design: which one meets the targets on the fewest GPUs, and at how many tokens/s per GPU.

use super::plan_job::{plan_input, plan_key, PlanForm};
use super::plan_text::{cli_line, run_button, with_interval};
use super::wire::WorkerJob;
use crate::plumbing::staged::{use_staged, Done, Staged};
use crate::widgets::serving_choice::ServingChoice;
use crate::widgets::ChartSvg;
use fabricscope_charts::compare::design_label;
use fabricscope_charts::{plan_chart, PlanSeries, Theme};
use fabricscope_model::{Cluster, ModelError};
use fabricscope_serving::planner::{PlanRequest, PlanResult, StagedPlan};
use fabricscope_serving::serving_preset;
use std::rc::Rc;
use yew::prelude::*;

/// A pinned design: its name and cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct PinnedDesign {
    pub name: String,
    pub cluster: Cluster,
}

/// Each design's answer, or why it has none (a cluster that cannot host the model, say).
pub type Answers = Vec<Result<PlanResult, String>>;

/// The plans of every design, one after the other.
pub struct PlansStage {
    plans: Vec<Result<StagedPlan, String>>,
    at: usize,
}

impl PlansStage {
    pub fn new(requests: &[PlanRequest]) -> PlansStage {
        PlansStage { plans: requests.iter().map(|r| StagedPlan::new(r).map_err(|e| format!("{}: {}", e.field.replace('_', " "), e.message))).collect(), at: 0 }
    }
}

impl Staged for PlansStage {
    type Answer = Answers;
    fn step(&mut self, more: &mut dyn FnMut() -> bool) -> Result<Option<Answers>, ModelError> {
        while let Some(p) = self.plans.get_mut(self.at) {
            if let Ok(s) = p {
                match s.run(more) {
                    Ok(false) => return Ok(None),
                    Ok(true) => {}
                    Err(e) => *p = Err(format!("{}: {}", e.field.replace('_', " "), e.message)),
                }
            }
            self.at += 1;
            if !more() {
                return Ok(None);
            }
        }
        Ok(Some(self.plans.iter().map(|p| p.as_ref().map_err(Clone::clone).and_then(|s| s.result().cloned().ok_or_else(|| "not answered".to_string()))).collect()))
    }
    fn progress(&self) -> (usize, usize) {
        self.plans.iter().fold((0, 0), |(d, t), p| match p {
            Ok(s) => (d + s.progress().0, t + s.progress().1),
            Err(_) => (d, t),
        })
    }
}

/// A comparison's key: the designs' clusters, the choice's part that matters, the form.
type Key = (Vec<Cluster>, ServingChoice, PlanForm);

/// The requests for `key`, one per design.
pub fn requests((clusters, choice, form): &Key) -> Result<Vec<PlanRequest>, ModelError> {
    let model = serving_preset(choice.model).ok_or_else(|| ModelError::new("model", format!("unknown serving model {}", choice.model)))?;
    let input = plan_input(form, choice);
    Ok(clusters.iter().map(|c| PlanRequest { cluster: c.clone(), model: model.clone(), input: input.clone() }).collect())
}

fn make(key: &Key) -> Result<(PlansStage, String), ModelError> {
    let r = requests(key)?;
    let stage = PlansStage::new(&r);
    Ok((stage, WorkerJob::Plans(r).text()))
}

fn field_of(name: &str) -> &'static str {
    if name == "model" {
        "model"
    } else {
        "planner"
    }
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub designs: Rc<Vec<PinnedDesign>>,
    pub choice: ServingChoice,
    pub form: PlanForm,
    pub dark: bool,
    pub compact: bool,
}

/// A design's row: its smallest deployment, or why it has none.
fn row(i: usize, d: &PinnedDesign, a: &Result<PlanResult, String>) -> Html {
    let label = design_label(i, &d.name);
    let first = a.as_ref().ok().and_then(|r| r.deployments.first());
    let Some(x) = first else {
        let why = match a {
            Ok(r) => r.reason.clone().unwrap_or_else(|| "no deployment meets both targets".into()),
            Err(e) => e.clone(),
        };
        return html! { <tr data-design={i.to_string()} data-gpus="0"><th scope="row">{ label }</th><td colspan="5">{ why }</td></tr> };
    };
    let iv = x.intervals.as_ref();
    let with = with_interval;
    html! {
        <tr data-design={i.to_string()} data-gpus={x.gpus.to_string()} data-per-gpu={x.tokens_per_s_per_gpu.to_string()}>
            <th scope="row">{ label }</th>
            <td class="num">{ x.gpus }</td>
            <td>{ format!("{} {}", x.mode.id(), x.label()) }</td>
            <td class="num">{ format!("{:.0} ms / {:.1} ms", x.ttft_ms, x.tpot_ms) }</td>
            <td class="num">{ with(format!("{:.0}", x.tokens_per_s_per_gpu), iv.map(|i| &i.tokens_per_s_per_gpu)) }</td>
            <td class="num">{ with(format!("{:.1}", x.tokens_per_s_per_user), iv.map(|i| &i.tokens_per_s_per_user)) }</td>
        </tr>
    }
}

/// Which design meets the targets on the fewest GPUs, in words.
fn verdict(designs: &[PinnedDesign], answers: &Answers) -> String {
    let mut best: Vec<(usize, u32)> = answers.iter().enumerate().filter_map(|(i, a)| a.as_ref().ok().and_then(|r| r.deployments.first()).map(|d| (i, d.gpus))).collect();
    best.sort_by_key(|&(i, g)| (g, i));
    let name = |i: usize| designs.get(i).map_or_else(String::new, |d| design_label(i, &d.name));
    match best.as_slice() {
        [] => "No design meets both targets at this rate.".into(),
        [(i, g)] => format!("Only {} meets both targets at this rate, on {g} GPUs.", name(*i)),
        [(i, g), (j, h), ..] if g == h => format!("{} and {} meet both targets on {g} GPUs each.", name(*i), name(*j)),
        [(i, g), (j, h), ..] => format!("{} meets both targets on the fewest GPUs: {g}, against {h} for {}.", name(*i), name(*j)),
    }
}

#[function_component(ComparePlans)]
pub fn compare_plans(p: &Props) -> Html {
    let key: Key = (p.designs.iter().map(|d| d.cluster.clone()).collect(), plan_key(&p.choice), p.form);
    let (done, progress, start): (Option<Rc<Done<Key, Answers>>>, _, _) = use_staged(key, make, field_of);
    let running = progress.is_some();
    let svg = {
        let (done, designs) = (done.clone(), p.designs.clone());
        use_memo((done.as_ref().map(|x| Rc::as_ptr(x) as usize), p.dark, p.compact), move |(_, dark, compact)| {
            let Some(Ok(answers)) = done.as_ref().map(|d| &d.result) else { return AttrValue::default() };
            let series: Vec<PlanSeries> = answers.iter().enumerate().filter_map(|(i, a)| a.as_ref().ok().map(|plan| PlanSeries { label: designs.get(i).map_or_else(String::new, |d| design_label(i, &d.name)), plan })).collect();
            let (w, h) = if *compact { (400, 400) } else { (760, 440) };
            AttrValue::from(plan_chart(&series, w, h, &Theme::for_dark(*dark)))
        })
    };
    html! {
        <section aria-labelledby="plan-designs-h" data-testid="plan-designs" aria-busy={running.to_string()}>
            <h4 class="sub" id="plan-designs-h">{ format!("The {} pinned designs under the same targets", p.designs.len()) }</h4>
            <div class="toolbar" role="group" aria-labelledby="plan-designs-h">
                { run_button(("plan-designs-run", "plan-designs-status"), "Plan every pinned design", progress, &start) }
            </div>
            if let Some(d) = &done {
                { match &d.result {
                    Err(e) => html! { <p class="error" data-testid="plan-designs-result">{ format!("{}: {}", e.field, e.message) }</p> },
                    Ok(answers) => html! {
                        <>
                            <p data-testid="plan-designs-result" data-ms={format!("{:.0}", d.ms)}>{ format!("{} Planned in {:.2} s{}.", verdict(&p.designs, answers), d.ms / 1000.0, if d.off_thread { " in a background worker" } else { " on the page" }) }</p>
                            <figure class="serving-figure">
                                <div class="chart-svg" data-testid="plan-designs-chart"><ChartSvg svg={(*svg).clone()} /></div>
                                <figcaption class="muted small">{ "Each design's deployments meeting the targets, its Pareto front joined and its fewest-GPU deployment ringed." }</figcaption>
                            </figure>
                            <details class="hint" data-testid="plan-designs-cli">
                                <summary>{ "The same plans in the terminal, one line per design" }</summary>
                                { for p.designs.iter().enumerate().map(|(i, d)| html! { <p><code>{ format!("# {}\n{}", design_label(i, &d.name), cli_line(&d.cluster, &p.choice, &p.form)) }</code></p> }) }
                            </details>
                            <div class="table-scroll" tabindex="0" role="region" aria-labelledby="plan-designs-h">
                                <table data-testid="plan-designs-table">
                                    <caption class="muted">{ "Each design's smallest deployment meeting both targets (under each figure, its 90% interval)" }</caption>
                                    <thead><tr>
                                        <th scope="col">{ "Design" }</th>
                                        <th scope="col" class="num">{ "GPUs" }</th>
                                        <th scope="col">{ "Deployment" }</th>
                                        <th scope="col" class="num">{ "TTFT / TPOT" }</th>
                                        <th scope="col" class="num">{ "Tokens/s per GPU" }</th>
                                        <th scope="col" class="num">{ "Tokens/s per user" }</th>
                                    </tr></thead>
                                    <tbody>{ for p.designs.iter().zip(answers).enumerate().map(|(i, (d, a))| row(i, d, a)) }</tbody>
                                </table>
                            </div>
                        </>
                    },
                } }
            }
        </section>
    }
}
