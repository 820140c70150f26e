//! The serving panel's inputs and work: the deployment the user chose (plain data), what the
//! serving model makes of it on the page's cluster (its report, its curve as batch grows and
//! the counterpart across the NVLink boundary), and the TP x EP x DP x batch search, run when
//! asked in slices of at most [`SLICE_MS`] each in its own task, with progress.

use crate::training::SLICE_MS;
use fabricscope_model::{Cluster, ModelError};
use fabricscope_serving::curve::{group, with_counterpart, Curve, Group};
use fabricscope_serving::search::StagedSearch;
use fabricscope_serving::step::{ServeReport, Server};
use fabricscope_serving::{serving_preset, Deployment, Phase, Precision, SearchOptions, SearchResult};
use gloo_timers::callback::Timeout;
use std::cell::Cell;
use std::rc::Rc;
use yew::prelude::*;

/// What the user chose in the panel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServingChoice {
    /// A serving preset id (`fabricscope_serving::SERVING_PRESETS`).
    pub model: &'static str,
    pub phase: Phase,
    pub tp: u32,
    pub ep: u32,
    pub dp: u32,
    /// Sequences per attention DP rank.
    pub batch: u32,
    /// Tokens of KV cache per sequence (decode).
    pub context: u32,
    /// Prompt tokens per request.
    pub input_len: u32,
    pub precision: Precision,
    pub disaggregated: bool,
}

impl Default for ServingChoice {
    fn default() -> Self {
        ServingChoice { model: "llama3-70b", phase: Phase::Decode, tp: 8, ep: 1, dp: 1, batch: 32, context: 2048, input_len: 1024, precision: Precision::Bf16, disaggregated: false }
    }
}

impl ServingChoice {
    /// What a search depends on: the choice without the layout and batch it searches.
    pub fn search_key(&self) -> ServingChoice {
        ServingChoice { phase: Phase::Decode, tp: 1, ep: 1, dp: 1, batch: 1, ..*self }
    }
    pub fn deployment(&self) -> Deployment {
        Deployment {
            phase: self.phase,
            tp: self.tp,
            ep: self.ep,
            dp: self.dp,
            batch: self.batch,
            context: self.context,
            input_len: self.input_len,
            precision: self.precision,
            disaggregated: self.disaggregated,
            ..Deployment::default()
        }
    }
}

/// What the model makes of a choice on a cluster.
#[derive(Debug, PartialEq)]
pub struct Served {
    pub report: ServeReport,
    /// The deployment's curve, then its counterpart across the NVLink boundary (if valid).
    pub curves: Vec<Curve>,
    pub group: Group,
    /// GPUs in one NVLink (scale-up) domain.
    pub domain_gpus: u32,
}

/// Evaluates `choice` on `cluster`: about 30 configurations (the curve and its counterpart).
pub fn serve(cluster: &Cluster, choice: &ServingChoice) -> Result<Served, ModelError> {
    let topo = cluster.topology()?;
    let model = serving_preset(choice.model).ok_or_else(|| ModelError::new("model", format!("unknown serving model {}", choice.model)))?;
    let d = choice.deployment();
    let report = Server::new(&topo, &model)?.evaluate(&d)?;
    let curves = with_counterpart(&topo, &model, &d)?;
    Ok(Served { report, curves, group: group(&topo, &model, &d), domain_gpus: topo.domain_gpus })
}

/// A search's answer and the inputs it answers.
pub struct Found {
    pub key: (Cluster, ServingChoice, u32),
    pub result: Result<SearchResult, ModelError>,
}

/// The answer for the current inputs (if asked for and done), the progress while running
/// (deployments tried, in all), and the callback that starts it.
pub type Search = (Option<Rc<Found>>, Option<(usize, usize)>, Callback<()>);

struct Job {
    key: (Cluster, ServingChoice, u32),
    search: StagedSearch,
    my: u64,
    gen: Rc<Cell<u64>>,
    result: UseStateHandle<Option<Rc<Found>>>,
    progress: UseStateHandle<Option<(usize, usize)>>,
}

impl Job {
    fn done(self, result: Result<SearchResult, ModelError>) {
        self.progress.set(None);
        self.result.set(Some(Rc::new(Found { key: self.key, result })));
    }

    fn slice(mut self) {
        if self.gen.get() != self.my {
            return;
        }
        let start = js_sys::Date::now();
        let ready = self.key.0.topology().and_then(|t| Ok((t, serving_preset(self.key.1.model).ok_or_else(|| ModelError::new("model", "unknown serving model"))?)));
        let (topo, model) = match ready {
            Ok(x) => x,
            Err(e) => return self.done(Err(e)),
        };
        match self.search.run(&topo, &model, &mut || js_sys::Date::now() - start < SLICE_MS) {
            Ok(true) => {
                let r = self.search.result().clone();
                self.done(Ok(r))
            }
            Ok(false) => {
                self.progress.set(Some(self.search.progress()));
                Timeout::new(0, move || self.slice()).forget();
            }
            Err(e) => self.done(Err(e)),
        }
    }
}

/// The search for `choice`'s model on `cluster` at `target` output tokens/s per user (decode,
/// batch up to 4096), started by the returned callback; a change of input stops it.
#[hook]
pub fn use_serving_search(cluster: Cluster, choice: ServingChoice, target: u32) -> Search {
    let choice = choice.search_key();
    let result = use_state(|| None::<Rc<Found>>);
    let progress = use_state_eq(|| None::<(usize, usize)>);
    let gen = use_mut_ref(|| Rc::new(Cell::new(0u64))).borrow().clone();
    {
        let (gen, progress) = (gen.clone(), progress.clone());
        use_effect_with((cluster.clone(), choice, target), move |_| {
            gen.set(gen.get() + 1);
            progress.set(None);
        });
    }
    let start = {
        let (result, progress, cluster) = (result.clone(), progress.clone(), cluster.clone());
        Callback::from(move |_| {
            gen.set(gen.get() + 1);
            let key = (cluster.clone(), choice, target);
            let opts = SearchOptions { base: Deployment { phase: Phase::Decode, ..choice.deployment() }, min_tokens_per_s_per_user: target as f64, max_batch: 4096, max_gpus: None };
            let made = cluster.topology().and_then(|t| {
                let m = serving_preset(choice.model).ok_or_else(|| ModelError::new("model", "unknown serving model"))?;
                StagedSearch::new(&t, &m, opts)
            });
            match made {
                Ok(search) => {
                    progress.set(Some(search.progress()));
                    let job = Job { key, search, my: gen.get(), gen: gen.clone(), result: result.clone(), progress: progress.clone() };
                    Timeout::new(0, move || job.slice()).forget();
                }
                Err(e) => result.set(Some(Rc::new(Found { key, result: Err(e) }))),
            }
        })
    };
    let current = (*result).clone().filter(|f| (&f.key.0, f.key.1, f.key.2) == (&cluster, choice, target));
    (current, *progress, start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_choice_serves_on_the_default_cluster_with_its_counterpart() {
        let c = Cluster { nodes: 2, ..Cluster::default() };
        let s = serve(&c, &ServingChoice::default()).unwrap();
        assert_eq!(s.curves.len(), 2);
        assert!(!s.group.crosses && s.curves[1].group.crosses);
        // An invalid split names its field.
        let e = serve(&c, &ServingChoice { tp: 3, ..ServingChoice::default() }).unwrap_err();
        assert_eq!(e.field, "tp");
    }
}
