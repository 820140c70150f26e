//! What NCCL's enqueue does to a chosen algorithm at run time that its tuning model does not
//! see (NVIDIA/nccl v2.27.5-1 src/enqueue.cc `topoGetAlgoInfo`): small messages run on fewer
//! channels and threads than the model's bandwidth assumes. The tuning tables (`super::tuning`)
//! stay NCCL's own; the timing layer applies this.

use super::tuning::{Algorithm, Protocol};

/// `NCCL_LL_THREAD_THRESHOLD`, `NCCL_LL128_THREAD_THRESHOLD`, `NCCL_SIMPLE_THREAD_THRESHOLD`:
/// bytes per thread below which NCCL drops a channel (src/include/comm.h lines 38-40).
const THREAD_THRESHOLD: [u64; 3] = [8, 8, 64];

/// `NCCL_LL_MAX_NTHREADS`, `NCCL_LL128_MAX_NTHREADS`, `NCCL_SIMPLE_MAX_NTHREADS`: threads per
/// channel (src/include/device.h lines 91-110; tuning.cc lines 215-226 take them as maxThreads
/// for Ring and Tree by default).
const MAX_THREADS: [u64; 3] = [512, 640, 512];

/// The share of the tuning model's bandwidth a Ring or Tree of `bytes` runs at: NCCL drops
/// channels while `bytes < nc x nt x threadThreshold` (down to one), then halves the threads
/// (enqueue.cc lines 1834-1866); a Ring LL's threshold is multiplied by the ranks (tuning.cc
/// line 524). The bandwidth follows the channels; the halved threads (below one channel's
/// threshold, where the latency term dominates) are left out. 1 for NVLS, NVLSTree, CollNet
/// and PAT (their channels are fixed) and for large messages.
pub fn channel_share(a: Algorithm, p: Protocol, bytes: u64, channels: u32, ranks: u32) -> f64 {
    if !matches!(a, Algorithm::Ring | Algorithm::Tree) || channels == 0 {
        return 1.0;
    }
    let pi = p as usize;
    let mut thr = THREAD_THRESHOLD[pi];
    if a == Algorithm::Ring && p == Protocol::Ll {
        thr *= ranks.max(1) as u64;
    }
    let nt_max = MAX_THREADS[pi];
    let (mut nc, mut nt) = (channels as u64, nt_max);
    while bytes < nc * nt * thr && nc >= 2 {
        nc -= 1;
    }
    while bytes < nc * nt * thr && nt % 128 == 0 {
        nt /= 2;
    }
    // The threads are halved only below one channel's threshold, where the latency term
    // dominates; the bandwidth follows the channels.
    let _ = nt;
    nc as f64 / channels as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_messages_run_on_fewer_channels() {
        // Ring LL on 4 ranks: 16 KiB per channel (512 threads x 8 B x 4 ranks).
        assert_eq!(channel_share(Algorithm::Ring, Protocol::Ll, 64 << 10, 16, 4), 4.0 / 16.0);
        assert_eq!(channel_share(Algorithm::Ring, Protocol::Ll, 1 << 20, 16, 4), 1.0);
        // Below one channel's threshold: one channel (NCCL then halves its threads, which the
        // share leaves out: the latency term dominates there).
        assert_eq!(channel_share(Algorithm::Ring, Protocol::Ll, 4 << 10, 16, 4), 1.0 / 16.0);
        assert_eq!(channel_share(Algorithm::Nvls, Protocol::Simple, 1024, 16, 8), 1.0);
    }
}
