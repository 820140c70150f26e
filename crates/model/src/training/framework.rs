//! What the training software does that changes cost: fused attention, which communication
//! it overlaps with compute, the precision of gradients. Facts about a framework release, not
//! tuning knobs: the calibration rows use the release their paper used.

use serde::{Deserialize, Serialize};

/// Training-software behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Framework {
    /// Short name shown in reports.
    #[serde(skip_deserializing)]
    pub name: &'static str,
    /// Fused (Flash) attention: scores are never written to HBM, causal blocks are skipped,
    /// and attention memory is linear in the sequence.
    pub flash_attention: bool,
    /// DP gradient reduction overlaps the last micro-batch's backward (bucketed).
    pub overlap_grad_reduce: bool,
    /// The parameter all-gather of a sharded optimizer overlaps the next forward (ZeRO 1/2),
    /// and ZeRO-3 prefetches each layer's parameters during the previous layer.
    pub overlap_param_gather: bool,
    /// Interleaved-pipeline sends and receives overlap steady-state compute.
    pub overlap_p2p: bool,
    /// Pipeline activations cross the network split over the TP ranks and are re-gathered
    /// over NVLink (Narayanan et al. 2021, §4.1 "scatter/gather").
    pub pp_scatter_gather: bool,
    /// Gradients are accumulated and reduced in FP32 (Megatron's main_grad); else in 16 bits.
    pub fp32_grads: bool,
    /// Parameters per gradient bucket: the last bucket's reduction cannot overlap compute.
    pub grad_bucket_params: u64,
    /// With sequence parallelism, the backward re-gather of each block's input (for the
    /// weight gradient) and the reduce-scatter of its input gradient run asynchronously under
    /// the matmuls (Megatron-Core's `LinearWithGradAccumulationAndAsyncCommunication`);
    /// else they are exposed.
    pub overlap_sp_backward: bool,
    /// Weight-gradient matmuls accumulate straight into the gradient buffer in their epilogue
    /// (Megatron's gradient-accumulation fusion); else autograd writes a fresh gradient and a
    /// separate kernel adds it to the accumulated one every micro-batch.
    pub fused_grad_accumulation: bool,
    /// ZeRO-3 gathers this fraction of a layer's weights at a time, and holds two such units
    /// (the one in use and the one prefetched): FSDP-style per-layer units are 1; DeepSpeed
    /// gathers per module, the largest of a GPT layer being the `h x 4h` MLP matrix, 1/3.
    pub zero3_unit: f64,
}

impl Default for Framework {
    fn default() -> Self {
        Framework::megatron_core()
    }
}

impl Framework {
    /// Megatron-Core (2024-): FlashAttention, overlapped grad reduce and param gather,
    /// overlapped interleaved p2p, FP32 main grads, 40M-parameter buckets
    /// (megatron/core/distributed/distributed_data_parallel_config.py).
    pub fn megatron_core() -> Framework {
        Framework {
            name: "megatron-core",
            flash_attention: true,
            overlap_grad_reduce: true,
            overlap_param_gather: true,
            overlap_p2p: true,
            pp_scatter_gather: true,
            fp32_grads: true,
            grad_bucket_params: 40_000_000,
            overlap_sp_backward: true,
            fused_grad_accumulation: true,
            zero3_unit: 1.0,
        }
    }
    /// Megatron-LM as used by Narayanan et al. 2021 and Korthikanti et al. 2022 (and its 2020
    /// README): attention scores materialised (fused scale-mask-softmax), gradients all-reduced
    /// after the pipeline flush without overlap, blocking p2p with scatter/gather, 16-bit
    /// gradient all-reduce.
    pub fn megatron_2021() -> Framework {
        Framework {
            name: "megatron-lm-2021",
            flash_attention: false,
            overlap_grad_reduce: false,
            overlap_param_gather: false,
            overlap_p2p: false,
            pp_scatter_gather: true,
            fp32_grads: false,
            grad_bucket_params: 40_000_000,
            overlap_sp_backward: false,
            fused_grad_accumulation: false,
            zero3_unit: 1.0,
        }
    }
    /// Megatron-LM as used by Korthikanti et al. 2022: the 2021 release plus gradient-
    /// accumulation fusion (weight-gradient matmuls accumulate into the main-grad buffer).
    pub fn megatron_2022() -> Framework {
        Framework { name: "megatron-lm-2022", fused_grad_accumulation: true, ..Self::megatron_2021() }
    }
    /// DeepSpeed ZeRO as compared by Narayanan et al. 2021 (Table 2): materialised attention,
    /// `overlap_comm` (bucketed reduce-scatter during backward, parameter prefetch),
    /// 16-bit gradients, 500M-element reduce buckets.
    pub fn deepspeed_2021() -> Framework {
        Framework {
            name: "deepspeed-2021",
            flash_attention: false,
            overlap_grad_reduce: true,
            overlap_param_gather: true,
            overlap_p2p: false,
            pp_scatter_gather: false,
            fp32_grads: false,
            grad_bucket_params: 500_000_000,
            overlap_sp_backward: false,
            fused_grad_accumulation: false,
            zero3_unit: 1.0 / 3.0,
        }
    }
    pub fn from_id(id: &str) -> Option<Framework> {
        match id.to_ascii_lowercase().as_str() {
            "megatron-core" | "mcore" => Some(Self::megatron_core()),
            "megatron-lm-2021" | "megatron-2021" => Some(Self::megatron_2021()),
            "megatron-lm-2022" | "megatron-2022" => Some(Self::megatron_2022()),
            "deepspeed-2021" | "deepspeed" => Some(Self::deepspeed_2021()),
            _ => None,
        }
    }
    pub fn ids() -> [&'static str; 4] {
        ["megatron-core", "megatron-lm-2022", "megatron-lm-2021", "deepspeed-2021"]
    }
    /// Bytes the optimizer step streams per parameter of its shard. With FP32 main grads:
    /// global norm (read grad, 4), Adam (read grad, master, m, v: 16; write master, m, v: 12),
    /// copy master to the BF16 weights (read 4, write 2), zero the grad buffer (write 4): 42.
    /// With 16-bit grads (2021 mixed precision with loss scaling): copy grads to FP32 (read 2,
    /// write 4), unscale and check for inf/nan (read 4, write 4), norm (4), Adam (28), copy to
    /// FP16 weights (6), zero the FP16 grads (2): 54.
    pub fn optimizer_bytes_per_param(&self) -> f64 {
        if self.fp32_grads {
            42.0
        } else {
            54.0
        }
    }

    /// Bytes moved per parameter per micro-batch to accumulate gradients outside the matmul,
    /// averaged over `m` micro-batches: 0 when fused; with FP32 main grads a hook adds every
    /// micro-batch's 16-bit gradient into the FP32 buffer (read 2 + 4, write 4); with 16-bit
    /// grads autograd adds micro-batches 2..m into `.grad` (read 2 + 2, write 2).
    pub fn grad_accumulation_bytes(&self, m: u32) -> f64 {
        if self.fused_grad_accumulation {
            0.0
        } else if self.fp32_grads {
            10.0
        } else {
            6.0 * (m.max(1) - 1) as f64 / m.max(1) as f64
        }
    }

    /// Bytes per gradient element.
    pub fn grad_bytes(&self) -> f64 {
        if self.fp32_grads {
            4.0
        } else {
            2.0
        }
    }
}
