//! The parallel layout: sizes of TP, CP, DP, PP and EP; the rank order that lays them onto
//! GPUs; and from that, which GPUs every communication group spans, how many sit in each
//! scale-up domain, which tier the group's traffic crosses, and how many groups share the
//! domain's NICs at once.
//!
//! Rank order follows Megatron-LM (`RankGenerator`, order "tp-cp-ep-dp-pp"): global rank
//! `r = tp_i + TP (cp_i + CP (dp_i + DP pp_i))` for the default order, TP innermost. GPUs are
//! numbered node-major, so ranks `0..domain` fill the first NVLink domain. The expert layers
//! re-partition each stage's TP x CP x DP GPUs into expert-TP x EP x expert-DP (parallel
//! folding; expert TP 1 unless set, see [`Parallel::etp`]): an EP group is `EP` consecutive
//! expert-TP blocks. Without folding EP takes the innermost `EP` factor of the DP digit and
//! the expert-data-parallel group (which reduces expert gradients) is the rest of DP x CP.

use super::framework::Framework;
use super::workload::{divisors, list, Workload};
use crate::error::{ModelError, Result};
use crate::topology::{Placement, TierKind, Topology};
pub use super::rank_order::{Dim, RankOrder};
use serde::{Deserialize, Serialize};

/// Activation recomputation (Korthikanti et al. 2022).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recompute {
    /// Keep every activation.
    None,
    /// Recompute the attention core (scores, softmax, dropout) only.
    #[default]
    Selective,
    /// Keep each layer's input; rerun the whole layer forward before its backward.
    Full,
}

impl Recompute {
    pub const ALL: [Recompute; 3] = [Recompute::None, Recompute::Selective, Recompute::Full];
    pub fn id(self) -> &'static str {
        match self {
            Recompute::None => "none",
            Recompute::Selective => "selective",
            Recompute::Full => "full",
        }
    }
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.id() == id.to_ascii_lowercase())
    }
}

/// A parallel configuration of one training job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Parallel {
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
    pub cp: u32,
    /// Expert parallelism, carved out of DP (must divide DP and the expert count).
    pub ep: u32,
    /// Sequences per micro-batch.
    pub micro_batch: u32,
    /// Virtual pipeline stages per GPU (interleaved 1F1B); 1 is plain 1F1B.
    pub interleave: u32,
    pub recompute: Recompute,
    /// ZeRO stage over the data-parallel group: 0 none, 1 optimizer states (Megatron's
    /// distributed optimizer), 2 and gradients, 3 and parameters (FSDP).
    pub zero: u8,
    /// Sequence parallelism inside the TP group (Korthikanti et al. 2022).
    pub sequence_parallel: bool,
    pub order: RankOrder,
    /// Tensor parallelism of the expert layers; 0 leaves it to [`Parallel::etp`]'s default.
    /// Megatron-Core's MoE "parallel folding" (Liu et al. 2025, arXiv:2504.14960; Megatron-Core
    /// MoE docs, `--expert-tensor-parallel-size`) re-partitions each pipeline stage's
    /// TP x CP x DP GPUs into expert-TP x EP x expert-DP for the expert layers, so EP may span
    /// TP and CP ranks: DeepSeek-V3's TP 2, EP 64 with expert-TP 1 on 512 GPUs.
    #[serde(skip_serializing_if = "is_zero")]
    pub expert_tp: u32,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl Default for Parallel {
    fn default() -> Self {
        Parallel {
            tp: 1,
            pp: 1,
            dp: 1,
            cp: 1,
            ep: 1,
            micro_batch: 1,
            interleave: 1,
            recompute: Recompute::Selective,
            zero: 1,
            sequence_parallel: true,
            order: RankOrder::default(),
            expert_tp: 0,
        }
    }
}

/// Largest size of any one parallel dimension accepted ([`crate::limits::PARALLEL`]).
pub const MAX_PARALLEL: u32 = crate::limits::PARALLEL as u32;

impl Parallel {
    /// Tensor parallelism of the expert layers. Unset (`expert_tp` 0) with EP it is 1, as
    /// NVIDIA's published MoE recipes set it: every Megatron-Bridge MoE preset
    /// (`expert_tensor_parallel_size=1`), NeMo 2's recommended configs (v2.3.0/v2.4.0
    /// `scripts/performance/recommended_model_configs`, `etp_size` 1 wherever TP > 1) and the
    /// Megatron-MoE-ModelZoo. Without EP (and so for dense models) it is the dense TP,
    /// Megatron-Core's flag default.
    // Not inlined: it has many callers, and one copy keeps the compare page within budget.
    #[inline(never)]
    pub fn etp(&self) -> u32 {
        Self::expert_tp_of(self.tp, self.ep, self.expert_tp)
    }
    /// [`Parallel::etp`] of a layout with these sizes (`expert_tp` 0 unset), for the search.
    pub fn expert_tp_of(tp: u32, ep: u32, expert_tp: u32) -> u32 {
        match expert_tp {
            0 if ep > 1 => 1,
            0 => tp,
            e => e,
        }
    }
    /// Expert layers fold EP over TP and CP ranks (not only inside DP): the expert TP differs
    /// from TP, or EP does not divide DP.
    pub fn folded(&self) -> bool {
        self.etp() != self.tp || !self.dp.is_multiple_of(self.ep.max(1))
    }
    /// Whether EP `ep` with expert TP `etp` tiles a stage of TP x CP x DP (the search's
    /// filter; Megatron-Core's parallel folding).
    pub fn ep_fits(tp: u32, cp: u32, dp: u32, etp: u32, ep: u32) -> bool {
        (tp as u64 * cp as u64 * dp as u64).is_multiple_of(etp as u64 * ep as u64)
    }
    /// Expert-data-parallel size: the stage's TP x CP x DP GPUs over expert-TP x EP.
    pub fn expert_dp(&self) -> f64 {
        (self.tp as f64 * self.cp as f64 * self.dp as f64) / (self.etp() as f64 * self.ep.max(1) as f64)
    }
    pub fn gpus(&self) -> u64 {
        self.tp as u64 * self.pp as u64 * self.dp as u64 * self.cp as u64
    }
    /// Layers on pipeline stage `s`: as even as possible; when `pp` does not divide the layer
    /// count, the first and last stages (which also hold the embedding and the output layer)
    /// take one layer fewer first, then the second and second-to-last, and so on
    /// (Megatron's `--decoder-first/last-pipeline-num-layers`).
    pub fn stage_layers(&self, layers: u32, s: u32) -> u32 {
        let pp = self.pp.max(1);
        let base = layers.div_ceil(pp);
        let deficit = base * pp - layers;
        base - u32::from(stage_deficit_rank(s, pp) < deficit)
    }
    /// First layer index of stage `s`.
    pub fn stage_first_layer(&self, layers: u32, s: u32) -> u32 {
        (0..s).map(|i| self.stage_layers(layers, i)).sum()
    }
    /// Micro-batches per step per pipeline.
    pub fn micro_batches(&self, w: &Workload) -> u32 {
        (w.global_batch as u64 / (self.dp.max(1) as u64 * self.micro_batch.max(1) as u64)) as u32
    }
    /// Sequence parallelism actually in effect (only meaningful with TP > 1; MoE layers with
    /// TP > 1 always run it, as Megatron-Core requires).
    pub fn sp(&self, w: &Workload) -> bool {
        self.tp > 1 && (self.sequence_parallel || w.moe.is_some())
    }

    /// Checks this layout against the job and the cluster; each error names the constraint
    /// and the values that would satisfy it.
    pub fn validate(&self, w: &Workload, gpus: u32) -> Result<()> {
        self.validate_for(w, gpus, &Framework::default())
    }

    /// [`Parallel::validate`] under a framework's pipeline schedule: interleaving only where
    /// the engine has it, with any number of micro-batches where it allows
    /// (`flexible_interleave`, Llama 3's) or multiples of PP.
    pub fn validate_for(&self, w: &Workload, gpus: u32, fw: &Framework) -> Result<()> {
        let flexible_interleave = fw.flexible_interleave;
        if self.interleave > 1 && !fw.pipeline_interleave {
            return Err(ModelError::new(
                "interleave",
                format!("{}'s pipeline engine runs plain 1F1B, without interleaved stages: use interleave 1", fw.name),
            ));
        }
        use crate::limits::{CP, DP, EP, EXPERT_TP, INTERLEAVE, MICRO_BATCH, PP, TP};
        for (limit, v) in [(TP, self.tp), (PP, self.pp), (DP, self.dp), (CP, self.cp), (EP, self.ep), (MICRO_BATCH, self.micro_batch), (INTERLEAVE, self.interleave)] {
            limit.check_u32(v)?;
        }
        // 0: the expert layers take the dense TP.
        if self.expert_tp != 0 {
            EXPERT_TP.check_u32(self.expert_tp)?;
        }
        if self.zero > 3 {
            return Err(ModelError::new("zero", format!("the ZeRO stage must be 0, 1, 2 or 3; got {}", self.zero)));
        }
        let fits = |d: u32| gpus.is_multiple_of(d);
        if !w.heads.is_multiple_of(self.tp) || !w.kv_heads.is_multiple_of(self.tp) {
            let heads_ok: Vec<u32> = divisors(w.kv_heads.min(w.heads)).into_iter().filter(|d| w.heads.is_multiple_of(*d) && fits(*d)).collect();
            let what = if !w.heads.is_multiple_of(self.tp) {
                format!("{} attention heads", w.heads)
            } else {
                format!("{} key/value heads (each TP rank needs whole KV heads)", w.kv_heads)
            };
            return Err(ModelError::new("tp", format!("tp {} does not divide the {what}; valid tp: {}", self.tp, list(&heads_ok))));
        }
        if !w.ffn.is_multiple_of(self.tp) {
            return Err(ModelError::new("tp", format!("tp {} does not divide the feed-forward size {}; valid tp: {}", self.tp, w.ffn, list(&divisors(w.ffn).into_iter().filter(|d| w.heads.is_multiple_of(*d) && fits(*d)).collect::<Vec<_>>()))));
        }
        if let Some(m) = w.moe {
            if m.expert_ffn % self.tp != 0 {
                return Err(ModelError::new("tp", format!("tp {} does not divide the expert feed-forward size {}", self.tp, m.expert_ffn)));
            }
        }
        if self.gpus() != gpus as u64 {
            let others = self.tp as u64 * self.pp as u64 * self.cp as u64;
            let tc = self.tp as u64 * self.cp as u64;
            let (field, hint) = if others > 0 && (gpus as u64).is_multiple_of(others) {
                ("dp", format!("; with tp={}, pp={}, cp={} use dp={}", self.tp, self.pp, self.cp, gpus as u64 / others))
            } else if (gpus as u64).is_multiple_of(tc) {
                let pps = divisors((gpus as u64 / tc) as u32);
                ("pp", format!("; tp x pp x cp = {others} does not divide {gpus}: valid pp with tp={}, cp={}: {}", self.tp, self.cp, list(&pps)))
            } else {
                ("tp", format!("; tp x cp = {tc} does not divide {gpus}: valid tp: {}", list(&divisors(gpus))))
            };
            return Err(ModelError::new(
                field,
                format!(
                    "tp x pp x dp x cp = {} x {} x {} x {} = {} must equal the cluster's {gpus} GPUs{hint}",
                    self.tp,
                    self.pp,
                    self.dp,
                    self.cp,
                    self.gpus()
                ),
            ));
        }
        if self.pp > w.layers {
            return Err(ModelError::new("pp", format!("pp {} is more than the {} layers; every stage needs at least one layer", self.pp, w.layers)));
        }
        // Interleaved chunks need not be equal: Megatron-Core places uneven layer counts with
        // `--decoder-first/last-pipeline-num-layers` and virtual stages alike; every chunk
        // needs a layer, or the embedding or the output layer, which may fill a chunk of their
        // own (Llama 3 §3.3.2: 126 layers on 16 x 8 chunks, the first holding only the
        // embedding and the last only the output and loss; Megatron-Core's
        // `--account-for-embedding/loss-in-pipeline-split`).
        if self.interleave > 1 && (w.layers as u64 + 2) < self.pp as u64 * self.interleave as u64 {
            return Err(ModelError::new(
                "interleave",
                format!(
                    "{} layers, the embedding and the output layer cannot fill pp x interleave = {} x {} chunks; use interleave at most {}",
                    w.layers,
                    self.pp,
                    self.interleave,
                    ((w.layers + 2) / self.pp).max(1)
                ),
            ));
        }
        if self.interleave > 1 && self.pp == 1 {
            return Err(ModelError::new("interleave", "interleaved stages need pipeline parallelism: use interleave 1 with pp 1"));
        }
        let per_replica = self.dp as u64 * self.micro_batch as u64;
        if !(w.global_batch as u64).is_multiple_of(per_replica) {
            let valid_mb: Vec<u32> = if w.global_batch.is_multiple_of(self.dp) { divisors(w.global_batch / self.dp) } else { Vec::new() };
            let msg = if valid_mb.is_empty() {
                format!(
                    "the global batch {} is not divisible by dp {}; use a multiple of {} (dp that divide {}: {})",
                    w.global_batch,
                    self.dp,
                    self.dp,
                    w.global_batch,
                    list(&divisors(w.global_batch).into_iter().filter(|d| fits(*d)).collect::<Vec<_>>())
                )
            } else {
                format!(
                    "the global batch {} is not divisible by micro-batch x dp = {} x {}; valid micro-batches: {}",
                    w.global_batch,
                    self.micro_batch,
                    self.dp,
                    list(&valid_mb)
                )
            };
            return Err(ModelError::new(if valid_mb.is_empty() { "global_batch" } else { "micro_batch" }, msg));
        }
        let m = self.micro_batches(w);
        if self.interleave > 1 && !flexible_interleave && !m.is_multiple_of(self.pp) {
            return Err(ModelError::new(
                "interleave",
                format!(
                    "the interleaved schedule needs the {m} micro-batches per pipeline to be a multiple of pp {}; use interleave 1 or a micro-batch that gives a multiple",
                    self.pp
                ),
            ));
        }
        if self.cp > 1 && !w.seq.is_multiple_of(2 * self.cp) {
            let valid: Vec<u32> = divisors(w.seq / 2).into_iter().filter(|c| fits(*c)).collect();
            return Err(ModelError::new(
                "cp",
                format!("cp {} must divide half the sequence length {} (load-balanced causal chunks); valid cp: {}", self.cp, w.seq, list(&valid)),
            ));
        }
        let stage = self.tp as u64 * self.cp as u64 * self.dp as u64;
        match w.moe {
            None if self.ep > 1 || self.expert_tp > 1 => {
                let field = if self.ep > 1 { "ep" } else { "expert_tp" };
                return Err(ModelError::new(field, format!("{field} {} needs a mixture-of-experts model; a dense model takes 1", self.ep.max(self.expert_tp))));
            }
            Some(moe) => {
                let etp = self.etp();
                if !moe.expert_ffn.is_multiple_of(etp) {
                    return Err(ModelError::new("expert_tp", format!("expert tp {etp} does not divide the expert feed-forward size {}", moe.expert_ffn)));
                }
                // Parallel folding: expert-TP x EP must tile the stage's TP x CP x DP GPUs.
                let fits_ep = |e: u32| moe.experts.is_multiple_of(e) && stage.is_multiple_of(etp as u64 * e as u64);
                if !fits_ep(self.ep) {
                    let valid: Vec<u32> = divisors(moe.experts).into_iter().filter(|e| fits_ep(*e)).collect();
                    // A smaller expert TP (parallel folding) that would make this EP valid.
                    let folding = (1..etp)
                        .rev()
                        .find(|t| moe.expert_ffn.is_multiple_of(*t) && moe.experts.is_multiple_of(self.ep) && stage.is_multiple_of(*t as u64 * self.ep as u64))
                        .map(|t| format!("; or expert tp {t}"))
                        .unwrap_or_default();
                    return Err(ModelError::new(
                        "ep",
                        format!(
                            "ep {} must divide the {} experts, and expert-tp x ep = {} x {} must divide the stage's tp x cp x dp = {stage} GPUs; valid ep: {}{folding}",
                            self.ep,
                            moe.experts,
                            etp,
                            self.ep,
                            list(&valid)
                        ),
                    ));
                }
                if self.folded() && !self.order.pp_outermost() {
                    return Err(ModelError::new(
                        "order",
                        format!("folding experts over TP and CP (expert tp {etp}, ep {}) needs pp outermost in the rank order; got {}", self.ep, self.order.id()),
                    ));
                }
            }
            None => {}
        }
        Ok(())
    }

    /// Rank stride of each dimension under this order.
    pub fn strides(&self) -> [(Dim, u64, u32); 4] {
        let mut stride = 1u64;
        let mut out = [(Dim::Tp, 0u64, 0u32); 4];
        for (i, d) in self.order.0.iter().enumerate() {
            let size = self.size(*d);
            out[i] = (*d, stride, size);
            stride *= size as u64;
        }
        out
    }
    pub fn size(&self, d: Dim) -> u32 {
        match d {
            Dim::Tp => self.tp,
            Dim::Cp => self.cp,
            Dim::Dp => self.dp,
            Dim::Pp => self.pp,
        }
    }
    fn stride_of(&self, d: Dim) -> u64 {
        self.strides().iter().find(|x| x.0 == d).map_or(1, |x| x.1)
    }

    /// The lattice generators (stride, count) of each communication group.
    pub fn generators(&self, g: Group) -> Generators {
        let s = |d| self.stride_of(d);
        let mut gens = Generators::default();
        match g {
            Group::Tp => gens.push(s(Dim::Tp), self.tp),
            Group::Cp => gens.push(s(Dim::Cp), self.cp),
            Group::Pp => gens.push(s(Dim::Pp), self.pp),
            // Folded: expert ranks laid "etp-ep-edp" over the stage's contiguous TP x CP x DP
            // block (PP outermost), as Megatron-Core's expert rank generator does.
            Group::Ep if self.folded() => gens.push(self.etp() as u64, self.ep),
            Group::Ep => gens.push(s(Dim::Dp), self.ep),
            Group::Dp => {
                gens.push(s(Dim::Cp), self.cp);
                gens.push(s(Dim::Dp), self.dp);
            }
            Group::ExpertDp if self.folded() => gens.push(self.etp() as u64 * self.ep as u64, self.expert_dp() as u32),
            Group::ExpertDp => {
                gens.push(s(Dim::Cp), self.cp);
                gens.push(s(Dim::Dp) * self.ep as u64, self.dp / self.ep.max(1));
            }
        }
        gens
    }
}

/// Order in which stages give up a layer: 0, pp-1, 1, pp-2, ...
fn stage_deficit_rank(s: u32, pp: u32) -> u32 {
    let from_end = pp - 1 - s;
    if s <= from_end {
        2 * s
    } else {
        2 * from_end + 1
    }
}

/// Communication groups of a training step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// Tensor parallel.
    Tp,
    /// Context parallel (ring of K/V).
    Cp,
    /// Gradient reduction of dense weights: DP x CP ranks.
    Dp,
    /// Expert parallel (all-to-all).
    Ep,
    /// Gradient reduction of expert weights: DP x CP / EP ranks.
    ExpertDp,
    /// Pipeline neighbours.
    Pp,
}

impl Group {
    pub const ALL: [Group; 6] = [Group::Tp, Group::Cp, Group::Dp, Group::Ep, Group::ExpertDp, Group::Pp];
    pub fn name(self) -> &'static str {
        match self {
            Group::Tp => "TP",
            Group::Cp => "CP",
            Group::Dp => "DP",
            Group::Ep => "EP",
            Group::ExpertDp => "expert DP",
            Group::Pp => "PP",
        }
    }
}

/// Up to two (stride, count) generators: members are `base + i s1 + j s2`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Generators {
    pub n: u8,
    pub g: [(u64, u32); 2],
}

impl Generators {
    fn push(&mut self, stride: u64, count: u32) {
        if count > 1 && (self.n as usize) < 2 {
            self.g[self.n as usize] = (stride, count);
            self.n += 1;
        }
    }
    pub fn ranks(&self) -> u32 {
        self.g[..self.n as usize].iter().map(|x| x.1).product::<u32>().max(1)
    }
}

/// Where one kind of group sits on the cluster.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupSpan {
    pub ranks: u32,
    /// Most scale-up domains any one group of this kind touches.
    pub domains: u32,
    /// Placement handed to the collective model: the same count in every domain, the fewest
    /// any group has in one of its domains (that domain's NICs limit the whole collective).
    pub placement: Placement,
    /// Highest tier the traffic crosses.
    pub tier: SpanTier,
    /// Groups sharing each domain's NICs at once, per NIC the collective model assumes a
    /// group has to itself (1 = every group on its own rails), times the ring-factor
    /// correction when the placement has fewer ranks than the group.
    pub net_share: f64,
}

/// The tier a group's traffic reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpanTier {
    /// A group of one GPU: no traffic.
    Local,
    /// Inside one scale-up domain (NVLink / NVSwitch, or PCIe for PCIe-only nodes).
    ScaleUp,
    /// Across domains under one leaf switch.
    Leaf,
    /// Across leaves, through the spine.
    Spine,
}

impl SpanTier {
    pub fn tier_kind(self) -> Option<TierKind> {
        match self {
            SpanTier::Local => None,
            SpanTier::ScaleUp => Some(TierKind::ScaleUp),
            SpanTier::Leaf => Some(TierKind::Leaf),
            SpanTier::Spine => Some(TierKind::Spine),
        }
    }
}

/// Groups whose members this function enumerates at most (beyond it, spans use the group of
/// rank 0 and its last translate, which is exact for the aligned layouts Megatron produces).
const MAX_ENUMERATED_RANKS: u64 = 1 << 16;

/// What the visited groups look like on the domains.
#[derive(Debug, PartialEq)]
struct Visit {
    /// Most domains one group touches.
    max_domains: u64,
    /// Fewest members one group has in any one of its domains.
    min_per_domain: u64,
    spans_leaves: bool,
}

/// Visits every group with generators `gs` among `total` ranks (or rank 0's and the last
/// one's when there are too many to enumerate), counting members per domain of `d` GPUs.
///
/// Generators are digits of the rank order, so the members of a group are `base + o` for
/// the same sorted offsets `o`, and the bases are the ranks whose other digits vary: both
/// enumerate directly. How a group falls on the domains depends only on `base mod d`, so
/// that is worked out once per residue; the leaf test needs only its first and last member.
fn visit_groups(gs: &[(u64, u32)], total: u64, d: u64, dpl: u64) -> Visit {
    let mut sorted: Vec<(u64, u64)> = gs.iter().map(|(s, c)| (*s, *c as u64)).collect();
    crate::sorting::sort_short_by(&mut sorted, Ord::cmp);
    // The other digits: the gaps between the generators' digits, and what lies above them.
    let mut free: Vec<(u64, u64)> = Vec::new();
    let mut below = 1u64;
    for &(s, c) in &sorted {
        if s % below != 0 {
            return visit_groups_by_scan(gs, total, d, dpl);
        }
        if s > below {
            free.push((below, s / below));
        }
        below = s * c;
    }
    if total % below != 0 {
        return visit_groups_by_scan(gs, total, d, dpl);
    }
    if total > below {
        free.push((below, total / below));
    }
    let mut offsets: Vec<u64> = vec![0];
    for &(s, c) in &sorted {
        offsets = (0..c).flat_map(|j| offsets.iter().map(move |o| o + j * s)).collect();
    }
    let last_offset = offsets.last().copied().unwrap_or(0);
    let mut shapes: Vec<Option<(u64, u64)>> = vec![None; d as usize];
    let mut v = Visit { max_domains: 1, min_per_domain: u64::MAX, spans_leaves: false };
    let mut visit = |base: u64| {
        let rho = base % d;
        let (distinct, min_run) = *shapes[rho as usize].get_or_insert_with(|| {
            // Offsets ascend, so domains do too: count runs.
            let (mut distinct, mut min_run, mut run, mut prev) = (0u64, u64::MAX, 0u64, u64::MAX);
            for o in &offsets {
                let dom = (rho + o) / d;
                if dom != prev && run > 0 {
                    distinct += 1;
                    min_run = min_run.min(run);
                    run = 0;
                }
                prev = dom;
                run += 1;
            }
            (distinct + 1, min_run.min(run))
        });
        v.max_domains = v.max_domains.max(distinct);
        v.min_per_domain = v.min_per_domain.min(min_run);
        if (base / d) / dpl != ((base + last_offset) / d) / dpl {
            v.spans_leaves = true;
        }
    };
    let last_base: u64 = free.iter().map(|(s, c)| s * (c - 1)).sum();
    if total <= MAX_ENUMERATED_RANKS {
        // An odometer over the free digits.
        let mut digits = vec![0u64; free.len()];
        let mut base = 0u64;
        loop {
            visit(base);
            let mut k = 0;
            loop {
                if k == free.len() {
                    return v;
                }
                let (s, c) = free[k];
                digits[k] += 1;
                base += s;
                if digits[k] < c {
                    break;
                }
                base -= s * c;
                digits[k] = 0;
                k += 1;
            }
        }
    }
    visit(0);
    visit(last_base);
    v
}

/// [`visit_groups`] for generators that are not nested digits: every rank is tested.
fn visit_groups_by_scan(gs: &[(u64, u32)], total: u64, d: u64, dpl: u64) -> Visit {

    let mut v = Visit {
        max_domains: 1,
        min_per_domain: u64::MAX,
        spans_leaves: false,
    };
    let mut doms: Vec<u64> = Vec::new();
    let in_group = |r: u64| gs.iter().all(|(s, c)| (r / s).is_multiple_of(*c as u64));
    let mut visit = |base: u64| {
        doms.clear();
        let (s1, c1) = gs[0];
        let (s2, c2) = if gs.len() > 1 { gs[1] } else { (0, 1) };
        for j in 0..c2 as u64 {
            for i in 0..c1 as u64 {
                doms.push((base + i * s1 + j * s2) / d);
            }
        }
        crate::sorting::sort_u64(&mut doms);
        // Run lengths of the sorted domain list are the members per domain.
        let (mut distinct, mut run) = (0u64, 0u64);
        for k in 0..doms.len() {
            run += 1;
            if k + 1 == doms.len() || doms[k + 1] != doms[k] {
                distinct += 1;
                v.min_per_domain = v.min_per_domain.min(run);
                run = 0;
            }
        }
        v.max_domains = v.max_domains.max(distinct);
        if let (Some(a), Some(b)) = (doms.first(), doms.last()) {
            if a / dpl != b / dpl {
                v.spans_leaves = true;
            }
        }
    };
    if total <= MAX_ENUMERATED_RANKS {
        for base in 0..total {
            if in_group(base) {
                visit(base);
            }
        }
    } else {
        visit(0);
        let last_base = (0..total).rev().find(|r| in_group(*r)).unwrap_or(0);
        visit(last_base);
    }
    v
}

/// Computes where the groups with generators `gens` sit on `topo` (`total` GPUs in use).
///
/// Groups need not divide the domains evenly (a 9-stage pipeline over 4 racks has 3, 2, 2
/// and 2 stages per rack; the last NVL72 rack of a cluster may be partly filled). NCCL then
/// builds its rings from the graph every node can support, so the domain with the fewest
/// members, hence the fewest NICs, sets the network bandwidth: the placement handed to the
/// collective model has that many ranks in each domain, and `net_share` scales its network
/// bandwidth by the ring factors `((n-1)/n) / ((n'-1)/n')` so the data each NIC carries is that
/// of the real `n` ranks, not of the `n'` the uniform placement holds.
pub fn span(topo: &Topology, gens: Generators, total: u64) -> GroupSpan {
    let d = topo.domain_gpus as u64;
    let ranks = gens.ranks();
    if ranks <= 1 {
        return GroupSpan {
            ranks: 1,
            domains: 1,
            placement: Placement { ranks: 1, per_domain: 1 },
            tier: SpanTier::Local,
            net_share: 1.0,
        };
    }
    let dpl = topo.domains_per_leaf().max(1) as u64;
    let v = visit_groups(&gens.g[..gens.n as usize], total, d, dpl);
    let n = ranks as u64;
    let max_domains = v.max_domains;
    let (per_domain, domains) = if max_domains <= 1 {
        (n.min(d), 1)
    } else {
        let p = v.min_per_domain.clamp(1, d);
        (p, max_domains.min(n / p).max(1))
    };
    let placed = per_domain * domains;
    let tier = if max_domains <= 1 {
        SpanTier::ScaleUp
    } else if v.spans_leaves || domains > dpl {
        SpanTier::Spine
    } else {
        SpanTier::Leaf
    };
    let mut net_share = 1.0;
    if max_domains > 1 {
        // Every group of this kind communicates at once. A domain hosts d / per_domain of them,
        // each driving the NICs of its own GPUs' rails (Topology::nics_for); when that asks for
        // more NICs than the domain has, they share.
        let c = &topo.cluster;
        let nics_per_domain = c.nics_per_node as f64 * (d as f64 / c.gpus_per_node as f64);
        let groups = d as f64 / per_domain as f64;
        let demand = groups * topo.nics_for(per_domain as u32) as f64;
        if nics_per_domain > 0.0 {
            net_share = (demand / nics_per_domain).max(1.0);
        }
        // Oversubscription costs a ring by the share of its domain-to-domain edges that leave a
        // leaf (the collective model times rings as if they stayed below it). Groups whose
        // members are `stride` domains apart cross a leaf boundary every dpl / stride edges:
        // a contiguous DP ring leaves each leaf on one flow, a group strided by a leaf or more
        // sends every edge through the uplinks, which all groups of its kind share.
        if tier == SpanTier::Spine {
            let stride = gens.g[..gens.n as usize].iter().map(|(s, _)| *s).filter(|s| *s >= d).min().map_or(1, |s| s / d).max(1);
            let crossing = (stride as f64 / dpl as f64).min(1.0);
            let extent = (stride * domains).min(u32::MAX as u64) as u32;
            net_share *= (crossing * topo.oversubscription_for(extent)).max(1.0);
        }
        if placed < n {
            let ring = |k: u64| (k as f64 - 1.0) / k as f64;
            net_share *= ring(n) / ring(placed);
        }
    }
    GroupSpan {
        ranks,
        domains: max_domains as u32,
        placement: Placement { ranks: placed as u32, per_domain: per_domain as u32 },
        tier,
        net_share,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{GpuKind, NicKind, ScaleUp};
    use crate::topology::Cluster;
    use crate::training::presets::preset;

    /// GB200 in NVL72 racks: `nodes` trays of 4 GPUs, 4 XDR NICs each.
    fn nvl72(nodes: u32) -> Cluster {
        Cluster { gpu: GpuKind::Gb200, scale_up: ScaleUp::Nvl72, gpus_per_node: 4, nodes, nics_per_node: 4, nic: NicKind::IbXdr, ..Cluster::default() }
    }

    fn par(tp: u32, pp: u32, dp: u32) -> Parallel {
        Parallel { tp, pp, dp, ..Parallel::default() }
    }

    #[test]
    fn oversubscription_costs_strided_groups_not_contiguous_rings() {
        // 96 nodes on 16 leaves of 48 NIC ports and 16 uplinks: 3:1, 48 nodes per rail leaf.
        let t = Cluster { nodes: 96, leaf_switches: Some(16), spine_switches: Some(4), ..Cluster::default() }.topology().unwrap();
        // TP 8 x DP 96: DP neighbours are one node apart, a ring leaves each leaf on one edge.
        let dp = span(&t, par(8, 1, 96).generators(Group::Dp), 768);
        assert_eq!(dp.tier, SpanTier::Spine);
        assert_eq!(dp.net_share, 1.0);
        // TP 8 x DP 48 x PP 2 (Megatron order: PP outermost): the two stages of a pipeline are
        // 48 nodes (one leaf) apart, so every pipeline's edge goes up and the 384 pipelines
        // share the 3:1 uplinks.
        let pp = span(&t, par(8, 2, 48).generators(Group::Pp), 768);
        assert_eq!(pp.tier, SpanTier::Spine);
        assert!((pp.net_share - 3.0).abs() < 1e-9, "{}", pp.net_share);
    }

    #[test]
    fn megatron_order_puts_tp_inside_a_node() {
        let t = Cluster { nodes: 16, ..Cluster::default() }.topology().unwrap();
        let p = par(8, 4, 4);
        let tp = span(&t, p.generators(Group::Tp), 128);
        assert_eq!((tp.placement.per_domain, tp.domains, tp.tier), (8, 1, SpanTier::ScaleUp));
        let dp = span(&t, p.generators(Group::Dp), 128);
        assert_eq!((dp.placement.ranks, dp.placement.per_domain), (4, 1));
        assert_eq!(dp.net_share, 1.0, "8 DP groups per node, each on its own rail");
        let pp = span(&t, p.generators(Group::Pp), 128);
        assert_eq!((pp.placement.ranks, pp.placement.per_domain), (4, 1));
        // TP 16 on 8-GPU nodes spans two domains.
        let p = par(16, 2, 4);
        let tp = span(&t, p.generators(Group::Tp), 128);
        assert_eq!((tp.placement.per_domain, tp.domains), (8, 2));
        assert!(tp.tier != SpanTier::ScaleUp);
        // Order with DP innermost puts DP inside the node and TP across nodes.
        let p = Parallel { order: RankOrder::parse("dp-tp-cp-pp").unwrap(), ..par(8, 2, 8) };
        let tp = span(&t, p.generators(Group::Tp), 128);
        assert_eq!(tp.placement.per_domain, 1);
        let dp = span(&t, p.generators(Group::Dp), 128);
        assert_eq!(dp.placement.per_domain, 8);
    }

    #[test]
    fn tp16_stays_inside_nvl72() {
        let rack = nvl72;
        // 16 trays = 64 GPUs in one NVLink domain: TP 16 never leaves it.
        let t = rack(16).topology().unwrap();
        let p = par(16, 1, 4);
        let tp = span(&t, p.generators(Group::Tp), 64);
        assert_eq!((tp.domains, tp.tier), (1, SpanTier::ScaleUp));
        // Two full racks: 144 / 16 = 9 TP groups, 4.5 per rack, so ranks 64..79 straddle
        // the racks; every TP group waits for that one, and the span says so.
        let t = rack(36).topology().unwrap();
        let p = par(16, 1, 9);
        let tp = span(&t, p.generators(Group::Tp), 144);
        assert_eq!(tp.domains, 2);
        // TP 8 divides 72: no group straddles.
        let p = par(8, 1, 18);
        let tp = span(&t, p.generators(Group::Tp), 144);
        assert_eq!((tp.domains, tp.tier), (1, SpanTier::ScaleUp));
        // DP of 18 with stride 8: 9 members in each rack.
        let dp = span(&t, p.generators(Group::Dp), 144);
        assert_eq!((dp.domains, dp.placement.per_domain), (2, 9));
    }

    /// Issue 9: 3, 5, 6 or 7 GPUs per node made a group straddle more domains than the
    /// cluster has ("the group spans 6 domains; the cluster has 4") and the whole search
    /// failed. Every group of every layout is a placement the collective model accepts, and
    /// the search answers for every node size.
    #[test]
    fn groups_fit_nodes_of_any_size() {
        let w = preset("gpt-7.5b").unwrap();
        for gpn in 1..=8u32 {
            for nodes in [1u32, 2, 3, 4, 8] {
                let t = Cluster { nodes, gpus_per_node: gpn, ..Cluster::default() }.topology().unwrap();
                let total = nodes * gpn;
                for tp in (1..=total).filter(|v| total.is_multiple_of(*v)) {
                    for pp in (1..=total / tp).filter(|v| (total / tp).is_multiple_of(*v)) {
                        let p = par(tp, pp, total / tp / pp);
                        for g in [Group::Tp, Group::Dp, Group::Pp] {
                            let sp = span(&t, p.generators(g), total as u64);
                            assert_eq!(t.check(sp.placement), Ok(()), "{nodes}x{gpn} tp{tp} pp{pp} {g:?}");
                        }
                    }
                }
                let mut ev = crate::training::Evaluator::new(&t, &w, crate::training::Framework::default()).unwrap();
                let r = crate::training::search(&mut ev, &crate::training::SearchOptions::default());
                let r = r.unwrap_or_else(|e| panic!("{nodes}x{gpn}: {e:?}"));
                assert!(!r.best.is_empty() || r.closest_unfit.is_some(), "{nodes}x{gpn}: no layout");
            }
        }
    }

    #[test]
    fn fewer_nics_than_gpus_are_shared() {
        let t = Cluster { nodes: 16, nics_per_node: 4, ..Cluster::default() }.topology().unwrap();
        let p = par(1, 1, 128);
        let dp = span(&t, p.generators(Group::Dp), 128);
        assert_eq!(dp.placement.per_domain, 8);
        assert_eq!(dp.net_share, 1.0, "one group per node uses all 4 NICs");
        let p = par(8, 1, 16);
        let dp = span(&t, p.generators(Group::Dp), 128);
        assert_eq!(dp.placement.per_domain, 1);
        assert_eq!(dp.net_share, 2.0, "8 groups per node on 4 NICs");
    }

    #[test]
    fn uneven_groups_run_at_the_pace_of_their_thinnest_domain() {
        let racks = nvl72;
        // 9 stages over 4 racks of 72: stage s starts at rank 32 s, so the racks hold 3, 2, 2
        // and 2 stages. Costed as 2 per rack over 4 racks (8 ranks), with the ring factor of 9.
        let t = racks(72).topology().unwrap();
        let pp = span(&t, par(1, 9, 32).generators(Group::Pp), 288);
        assert_eq!((pp.ranks, pp.domains, pp.placement.ranks, pp.placement.per_domain), (9, 4, 8, 2));
        let ring = |n: f64| (n - 1.0) / n;
        assert!(pp.net_share >= ring(9.0) / ring(8.0) - 1e-12, "{}", pp.net_share);
        assert!(t.check(pp.placement).is_ok(), "the collective model accepts it");
        // 36 trays = two racks of 72 (even), 32 trays = two racks of 64 (even): DP 16 with
        // TP 8 has 8 ranks in each rack either way.
        for nodes in [32, 36] {
            let t = racks(nodes).topology().unwrap();
            let n = t.total_gpus;
            let dp = span(&t, par(8, 1, n / 8).generators(Group::Dp), n as u64);
            assert_eq!(dp.placement.ranks, n / 8, "{nodes} trays");
            assert_eq!(dp.placement.per_domain * t.domains, n / 8);
        }
    }

    #[test]
    fn direct_enumeration_agrees_with_testing_every_rank() {
        let orders = ["tp-cp-dp-pp", "dp-tp-cp-pp", "tp-dp-cp-pp", "pp-dp-cp-tp", "cp-tp-pp-dp"];
        let mut checked = 0;
        for (total, d, dpl) in [(288u64, 72u64, 2u64), (128, 64, 1), (200, 68, 1), (1024, 8, 4), (96, 8, 3)] {
            for order in orders {
                for tp in [1u32, 2, 4, 8] {
                    for pp in [1u32, 2, 3, 4, 9] {
                        for cp in [1u32, 2] {
                            let used = (tp * pp * cp) as u64;
                            if total % used != 0 {
                                continue;
                            }
                            let dp = (total / used) as u32;
                            for ep in [1u32, 2, 4].into_iter().filter(|e| dp % e == 0) {
                                let p = Parallel { tp, pp, cp, dp, ep, order: RankOrder::parse(order).unwrap(), ..Parallel::default() };
                                for g in Group::ALL {
                                    let gens = p.generators(g);
                                    if gens.n == 0 {
                                        continue;
                                    }
                                    let gs = &gens.g[..gens.n as usize];
                                    assert_eq!(visit_groups(gs, total, d, dpl), visit_groups_by_scan(gs, total, d, dpl), "{order} {p:?} {g:?} on {total}/{d}");
                                    checked += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn invalid_layouts_name_constraint_and_values() {
        let w = preset("gpt3-175b").unwrap();
        let e = par(8, 8, 8).validate(&w, 1024).unwrap_err();
        assert_eq!(e.field, "dp");
        assert!(e.message.contains("use dp=16"), "{}", e.message);
        let e = par(7, 1, 1).validate(&w, 7).unwrap_err();
        assert_eq!(e.field, "tp");
        assert!(e.message.contains("valid tp: 1"), "{}", e.message);
        let e = Parallel { micro_batch: 5, ..par(8, 8, 16) }.validate(&w, 1024).unwrap_err();
        assert_eq!(e.field, "micro_batch");
        assert!(e.message.contains("1, 2, 3, 4, 6, 8, 12"), "{}", e.message);
        // 96 layers over 7 stages is uneven (14 + 5 x 13 + 14... as Megatron's first/last
        // stage options allow) and valid; interleaving needs equal chunks.
        assert!(par(8, 7, 1).validate(&w, 56).is_ok());
        assert!(Parallel { interleave: 5, ..par(8, 8, 1) }.validate(&w, 64).is_ok(), "uneven chunks are allowed");
        let e = Parallel { interleave: 2, ..par(1, 64, 1) }.validate(&w, 64).unwrap_err();
        assert_eq!(e.field, "interleave");
        let e = par(1, 128, 1).validate(&w, 128).unwrap_err();
        assert_eq!(e.field, "pp");
        let e = Parallel { ep: 2, ..par(8, 8, 16) }.validate(&w, 1024).unwrap_err();
        assert_eq!(e.field, "ep");
        let m = preset("mixtral-8x7b").unwrap();
        let e = Parallel { ep: 16, ..par(1, 1, 16) }.validate(&m, 16).unwrap_err();
        assert_eq!(e.field, "ep");
        assert!(e.message.contains("valid ep: 1, 2, 4, 8"), "{}", e.message);
        let e = Parallel { cp: 3, ..par(1, 1, 1) }.validate(&w, 3).unwrap_err();
        assert_eq!(e.field, "cp");
        assert!(RankOrder::parse("tp-tp-dp-pp").is_err());
        assert_eq!(RankOrder::parse("tp-cp-ep-dp-pp").unwrap(), RankOrder::default());
    }
}
