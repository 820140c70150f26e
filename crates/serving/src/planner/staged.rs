//! The planner in slices, for a page's worker: the layouts' step curves (nearly all of the
//! work) are built a few at a time between progress reports, then the queueing arithmetic
//! answers at once. The answer is [`crate::planner::plan`]'s.

use crate::model::ServingModel;
use crate::planner::input::{PlanInput, PlanRequest};
use crate::planner::layout::{curve, layouts, Layout, LayoutCurve};
use crate::planner::output::PlanResult;
use crate::planner::{answer, gpus_of};
use crate::step::Server;
use fabricscope_model::error::Result;
use fabricscope_model::Topology;

/// A plan under way; it owns its question.
pub struct StagedPlan {
    topo: Topology,
    model: ServingModel,
    input: PlanInput,
    todo: Vec<Layout>,
    next: usize,
    curves: Vec<LayoutCurve>,
    result: Option<PlanResult>,
}

impl StagedPlan {
    /// Checks the question and lists the layouts to try.
    pub fn new(r: &PlanRequest) -> Result<StagedPlan> {
        r.input.check()?;
        r.model.validate()?;
        let topo = r.cluster.topology()?;
        let todo = layouts(&r.model, gpus_of(&topo, &r.input));
        Ok(StagedPlan { topo, model: r.model.clone(), input: r.input.clone(), todo, next: 0, curves: Vec::new(), result: None })
    }

    /// (layouts done, layouts in all).
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.todo.len())
    }

    /// Builds curves while `more()` (at least one per call), then answers; true once answered.
    pub fn run(&mut self, more: &mut dyn FnMut() -> bool) -> Result<bool> {
        if self.result.is_some() {
            return Ok(true);
        }
        let mut server = Server::new(&self.topo, &self.model)?;
        while self.next < self.todo.len() {
            let l = self.todo[self.next];
            self.next += 1;
            if let Some(c) = curve(&mut server, l, &self.input) {
                self.curves.push(c);
            }
            if !more() {
                return Ok(false);
            }
        }
        let refused = self.todo.len() - self.curves.len();
        self.result = Some(answer(&self.topo, &self.model, &self.input, std::mem::take(&mut self.curves), refused));
        Ok(true)
    }

    /// The answer, once [`StagedPlan::run`] returned true.
    pub fn result(&self) -> Option<&PlanResult> {
        self.result.as_ref()
    }
    pub fn into_result(self) -> Option<PlanResult> {
        self.result
    }
}
