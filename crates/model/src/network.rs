//! What nccl-tests would measure: NCCL's choice of algorithm and protocol (made by `nccl/`,
//! bit-for-bit NCCL's tuning model) timed with the physics of the tiers the collective
//! crosses. NCCL's own estimate is kept beside this one; it decides, this one times.
//!
//! Inside one scale-up domain NCCL's model is already within a few percent of measurements,
//! so its terms are used as they are (with a measured NVLS efficiency on Blackwell). Across
//! domains the bandwidth comes from what each domain can inject into the network (NIC goodput,
//! capped by the GPUs' PCIe links), the bytes the busiest domain sends per algorithm, how the
//! transport feeds the NICs (one queue pair per connection, several, or host-staged on GB200),
//! and measured scale effects; the latency adds what the NIC family and the switch hops cost beyond the
//! InfiniBand figures NCCL's tables were tuned on. At mid sizes the messages themselves cost
//! ([`NetPath::message_terms`]): on EFA a rendezvous per network hop for messages above
//! aws-ofi-nccl's eager size, and a Simple Tree's chunks pass through each head GPU's proxy.
//!
//! Every parameter below is fitted once per hardware or algorithm class on
//! validation/collectives*.csv (never per row) or taken from a datasheet; each says which.

use crate::catalog::fabric::EFA_LATENCY;
use crate::catalog::{Arch, NetFamily, Routing};
use crate::nccl::tuning::{Algorithm, Func, Protocol};
use crate::units::Micros;

/// Host cost of one process launching one collective on each further GPU it drives, µs.
/// nccl-tests issues operations back to back, so with one process per GPU (MPI, torchrun) the
/// launch hides behind the previous kernel; one process driving g GPUs (`-g 8`) starts the
/// last GPU's kernel (g-1) launches late, and the collective waits for it. Fitted on Azure
/// ND H100 v5's single-process sweep (AI-benchmarking-guide, validation/collectives.csv):
/// 25.6 µs at 1 KiB against NCCL's 15.2 µs, 10.4 µs over 7 launches.
pub const HOST_LAUNCH_STAGGER: Micros = Micros(1.5);

/// Fraction of the injection bandwidth a ring sustains across domains before scale losses, with
/// NCCL's default one queue pair per connection and GPUDirect reads over PCIe. Fitted with
/// [`RING_SCALE_LOSS`] on DGX Cloud B200 all_reduce ring busbw at 16 GiB, 2-46 nodes of 8x NDR
/// (collectives-2.csv: 344.7 at 2 nodes ... 291.4 at 46); several QPs: [`MULTI_QP_RING_EFFICIENCY`].
pub const RING_EFFICIENCY: f64 = 0.935;

/// Ring busbw falls with the number of domains as 1 / (1 + loss x ln N): each of the 2(N-1)
/// ring steps waits for the slowest of N links, so per-link jitter grows into the step time.
/// Fitted with [`RING_EFFICIENCY`] (same rows). It applies to the NIC side with one QP only:
/// the 'slinky' B200 cluster, run with two QPs per connection, stays flat from 2 to 64 nodes
/// (388.4 and 389.8 GB/s busbw).
pub const RING_SCALE_LOSS: f64 = 0.05;

/// NCCL's Tree across domains reaches about half the injection bandwidth (the chain inside each
/// domain carries the reduce and the broadcast phases through one head GPU per channel).
/// Fitted on DGX Cloud B200 Tree busbw 190.7-193.5 GB/s at 4-46 nodes of 8 NICs and on the 8-NIC
/// 'slinky' cluster's 192.3-195.9 at 4-64 nodes (both bound by the GPUs' PCIe, so the loss is
/// GPU-side, applied after that cap), with each domain sending what the busiest domain of the
/// double binary tree sends ([`NetPath::traffic`]).
pub const TREE_EFFICIENCY: f64 = 0.51;

/// NCCL's Tree across GB200 racks, whose trays reach their NICs through Grace memory (NCCL
/// keeps GPUDirect RDMA off on GH200/GB200 and stages over NVLink-C2C; NVIDIA/nccl issue 1579):
/// the full injection bandwidth, not [`TREE_EFFICIENCY`]. GB200 NVL72 across 3 racks with NVLS
/// off (NVIDIA/nccl issue 1801): algbw 127.9 GB/s on 4 NICs per rack and 253.4 on 8, i.e. the
/// busiest rack of the 3-rack tree (1.5 buffers) moves 192 and 380 GB/s. Two rows, one source.
pub const TREE_HOST_STAGED_EFFICIENCY: f64 = 1.0;

/// NVLSTree (NVLS inside the domain, a tree of domains) at two domains: each domain sends and
/// receives the reduced buffer once, at the full injection goodput. DGX Cloud B200 and the
/// 'slinky' B200 cluster: 717.2 and 719.7 GB/s busbw (algbw 382-384 GB/s on 8 NDR NICs).
pub const NVLS_TREE_TWO_DOMAIN_EFFICIENCY: f64 = 1.0;

/// NVLSTree across three domains or more, with one queue pair per connection: fraction of the
/// injection bandwidth the busiest domain of the tree keeps. DGX Cloud B200 at 4-46 nodes,
/// 274.3-290.7 GB/s busbw (5 rows, flat with scale as a tree's busiest domain is), and 248 nodes
/// of 8x H200, ~350 at 512 MiB (NVIDIA/nccl-tests issue 283): median 0.74.
///
/// NVLSTree's pipeline fill is timed on its own (`NetPath::nvls_tree_fill_us`), so this is
/// the steady state's fraction; the rows it was read from are 16 GiB or flat with size.
pub const NVLS_TREE_EFFICIENCY: f64 = 0.74;

/// Chunk times a Simple Tree's pipeline fill (`NetPath::tree_simple_fill_us`) adds on the
/// network path beyond its hops (dimensionless): at the path's two ends the chunk is stored
/// whole, written into the connection's step buffer before the proxy posts it and read out of
/// the receiving buffer only once it has all arrived (Simple signals once per step: NCCL
/// 2.27.5 src/device/prims_simple.h waitPeer/postPeer; a Tree's and NVLSTree's
/// ProtoSimple<1, 1> makes a chunk one step, src/device/all_reduce.h). A count, not a fit, but
/// chosen after the mid-size rows of validation/collectives-4.csv were seen (in sample), for
/// NVLSTree first: without it two H100 clusters of NVIDIA/nccl-tests issue 309 measured 20-46%
/// below the model from 8 to 128 MiB between two nodes. NVLSTree has its own count now,
/// [`NVLS_TREE_STORE_AND_FORWARD`].
pub const NET_PATH_STORE_AND_FORWARD: f64 = 2.0;

/// Chunk times NVLSTree's pipeline fill adds on the network path beyond its 2 x depth hops
/// (dimensionless): the store at the receiving end. The sending end's is the NVLS reduce
/// writing the chunk into the connection's buffer, a stage the fill times on its own. A count,
/// fitted in sample by the accuracy test (`nvls_tree_store_count_is_fitted`, the count of 0-3
/// with the lowest median): with the fill on NCCL's NVLS channel count ([`nvls_channels`](crate::nccl::constants::nvls_channels); it had
/// run on the head count, half of it on 8-NIC H100 nodes, with 2 stores), the 35 mid-size
/// (64 KiB-128 MiB) NVLSTree rows of validation/collectives-4.csv (three H100 clusters of
/// NVIDIA/nccl-tests issue 309, 2, 4 and 8 nodes) have a median absolute error of 9.4% with 1,
/// 10.7% with 0 and 12.0% with 2 (10.9% before). The fill those rows ask for, beyond NCCL's
/// own latency and the steady rate, is about 8, 11 and 18-27 µs per MiB of one pipeline round
/// (channels x heads chunks) at depth 1, 2 and 3; one store gives about 8, 16 and 23.
pub const NVLS_TREE_STORE_AND_FORWARD: f64 = 1.0;

/// NVLSTree's chunk, bytes: NCCL_NVLS_CHUNKSIZE's default (NCCL 2.27.5
/// src/transport/nvls.cc:152, 128 KiB), at most 64 KiB from 4 domains on
/// (NCCL_NVLSTREE_MAX_CHUNKSIZE's default -2, src/enqueue.cc:2027-2028).
pub const NVLS_TREE_CHUNK: f64 = 128.0 * 1024.0;
pub const NVLS_TREE_CHUNK_FROM_4_DOMAINS: f64 = 64.0 * 1024.0;
/// The smallest, bytes: below one round of channels x heads chunks (src/enqueue.cc:2032).
pub const NVLS_TREE_CHUNK_SMALLEST: f64 = 32.0 * 1024.0;

/// NVLSTree's chunk for an AllReduce of `bytes` over `ops` concurrent streams (channels x
/// heads) across `domains`: NCCL 2.27.5 src/enqueue.cc:2021-2032 halves it to 64 KiB below 4
/// rounds of `ops` chunks and to 32 KiB below one.
pub fn nvls_tree_chunk(bytes: f64, ops: f64, domains: u32) -> f64 {
    let mut chunk = if domains >= 4 { NVLS_TREE_CHUNK_FROM_4_DOMAINS } else { NVLS_TREE_CHUNK };
    if bytes < 4.0 * ops * chunk && chunk > NVLS_TREE_CHUNK_FROM_4_DOMAINS {
        chunk = NVLS_TREE_CHUNK_FROM_4_DOMAINS;
    }
    if bytes < ops * chunk && chunk > NVLS_TREE_CHUNK_SMALLEST {
        chunk = NVLS_TREE_CHUNK_SMALLEST;
    }
    chunk
}

/// NVLSTree across three domains or more when each connection is spread over several queue
/// pairs: the 'slinky' B200 cluster (NCCL_IB_QPS_PER_CONNECTION=2), 388.4-389.9 GB/s busbw flat
/// from 4 to 64 nodes, i.e. its busiest domains move ~400 GB/s on 8 NDR NICs: the NICs' data
/// rate, 1.04 x the 0.955 goodput the other algorithms were fitted with.
pub const MULTI_QP_NVLS_TREE_EFFICIENCY: f64 = 1.04;

/// CollNet (SHARP: the switches reduce) reaches this fraction of the injection bandwidth:
/// DGX Cloud B200 CollNet busbw 533.0, 543.8 and 544.8 GB/s at 2, 4 and 46 nodes of 8 NDR
/// NICs, 545.8 at 64 nodes of 12; all_gather 385.2 at 4 nodes (collectives-2.csv).
pub const COLLNET_EFFICIENCY: f64 = 0.73;

/// NVLS across domains runs over SHARP (each domain sends and receives the buffer once):
/// DGX Cloud B200 2 nodes, 717.2 GB/s busbw at 16 GiB, i.e. the full injection goodput.
pub const NVLS_SHARP_EFFICIENCY: f64 = 1.0;

/// Point-to-point across domains (nccl-tests sendrecv, one pair per domain boundary): fraction
/// of one NIC's goodput at 2 domains, and the loss with more domains (nccl-tests reports the
/// slowest of the N concurrent pairs): 1 / (1 + loss x ln(N/2)). Fitted on DGX Cloud B200
/// sendrecv at 16 GiB: 42.6, 25.4 and 15.1 GB/s at 2, 8 and 16 nodes (collectives-2.csv).
pub const P2P_EFFICIENCY: f64 = 0.89;
pub const P2P_SCALE_LOSS: f64 = 0.55;

/// NVLS bandwidth on Blackwell against NCCL 2.27's formula, which has no efficiency term:
/// 8x B200 NVLS busbw 840.8 (DGX Cloud), 845.7 (AWS p6-b200), 850 (GTC24) GB/s against the
/// model's 931 gives 0.91 at 8 GPUs; GB200 NVL72 with 32 GPUs in the domain, 850 (GTC25) against
/// 1031 gives 0.82. The loss per doubling of the domain past 8 GPUs, [`NVLS_LOSS_PER_DOUBLING`],
/// is fitted on those two classes (Hopper's NVLS is within 3% of NCCL's number: no correction).
pub const NVLS_BLACKWELL_EFFICIENCY: f64 = 0.91;
pub const NVLS_LOSS_PER_DOUBLING: f64 = 0.045;

/// One-way NIC-to-NIC latency NCCL's network latency table (hwLat[NET]) was tuned on:
/// InfiniBand RDMA through one switch, about 1 µs (catalog::fabric NICS). Other families pay
/// the difference on every network step.
pub const IB_REFERENCE_LATENCY: Micros = Micros(1.0);

/// Queue pairs NCCL opens per connection by default (NCCL_IB_QPS_PER_CONNECTION=1 in every
/// NCCL release's net_ib.cc; NCCL docs, environment variables). Each QP is one flow to the
/// fabric's routing.
pub const DEFAULT_QPS_PER_CONNECTION: u32 = 1;

/// Fraction of the NIC goodput a ring sustains across domains when each connection is spread
/// over two or more queue pairs (NCCL_IB_QPS_PER_CONNECTION>=2, NCCL's "routing entropy" knob,
/// with NCCL_IB_AR_THRESHOLD=0 so all data may take adaptive routes), and it no longer falls
/// with the number of domains. Measured on the same B200 cluster with 8 NDR rails
/// (together-nccl-tests, flapping-airplanes reports): all_reduce ring 307 GB/s busbw at 4 nodes
/// without these settings, 384 with them; 388.4-390.0 GB/s flat from 2 to 64 nodes with them
/// (2026-05-09/12, NCCL 2.28.9), against 8 x 47.75 = 382 GB/s of goodput. NVIDIA's maintainers
/// give the same target: 46-49 GB/s per NDR NIC, "~396 GB/s with the RING protocol" on 8
/// (NVIDIA/nccl-tests issues 290, 319). With one QP ([`RING_EFFICIENCY`] and
/// [`RING_SCALE_LOSS`]) the ring keeps 0.86 at 2 nodes and loses more with scale. Why one QP
/// falls short is not stated by the sources; consistent with them: a QP's outstanding RDMA reads
/// of GPU memory over PCIe cap its rate (raising the NIC's MAX_ACC_OUT_READ restored internode
/// busbw in NVIDIA/nccl-tests issue 152), and GB200 trays, whose NICs read Grace memory, reach
/// line rate with one.
pub const MULTI_QP_RING_EFFICIENCY: f64 = 1.0;

/// Bytes one step of a connection's buffer holds, per protocol (LL, LL128, Simple): NCCL's
/// default buffer over `NCCL_STEPS` = 8 slots (NCCL 2.27.5 src/init.cc:618-620,
/// src/include/device.h:25, 93-111): LL 8 lines x 512 threads x 16 B, LL128 120 x 640 x 8 B,
/// Simple 4 MiB; RCCL keeps the same defaults. LL carries 8 data bytes per 16, LL128 120 per 128.
pub const STEP_BYTES: [f64; 3] = [65536.0, 614400.0, 524288.0];

/// Largest message aws-ofi-nccl's RDMA protocol sends eagerly, bytes (`EAGER_MAX_SIZE`, 8 KiB,
/// include/nccl_ofi_param.h, aws/aws-ofi-nccl @2daf7d30); a larger one goes by RDMA write
/// once the receiver's control message has named its buffer.
pub const EFA_EAGER_MAX: f64 = 8192.0;

/// What a network hop on a collective's critical path waits on EFA for a message above
/// [`EFA_EAGER_MAX`], us, before the message's own time on the wire hides it: one EFA round
/// trip (2 x [`EFA_LATENCY`]), the receiver's control message naming its buffer (aws-ofi-nccl's
/// RDMA protocol; sent when its proxy posts the receive, which in a ring or tree chain follows
/// the step before) and the write it releases. Not fitted: derived from the class's one-way
/// latency. `efa_rendezvous_wait_matches_the_rows` (tests/collectives_accuracy.rs) checks it
/// against the EFA rows from 64 KiB to 128 MiB (p5 at 32 MiB on 2-32 nodes,
/// crazyguitar/aws-gpu-communication-benchmark), whose gaps ask for a median of about 44 us
/// per hop; small LL messages (16-128 B rows) are eager and wait none.
pub const EFA_RENDEZVOUS_WAIT: Micros = Micros(2.0 * EFA_LATENCY.0);

/// The host's cost of handling one network message in the proxy thread (post, completion,
/// flush for Simple), us, as NCCL's tuning model charges it on every step of an inter-node ring
/// (`getNetOverhead`: 1 us on Intel hosts, 2 on AMD, x3 for Simple; NCCL 2.27.5
/// src/graph/tuning.cc:204-209 and 346-353; RCCL keeps it).
pub fn proxy_message_us(amd_cpu: bool, p: Protocol) -> f64 {
    (if amd_cpu { 2.0 } else { 1.0 }) * if p == Protocol::Simple { 3.0 } else { 1.0 }
}

/// The chunk a Tree moves per channel and step, bytes of data: a connection step (LL and LL128
/// less their flags), which NCCL 2.27.5 shrinks for LL128 and RCCL for Simple while the
/// message gives each channel few chunks (NCCL src/enqueue.cc:2038-2046; ROCm/rccl
/// src/enqueue.cc:1853-1858 @0cbce2a7, with NCCL's tree depth ppn - 1 + log2 nodes,
/// src/graph/connect.cc:141).
pub fn tree_chunk(p: Protocol, bytes: f64, channels: f64, per_domain: f64, domains: u32, rccl: bool) -> f64 {
    let step = STEP_BYTES[p as usize];
    let mut chunk = match p {
        Protocol::Ll => step / 2.0,
        Protocol::Ll128 => step / 16.0 * 15.0,
        Protocol::Simple => step,
    };
    let per = |c: f64| (bytes / (channels * c)).floor();
    let log2 = (domains.max(1) as f64).log2().floor();
    let halve = |chunk: &mut f64, below: f64, floor: f64| {
        while per(*chunk) < below && *chunk > floor {
            *chunk /= 2.0;
        }
    };
    match (p, rccl) {
        (Protocol::Ll128, false) => {
            let steps = 1.0 + log2 + 0.1 * per_domain;
            halve(&mut chunk, steps * 64.0 / per_domain, 131072.0);
            halve(&mut chunk, steps * 16.0 / per_domain, 32768.0);
        }
        (Protocol::Simple, true) => {
            let depth = per_domain - 1.0 + log2;
            halve(&mut chunk, depth * 8.0, 131072.0);
            halve(&mut chunk, depth * 4.0, 65536.0);
            halve(&mut chunk, depth, 32768.0);
        }
        _ => {}
    }
    chunk
}

/// What the flow model (crates/flow) found a collective keeps of the network's bandwidth on
/// the actual fabric (routing policy, neighbours, failures), for one seed: it replaces the
/// analytical routing factor, never multiplies it. Rings, trees and the other reductions take
/// `ring`: their network bandwidth is scaled by it in place of
/// [`NetPath::ring_routing_fraction`] (the expected ECMP collisions of the rings' few flows
/// where the design routes by ECMP; none under adaptive routing). All-to-all takes `all_to_all`
/// in place of [`NetPath::all_to_all_net_efficiency`]'s oversubscription-and-ECMP factor.
/// `None` leaves that part analytical. Dimensionless, in (0, 1].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlowFractions {
    pub ring: Option<f64>,
    pub all_to_all: Option<f64>,
}

/// The network as one communicator sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetPath {
    /// Scale-up domains the group spans.
    pub domains: u32,
    /// GPUs of the group in each domain.
    pub per_domain: u32,
    pub ranks: u32,
    /// NIC side: what the group's NICs in one domain deliver, GB/s per direction (goodput,
    /// after sharing with concurrent groups).
    pub nic_side: f64,
    /// GPU side: what the group's GPUs in one domain can push into their NICs over PCIe,
    /// GB/s per direction.
    pub gpu_side: f64,
    /// One NIC's goodput, GB/s per direction (point-to-point pairs use one).
    pub one_nic: f64,
    /// NVLSTree's NIC side and GPU side (GB/s per direction, after sharing): it leaves the
    /// domain through its NVLS heads' NICs, one per head, not through the rings' (see
    /// `collective::Comm::new`).
    pub nvls_tree_nic_side: f64,
    pub nvls_tree_gpu_side: f64,
    /// NCCL's NVLS channels ([`nvls_channels`](crate::nccl::constants::nvls_channels); not the NVLS graph's channel count, which is
    /// the head count) and NVLS heads per domain (0 without NVLS): each head's NIC carries one
    /// stream per channel.
    pub nvls_channels: u32,
    pub nvls_heads: u32,
    /// Chunk stores NVLSTree's fill adds on the network path ([`NVLS_TREE_STORE_AND_FORWARD`];
    /// another count only where the accuracy test refits it).
    pub nvls_tree_stores: f64,
    /// Per-GPU bandwidth inside the domain NCCL's rings can use, GB/s per direction: every
    /// ring and tree passes all of its channels through each GPU's scale-up links.
    pub intra: f64,
    /// Algorithm bandwidth of NVLS inside one domain of this group (GB/s; infinite without
    /// NVLS): NVLSTree reduces inside the domain before the network sees a byte.
    pub nvls_intra_algbw: f64,
    /// Extra latency of one network step beyond NCCL's InfiniBand tables, µs.
    pub step_extra: f64,
    /// Domains under one leaf (their traffic never reaches a spine) and the leaf's
    /// down:up oversubscription on the way out.
    pub domains_per_leaf: u32,
    pub oversubscription: f64,
    /// Domains under one pod of a three-tier tree (their traffic never reaches a core), and
    /// the leaf x spine oversubscription of the path through the core (1 without a core).
    pub domains_per_pod: u32,
    pub core_path_oversubscription: f64,
    pub routing: Routing,
    /// Leaf uplinks one rail's traffic can spread over (ECMP bins).
    pub uplinks: u32,
    /// Ring connections (before queue pairs) leaving one domain under one leaf, one per NIC
    /// the rings of every group tiling the domain use, and the leaves one domain's NICs
    /// spread over (1 without rails).
    pub leaf_flows: u32,
    pub leaf_groups: u32,
    /// [`NetPath::ring_routing_fraction`], kept (set by `collective::Comm`).
    pub ring_routing: f64,
    pub family: NetFamily,
    /// Queue pairs per NCCL connection (NCCL_IB_QPS_PER_CONNECTION): flows per connection.
    pub qps_per_connection: u32,
    /// NICs reached through the Grace CPU, not over a PCIe switch shared with the GPU (GB200
    /// trays), so the NIC's reads never wait on the GPU's PCIe path. NCCL 2.27.5 does read GPU
    /// memory directly there: GPUDirect RDMA through NVLink-C2C is on by default
    /// (`NCCL_NET_GDR_C2C=1`, src/graph/paths.cc:393 and 444-447; older releases staged through
    /// Grace memory, NVIDIA/nccl issue 1579); either way the path is the CPU's, not a PCIe
    /// switch's, and the efficiencies keyed on this flag were measured on it (issue 1801).
    pub host_staged: bool,
    /// The flow model's fractions in place of the analytical routing factors (None: analytical).
    pub flow: Option<FlowFractions>,
    /// Channels the rings and trees run on (NCCL's `nChannels`; RCCL's).
    pub channels: u32,
    /// The proxy's host: AMD CPUs handle a network message in twice the time ([`proxy_message_us`]).
    pub amd_cpu: bool,
    /// One network interface's goodput, GB/s per direction, after sharing (an EFA rail; the
    /// NCCL device `one_nic` stripes several on p5 and p5en).
    pub rail_bw: f64,
}

impl NetPath {
    /// Bytes one domain sends (per direction) per byte of the user's buffer, by algorithm:
    /// the ring passes 2(n-1)/n of an AllReduce through every domain boundary; trees and
    /// SHARP-style reductions send what their place in the tree sends.
    fn traffic(&self, func: Func, a: Algorithm) -> f64 {
        let n = self.ranks as f64;
        let d = self.domains as f64;
        match (a, func) {
            (Algorithm::Ring | Algorithm::Pat, Func::AllReduce) => 2.0 * (n - 1.0) / n,
            (Algorithm::Ring | Algorithm::Pat, Func::AllGather | Func::ReduceScatter) => (n - 1.0) / n,
            (Algorithm::Ring | Algorithm::Pat, Func::Broadcast | Func::Reduce) => 1.0,
            // Double binary tree, each tree carrying half the buffer: an inner domain with two
            // children sends half up and two halves down, and is a leaf (one half) in the other
            // tree: 2 buffers. Two domains send it once; three form chains (1.5).
            (Algorithm::Tree | Algorithm::NvlsTree, Func::AllReduce) => match self.domains {
                0..=2 => 1.0,
                3 => 1.5,
                _ => 2.0,
            },
            (Algorithm::Tree | Algorithm::NvlsTree, _) => 1.0,
            // The switches reduce: each domain sends and receives the buffer once.
            (Algorithm::CollNetDirect | Algorithm::CollNetChain | Algorithm::Nvls, Func::AllReduce) => 1.0,
            (Algorithm::CollNetDirect | Algorithm::CollNetChain | Algorithm::Nvls, _) => (d - 1.0) / d,
        }
    }

    /// Levels of a tree over the group's domains (at least 1): ceil(log2 domains).
    fn tree_depth(&self) -> f64 {
        (self.domains as f64).log2().ceil().max(1.0)
    }

    /// Network steps whose latency the family pays beyond InfiniBand's.
    fn steps(&self, func: Func, a: Algorithm) -> f64 {
        let d = self.domains as f64;
        let depth = self.tree_depth();
        match (a, func) {
            (Algorithm::Ring, Func::AllReduce) => 2.0 * (d - 1.0),
            (Algorithm::Ring, _) => d - 1.0,
            (Algorithm::Pat, _) => depth,
            (Algorithm::Tree | Algorithm::NvlsTree, _) => 2.0 * depth,
            _ => 2.0,
        }
    }

    /// What one domain injects into the network for NCCL's choice `a`, GB/s per direction:
    /// its NICs at the algorithm's efficiency, capped by its GPUs' side, times the flow
    /// model's routing fraction for the fabric the bytes cross (1 when not run).
    fn injection(&self, a: Algorithm) -> f64 {
        let (nic_eff, gpu_eff) = match a {
            Algorithm::Ring | Algorithm::Pat => (self.ring_nic_efficiency(), 1.0),
            Algorithm::Tree => (1.0, if self.host_staged { TREE_HOST_STAGED_EFFICIENCY } else { TREE_EFFICIENCY }),
            Algorithm::NvlsTree => (1.0, self.nvls_tree_efficiency()),
            Algorithm::CollNetDirect | Algorithm::CollNetChain => (1.0, COLLNET_EFFICIENCY),
            Algorithm::Nvls => (1.0, NVLS_SHARP_EFFICIENCY),
        };
        let (nic_side, gpu_side) = match a {
            Algorithm::NvlsTree => (self.nvls_tree_nic_side, self.nvls_tree_gpu_side),
            _ => (self.nic_side, self.gpu_side),
        };
        let routed = self.flow.and_then(|f| f.ring).unwrap_or(self.ring_routing);
        // The Tree's loss is the GPUs' (one head GPU per channel carries the chain's reduce and
        // broadcast over its PCIe link, [`TREE_EFFICIENCY`]): it caps the GPU side, so a domain
        // whose NICs are slower than that keeps its NICs' rate. The other classes' fractions
        // were read as fractions of whichever side binds.
        let side = match a {
            Algorithm::Tree => (nic_side * nic_eff).min(gpu_side * gpu_eff),
            _ => (nic_side * nic_eff).min(gpu_side) * gpu_eff,
        };
        side * routed
    }

    /// Algorithm bandwidth (GB/s) across the network for NCCL's choice `a`.
    pub fn algbw(&self, func: Func, a: Algorithm) -> f64 {
        let net = self.injection(a) / self.traffic(func, a);
        // Inside the domain: NVLS-based algorithms are bound by the switch's reduction, the
        // rest by each GPU's scale-up links, which carry what a ring would.
        let intra_cap = match a {
            Algorithm::Nvls | Algorithm::NvlsTree => self.nvls_intra_algbw,
            _ => self.intra / self.traffic(func, Algorithm::Ring),
        };
        net.min(intra_cap)
    }

    /// NVLSTree's pipeline fill (µs) for an AllReduce of `bytes` whose steady algorithm
    /// bandwidth is `algbw` (GB/s). NCCL 2.27.5 moves it as channels x heads streams of chunks
    /// (src/enqueue.cc:2021-2032); every stage forwards a whole chunk before the next stage
    /// starts on it (src/device/all_reduce.h:521-627: NVLS reduce to the head, the tree up and
    /// down across domains, NVLS multicast back), so the first chunk crosses the NVLS stage in,
    /// 2d network hops (d = the tree's depth over domains, ceil(log2 domains)), the store at
    /// the receiving end ([`NVLS_TREE_STORE_AND_FORWARD`], chosen in sample) and the NVLS
    /// stage out before the pipeline runs at its steady rate. A network hop moves one chunk at
    /// a head NIC's rate split over the NVLS channels that share it; an NVLS stage at twice the
    /// domain's NVLS all-reduce rate (half of it) split over all streams. The time is that
    /// path less the one chunk time the steady state already counts. The step at each chunk
    /// threshold is NCCL's (a larger chunk fills longer).
    pub fn nvls_tree_fill_us(&self, bytes: f64, algbw: f64) -> f64 {
        if self.nvls_channels == 0 || self.nvls_heads == 0 || self.domains < 2 || algbw <= 0.0 {
            return 0.0;
        }
        let (channels, heads) = (self.nvls_channels as f64, self.nvls_heads as f64);
        let ops = channels * heads;
        // A stream moves at most its share of the message: below one chunk per stream the
        // pipeline holds that share, not a whole chunk.
        let chunk = nvls_tree_chunk(bytes, ops, self.domains).min(bytes / ops);
        let depth = self.tree_depth();
        // GB/s is 1000 bytes per µs.
        let per_stream_net = self.injection(Algorithm::NvlsTree) / heads / channels * 1000.0;
        let per_stream_nvls = 2.0 * self.nvls_intra_algbw / ops * 1000.0;
        let steady = algbw / ops * 1000.0;
        let path = (2.0 * depth + self.nvls_tree_stores) * chunk / per_stream_net + 2.0 * chunk / per_stream_nvls;
        (path - chunk / steady).max(0.0)
    }

    /// A Simple Tree's pipeline fill (µs) on `c` channels of `chunk` bytes whose steady
    /// algorithm bandwidth is `algbw` (GB/s). NCCL 2.27.5 runs an AllReduce as `runTreeSplit` with
    /// `ProtoSimple<1, 1>` (src/device/all_reduce.h): a chunk is one slice of one step, the
    /// step of the Simple buffer (`STEP_BYTES`, no shrinking for Tree/Simple in
    /// src/enqueue.cc:1960-2046; RCCL shrinks it with the tree's depth, [`tree_chunk`]), or a
    /// channel's whole share when that is smaller, and each hop waits for the whole step before
    /// it forwards it. The first chunk climbs the domain's chain of `per_domain` GPUs (NCCL's
    /// tree inside a node is a chain, src/graph/connect.cc), goes up and down the tree over
    /// domains (2 x depth network hops, plus the chunk stored whole at the network path's two
    /// ends, as for NVLSTree: `NET_PATH_STORE_AND_FORWARD`), and descends the chain again before
    /// the pipeline runs at its steady rate. A network hop moves the
    /// chunk at the domain's tree injection split over the channels in use (at most one NIC's
    /// rate); a chain hop at the GPU's scale-up bandwidth split over them. The time is that path
    /// less the one chunk time the steady state already counts. Nothing is fitted.
    fn tree_simple_fill_us(&self, c: f64, chunk: f64, algbw: f64) -> f64 {
        if self.domains < 2 || algbw <= 0.0 {
            return 0.0;
        }
        let depth = self.tree_depth();
        // GB/s is 1000 bytes per µs.
        let per_channel_net = (self.injection(Algorithm::Tree) / c).min(self.one_nic) * 1000.0;
        let per_channel_chain = self.intra / c * 1000.0;
        let steady = algbw / c * 1000.0;
        let chain_hops = 2.0 * (self.per_domain.max(1) as f64 - 1.0);
        let path = (2.0 * depth + NET_PATH_STORE_AND_FORWARD) * chunk / per_channel_net + chain_hops * chunk / per_channel_chain;
        (path - chunk / steady).max(0.0)
    }

    /// Fraction of the NIC side a ring keeps across `domains`: one QP per connection reading
    /// GPU memory over PCIe pays the measured loss and its growth with scale; a full-rate
    /// transport ([`NetPath::multi_qp`]) does not.
    pub fn ring_nic_efficiency(&self) -> f64 {
        if self.multi_qp() {
            MULTI_QP_RING_EFFICIENCY
        } else {
            RING_EFFICIENCY / (1.0 + RING_SCALE_LOSS * (self.domains as f64).ln())
        }
    }

    /// Fraction of the injection bandwidth NVLSTree keeps: all of it between two domains; past
    /// that, what the busiest domain of the tree keeps with one or with several QPs.
    fn nvls_tree_efficiency(&self) -> f64 {
        if self.domains <= 2 {
            NVLS_TREE_TWO_DOMAIN_EFFICIENCY
        } else if self.multi_qp() {
            MULTI_QP_NVLS_TREE_EFFICIENCY
        } else {
            NVLS_TREE_EFFICIENCY
        }
    }

    /// Whether the transport runs at the NICs' full rate: RDMA connections spread over several
    /// queue pairs (sockets have none), or NICs fed from host memory, where one queue pair
    /// already does (GB200 across 3 racks: ring busbw 196.7 and 393.7 GB/s on 4 and 8 NDR NICs
    /// per rack, 0.98 of line rate, NVIDIA/nccl issue 1801).
    fn multi_qp(&self) -> bool {
        self.family != NetFamily::TcpSockets && (self.qps_per_connection >= 2 || self.host_staged)
    }

    /// Whether the domain's side of [`NetPath::algbw`] (the NVSwitch reduction for NVLS
    /// algorithms, the scale-up links for the rest) is what bounds `a`, not the network.
    pub fn intra_bound(&self, func: Func, a: Algorithm) -> bool {
        let intra_cap = match a {
            Algorithm::Nvls | Algorithm::NvlsTree => self.nvls_intra_algbw,
            _ => self.intra / self.traffic(func, Algorithm::Ring),
        };
        intra_cap <= self.algbw(func, a) * (1.0 + 1e-9)
    }

    /// Latency (µs) to add to NCCL's for `a`: the family's extra per-step latency, and the
    /// extra switch hops when the group spans more than one leaf.
    pub fn extra_latency(&self, func: Func, a: Algorithm) -> f64 {
        self.steps(func, a) * self.step_extra
    }

    /// Channels a Tree of `bytes` runs on with protocol `p`: NCCL drops channels while
    /// `bytes < channels x threads x threshold` (512 threads, threshold 8 bytes for LL and
    /// LL128, 64 for Simple: NCCL 2.27.5 src/enqueue.cc:1852-1856, src/graph/tuning.cc:519-522,
    /// src/include/comm.h:38-40).
    fn used_channels(&self, p: Protocol, bytes: f64) -> f64 {
        let per = 512.0 * if p == Protocol::Simple { 64.0 } else { 8.0 };
        (bytes / per).ceil().clamp(1.0, self.channels.max(1) as f64)
    }

    /// The message one network step of `a` carries per channel for `bytes`, bytes on the wire:
    /// a ring step's share of the buffer (its piece for one rank), a tree's or NVLSTree's chunk,
    /// at most what one step of the buffer holds (a Simple ring's slice is two, 1 MiB,
    /// `ALLREDUCE_SLICESTEPS`, NCCL src/include/collectives.h:17); LL and LL128 with their flags.
    fn step_message(&self, func: Func, a: Algorithm, p: Protocol, bytes: f64, rccl: bool) -> f64 {
        let c = self.used_channels(p, bytes);
        let step = STEP_BYTES[p as usize];
        let (data, wire) = match p {
            Protocol::Ll => (step / 2.0, 2.0),
            Protocol::Ll128 => (step / 16.0 * 15.0, 16.0 / 15.0),
            Protocol::Simple => (step * if a == Algorithm::Ring { 2.0 } else { 1.0 }, 1.0),
        };
        let piece = match a {
            Algorithm::Tree => tree_chunk(p, bytes, c, self.per_domain as f64, self.domains, rccl),
            Algorithm::NvlsTree => nvls_tree_chunk(bytes, c * self.nvls_heads.max(1) as f64, self.domains),
            Algorithm::Ring | Algorithm::Pat => bytes / (c * self.ranks.max(1) as f64),
            _ => bytes / c,
        };
        let _ = func;
        piece.min(data).min(bytes / c) * wire
    }

    /// The rendezvous wait (us) of one network hop of `a` at `bytes`, and the hops on the
    /// critical path that pay it (`NetPath::steps`): on EFA, [`EFA_RENDEZVOUS_WAIT`] less the
    /// time the step's message spends on one rail (`rail_bw`: aws-ofi-nccl sends a message of
    /// up to 128 KiB, `MIN_STRIPE_SIZE`, on one interface, src/nccl_ofi_scheduler.cpp), which
    /// covers the next message's control trip, when the message exceeds [`EFA_EAGER_MAX`]. LL128
    /// and Simple only: the EFA rows that run LL are eager (16-128 B), and whether LL's larger
    /// flagged messages wait too is not measured. None on RDMA verbs, whose NCCL transport
    /// NCCL's tables were tuned on (its latency holds it).
    pub fn rendezvous(&self, func: Func, a: Algorithm, p: Protocol, bytes: f64, rccl: bool) -> (f64, f64) {
        let m = self.step_message(func, a, p, bytes, rccl);
        if self.family != NetFamily::Efa || p == Protocol::Ll || m <= EFA_EAGER_MAX || self.rail_bw <= 0.0 {
            return (0.0, 0.0);
        }
        // GB/s is 1000 bytes per us.
        ((EFA_RENDEZVOUS_WAIT.0 - m / (1000.0 * self.rail_bw)).max(0.0), self.steps(func, a))
    }

    /// The message-handling terms of `a` at `bytes` on top of NCCL's (or RCCL's) own: the
    /// rendezvous wait and a Simple Tree's pipeline fill (us, [`NetPath::rendezvous`],
    /// [`NetPath::tree_simple_fill_us`]) and the algorithm bandwidth `bw`
    /// (GB/s) capped by what the proxy can pass. A Simple Tree moves each channel's share of the
    /// buffer as chunks ([`tree_chunk`]) that the head GPU of every domain's chain handles twice
    /// in its proxy thread (received on the way up and sent on the way down, or the other way
    /// round), for each channel it heads, at [`proxy_message_us`] a message (its receive waits
    /// for a flush: NCCL charges Simple's network steps 3x and a flush latency): a message of a
    /// few MiB in 32-64 KiB chunks (RCCL's Simple tree) is proxy-bound, not wire-bound. LL and
    /// LL128 need no flush, and pass much faster: 2 RoCE nodes of one H100 each ran Tree/LL128
    /// at 2 MiB in 113 us, 256 chunks of 16 channels through one proxy (NVIDIA/nccl-tests issue
    /// 232), under 0.5 us a chunk. Rings pay the per-step cost in NCCL's own latency term.
    pub fn message_terms(&self, func: Func, a: Algorithm, p: Protocol, bytes: f64, bw: f64, rccl: bool) -> (f64, f64) {
        let (per_hop, hops) = self.rendezvous(func, a, p, bytes, rccl);
        let wait = per_hop * hops;
        if a != Algorithm::Tree || p != Protocol::Simple || bytes <= 0.0 {
            return (wait, bw);
        }
        let c = self.used_channels(p, bytes);
        let chunk = tree_chunk(p, bytes, c, self.per_domain as f64, self.domains, rccl);
        let chunks = (bytes / (c * chunk)).ceil().max(1.0);
        let heads = (c / self.per_domain.max(1) as f64).ceil();
        let floor = 2.0 * chunks * heads * proxy_message_us(self.amd_cpu, p);
        // GB/s is 1000 bytes per us.
        (wait + self.tree_simple_fill_us(c, chunk.min(bytes / c), bw), bw.min(bytes / (1000.0 * floor)))
    }

    /// Bandwidth (GB/s per direction) of one point-to-point pair across the network.
    pub fn p2p_bw(&self) -> f64 {
        let d = (self.domains as f64 / 2.0).max(1.0);
        self.one_nic * P2P_EFFICIENCY / (1.0 + P2P_SCALE_LOSS * d.ln())
    }

    /// Fraction of its fair share an all-to-all keeps when its cross-leaf bytes meet the
    /// oversubscribed uplinks and, on Ethernet, ECMP's hash collisions.
    ///
    /// Each NIC under a full leaf sends one connection (of `qps_per_connection` flows) to its
    /// rail peer in every domain outside the leaf, so a leaf hashes leaf x (d - leaf) x qps
    /// flows onto its uplinks. The uplinks' mean load, relative to their capacity, is the
    /// oversubscription times the share of bytes that leave the leaf, (d - leaf) / d; the
    /// fullest uplink carries that over [`ecmp_efficiency`]. The all-to-all slows down only
    /// where the fullest uplink is over capacity, so it varies smoothly with the node count
    /// (a model of one flow per uplink, from the 65th node on, dropped busbw five-fold at
    /// once; ECMP's flow-level spread is for the flow model to give).
    pub fn all_to_all_net_efficiency(&self) -> f64 {
        if let Some(f) = self.flow.and_then(|f| f.all_to_all) {
            // The flow model's fraction replaces this whole factor (its own oversubscription,
            // collisions, neighbours and failures): not both.
            return f;
        }
        let d = self.domains as f64;
        if self.domains <= self.domains_per_leaf {
            return 1.0;
        }
        // A leaf's uplinks carry what leaves the leaf; a pod's spines carry what leaves the pod.
        let leaf = self.domains_per_leaf.min(self.domains) as f64;
        let pod = self.domains_per_pod.min(self.domains) as f64;
        let at_leaf = self.oversubscription * (d - leaf) / d;
        let at_spine = self.core_path_oversubscription * (d - pod) / d;
        let qps = self.qps_per_connection.max(1) as f64;
        let uplinks = self.uplinks.max(1) as f64;
        // The spread a leaf's hash gives the flows that leave it (those leaving the pod too).
        let spread = |flows: f64| match self.routing {
            Routing::Adaptive => 1.0,
            Routing::Ecmp => ecmp_efficiency(flows, uplinks),
        };
        let leaf_load = at_leaf / spread(leaf * (d - leaf) * qps);
        let spine_load = if pod < d { at_spine / spread(leaf * (d - pod) * qps) } else { 0.0 };
        1.0 / leaf_load.max(spine_load).max(1.0)
    }
}

impl NetPath {
    /// Expected fraction of the network bandwidth the group's rings keep under the design's
    /// routing, before any flow model runs: 1 under adaptive routing (and spraying, EFA's
    /// SRD), and under ECMP the ring's expected slowest link. A ring over contiguous domains
    /// crosses from one leaf's block of domains to the next `blocks` times (it closes); at each
    /// crossing the domain at the edge sends `leaf_flows` ring connections under each of its
    /// leaves (one per NIC a ring uses, as crates/flow's default channels), `qps` flows each
    /// (each QP hashed on its own), which the leaf hashes onto its `uplinks` and the spines
    /// onto the `uplinks` links into the next leaf: two independent draws per crossing and per
    /// leaf of the domain, and every flow of the ring, hence the collective, runs at the rate
    /// of the fullest link on the path of the slowest ([`expected_max_load`]). A NIC carries
    /// `qps` of them alone, so the fraction is qps / E[max(qps, fullest link)]: rails whose
    /// rings stay one connection per leaf keep 1. Through a core the spines' own hashes add
    /// draws this count leaves out (fewer flows each: a lower bound on the loss there).
    pub fn ring_routing_fraction(&self) -> f64 {
        let blocks = self.domains.div_ceil(self.domains_per_leaf.max(1));
        if self.routing != Routing::Ecmp || blocks < 2 {
            return 1.0;
        }
        let qps = self.qps_per_connection.max(1);
        let draws = 2 * blocks * self.leaf_groups.max(1);
        qps as f64 / expected_max_load(self.leaf_flows.max(1) * qps, self.uplinks.max(1), draws, qps)
    }
}

/// Most flows [`expected_max_load`] counts exactly (count); above, each link's load is taken as
/// an independent Poisson draw, which the multinomial approaches as flows per link grow
/// (Raab and Steger, "Balls into Bins: A Simple and Tight Analysis", RANDOM 1998).
const EXACT_FLOWS: u32 = 64;

/// E[max(floor, M)], M the fullest link over `draws` independent hashings of `flows` equal flows
/// onto `links` equal links (uniform, each flow on its own: balls into bins). Exact below
/// [`EXACT_FLOWS`]: P(all links hold <= m) = n!/k^n [x^n] (sum over c <= m of x^c/c!)^k, the
/// multinomial's generating function, taken one link at a time; E[M] = sum over m >= 1 of
/// P(M >= m).
pub fn expected_max_load(flows: u32, links: u32, draws: u32, floor: u32) -> f64 {
    let (n, k) = (flows as usize, links.max(1));
    let lambda = flows as f64 / k as f64;
    // P(one draw's fullest link holds <= m).
    let cdf = |m: usize| -> f64 {
        if flows > EXACT_FLOWS {
            return (1.0 - poisson_tail(lambda, m as u64 + 1)).powi(k as i32);
        }
        let mut g = vec![0.0; n + 1];
        g[0] = 1.0;
        for _ in 0..k {
            for t in (0..=n).rev() {
                let (mut s, mut w) = (0.0, 1.0);
                for c in 0..=m.min(t) {
                    s += g[t - c] * w;
                    w /= (c + 1) as f64;
                }
                g[t] = s;
            }
        }
        (1..=n).fold(g[n], |x, i| x * i as f64 / k as f64)
    };
    let start = (floor as usize).max(n.div_ceil(k as usize));
    let mut e = start as f64;
    for m in start..n {
        let q = 1.0 - cdf(m).powi(draws as i32);
        e += q;
        if q < 1e-9 {
            break;
        }
    }
    e
}

/// Throughput of the slowest of `flows` equal flows hashed at random onto `links` equal links,
/// against a perfect spread: the expected fullest link holds k flows, where
/// links x P(Poisson(flows/links) >= k) = 1 (balls into bins), and a collective runs at the
/// speed of its slowest flow. k is interpolated between whole flows (on the logarithm of that
/// expected count), so the figure is continuous in `flows`; many flows per link average out
/// (efficiency towards 1), one per link leaves the fullest with several.
pub fn ecmp_efficiency(flows: f64, links: f64) -> f64 {
    if !(flows > 1.0 && links > 1.0 && flows.is_finite() && links.is_finite()) {
        return 1.0;
    }
    let lambda = flows / links;
    // links x P(X >= k): the expected number of links holding k flows or more.
    let over = |k: u64| links * poisson_tail(lambda, k);
    // The smallest whole k with over(k) <= 1, by bisection (over falls with k).
    let mut lo = (lambda.floor() as u64).max(1);
    if over(lo) <= 1.0 {
        lo = 1;
    }
    let mut hi = lo + 1;
    while over(hi) > 1.0 {
        lo = hi;
        hi = lo + 1 + (10.0 * lambda.sqrt()) as u64;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if over(mid) > 1.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // Between lo (over > 1) and hi (over <= 1): where the logarithm of the count crosses 0.
    let (a, b) = (over(lo).ln(), over(hi).max(f64::MIN_POSITIVE).ln());
    let k = if a > b { lo as f64 + a / (a - b) } else { hi as f64 };
    (lambda.max(1.0) / k).min(1.0)
}

/// P(X >= k) for X ~ Poisson(lambda), summed upwards from k in log space (no underflow at
/// thousands of flows per link).
fn poisson_tail(lambda: f64, k: u64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    let kf = k as f64;
    let mut term = (-lambda + kf * lambda.ln() - ln_factorial(k)).exp();
    let mut sum = 0.0;
    let mut i = kf;
    while term > sum * 1e-17 && term > 0.0 {
        sum += term;
        i += 1.0;
        term *= lambda / i;
    }
    if sum == 0.0 && kf < lambda {
        // Terms below the mode that underflow: the tail is essentially all of the mass.
        return 1.0;
    }
    sum.min(1.0)
}

/// ln(k!): exact below 30, Stirling's series (error below 1e-12) above.
fn ln_factorial(k: u64) -> f64 {
    if k < 30 {
        return (2..=k).map(|i| (i as f64).ln()).sum();
    }
    let x = k as f64;
    x * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI * x).ln() + 1.0 / (12.0 * x) - 1.0 / (360.0 * x * x * x)
}

/// Blackwell's NVLink5 ring (Simple protocol) inside one NVLink domain reaches this fraction of
/// the bandwidth NCCL's tuning model plans for it. Measured large-message ring busbw against
/// that plan: DGX B200 700 GB/s (GTC24 S62129), GB200 NVL72 32 GPUs 680 (GTC25 S72583), 8x B300
/// 695, DGXC B200 all_reduce 679 and all_gather 673.6 (together-nccl-tests), one GB200 tray
/// 679.6 at 8 GiB (Azure ND GB200 v6), against 713-719 planned: ratios 0.94-0.97, median 0.95.
/// One value for the class (NVLink5 domains of 4 to 32 GPUs); Hopper's rings meet the plan.
pub const BLACKWELL_NVLINK_RING_EFFICIENCY: f64 = 0.95;

/// Blackwell's in-domain ring correction (1 elsewhere; see the constant).
pub fn ring_intra_efficiency(arch: Arch) -> f64 {
    match arch {
        Arch::Blackwell => BLACKWELL_NVLINK_RING_EFFICIENCY,
        _ => 1.0,
    }
}

/// NVLS efficiency inside a domain of `gpus` on `arch` (Blackwell only; see the constants).
pub fn nvls_intra_efficiency(arch: Arch, gpus: u32) -> f64 {
    match arch {
        Arch::Blackwell => {
            let doublings = (gpus.max(8) as f64 / 8.0).log2();
            NVLS_BLACKWELL_EFFICIENCY - NVLS_LOSS_PER_DOUBLING * doublings
        }
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecmp_collisions_cost_more_with_more_flows_per_link() {
        // One flow per link: the fullest of 32 links holds several flows.
        let one = ecmp_efficiency(32.0, 32.0);
        assert!(one < 0.5 && one > 0.2, "{one}");
        // Many small flows average out.
        let many = ecmp_efficiency(32.0 * 16.0, 32.0);
        assert!(many > 0.6 && many > one, "{many}");
        assert_eq!(ecmp_efficiency(1.0, 32.0), 1.0);
    }

    #[test]
    fn ecmp_efficiency_is_continuous_and_tends_to_one_with_many_flows() {
        // No step larger than 2% between neighbouring flow counts, from one flow per link to
        // hundreds (the previous search stopped at 64 flows on a link: a 7% jump there).
        let mut last = ecmp_efficiency(64.0, 64.0);
        for f in 65..=64 * 200 {
            let e = ecmp_efficiency(f as f64, 64.0);
            assert!((e - last).abs() < 0.02, "{f} flows: {last} then {e}");
            assert!(e > 0.0 && e <= 1.0);
            last = e;
        }
        // Balls into bins: the fullest of 64 links holds about lambda + 3 sqrt(lambda) flows at
        // lambda = 1024 (P(Z > 2.4) x 64 = 0.5), so about 0.9; at 10^6 flows per link, 0.997.
        let e = ecmp_efficiency(64.0 * 1024.0, 64.0);
        assert!(e > 0.88 && e < 0.95, "{e}");
        let e = ecmp_efficiency(64.0 * 1e6, 64.0);
        assert!(e > 0.995 && e < 1.0, "{e}");
    }

    /// Balls into bins counted by hand: 2 flows on 2 links collide half the time (E = 1.5);
    /// 3 on 3 spread out 6 ways in 27, pile up 3 ways, else 2 share (E = 51/27); one link
    /// holds them all; the floor counts; 8 flows on 30 links over 12 draws (the 64-node
    /// RoCE design: 6 leaf crossings, up and down) is 2.518, as the multinomial's generating
    /// function n!/k^n [x^n] (sum over j <= m of x^j/j!)^k gives in exact rationals; the flow
    /// model's 32 seeds saw a mean fraction of 0.404.
    #[test]
    fn expected_max_load_counts_balls_into_bins() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(expected_max_load(2, 2, 1, 1), 1.5));
        assert!(close(expected_max_load(3, 3, 1, 1), 51.0 / 27.0));
        assert!(close(expected_max_load(5, 1, 3, 1), 5.0));
        assert!(close(expected_max_load(2, 2, 1, 2), 2.0));
        assert!((expected_max_load(8, 30, 12, 1) - 2.518_21).abs() < 1e-4);
        // More draws or fewer links never lower it; the exact count meets the Poisson one at
        // its threshold within a few percent.
        assert!(expected_max_load(8, 30, 24, 1) > expected_max_load(8, 30, 12, 1));
        assert!(expected_max_load(8, 15, 12, 1) > expected_max_load(8, 30, 12, 1));
        let (a, b) = (expected_max_load(EXACT_FLOWS, 16, 4, 1), expected_max_load(EXACT_FLOWS + 1, 16, 4, 1));
        assert!(b >= a * 0.97 && b <= a * 1.1, "{a} {b}");
    }

    /// Adaptive routing, one leaf, or one connection per leaf (rails) keep the whole network;
    /// ECMP across leaves does not, and more queue pairs (more, smaller flows) win some back.
    #[test]
    fn rings_lose_to_ecmp_only_where_flows_can_collide() {
        let ecmp = |domains, per_leaf, flows, qps| NetPath { routing: Routing::Ecmp, domains_per_leaf: per_leaf, uplinks: 30, leaf_flows: flows, qps_per_connection: qps, ..path(domains, 1, false) };
        assert_eq!(path(64, 1, false).ring_routing_fraction(), 1.0);
        assert_eq!(NetPath { domains_per_leaf: 11, uplinks: 30, ..path(64, 1, false) }.ring_routing_fraction(), 1.0);
        assert_eq!(ecmp(8, 11, 8, 1).ring_routing_fraction(), 1.0);
        assert_eq!(ecmp(64, 11, 1, 1).ring_routing_fraction(), 1.0);
        let one = ecmp(64, 11, 8, 1).ring_routing_fraction();
        assert!((one - 1.0 / 2.518_21).abs() < 1e-4, "{one}");
        assert!(ecmp(64, 11, 8, 2).ring_routing_fraction() > one);
    }

    /// 8 NDR NICs per domain (8 x 47.75 GB/s), PCIe-capped at 8 x 48, one leaf, InfiniBand.
    fn path(domains: u32, qps: u32, host_staged: bool) -> NetPath {
        NetPath {
            domains,
            per_domain: 8,
            ranks: 8 * domains,
            nic_side: 382.0,
            gpu_side: 384.0,
            one_nic: 47.75,
            nvls_tree_nic_side: 382.0,
            nvls_tree_gpu_side: 384.0,
            nvls_channels: 16,
            nvls_heads: 8,
            nvls_tree_stores: NVLS_TREE_STORE_AND_FORWARD,
            intra: 1e9,
            nvls_intra_algbw: f64::INFINITY,
            step_extra: 0.0,
            domains_per_leaf: domains,
            oversubscription: 1.0,
            domains_per_pod: domains,
            core_path_oversubscription: 1.0,
            routing: Routing::Adaptive,
            uplinks: 1,
            leaf_flows: 8,
            leaf_groups: 1,
            ring_routing: 1.0,
            family: NetFamily::InfiniBand,
            qps_per_connection: qps,
            host_staged,
            flow: None,
            channels: 16,
            amd_cpu: false,
            rail_bw: 47.75,
        }
    }

    /// NCCL 2.27.5 src/enqueue.cc:2021-2032 with its defaults: 128 KiB, 64 KiB from 4 nodes,
    /// halved below 4 rounds of channels x heads chunks and again below one.
    #[test]
    fn nvls_tree_chunks_follow_nccl() {
        let mib = |m: f64| m * 1024.0 * 1024.0;
        // NVL72 racks: 32 channels x 32 heads.
        assert_eq!(nvls_tree_chunk(mib(512.0), 1024.0, 2), 131072.0);
        assert_eq!(nvls_tree_chunk(mib(511.9), 1024.0, 2), 65536.0);
        assert_eq!(nvls_tree_chunk(mib(64.0), 1024.0, 2), 65536.0);
        assert_eq!(nvls_tree_chunk(mib(63.9), 1024.0, 2), 32768.0);
        assert_eq!(nvls_tree_chunk(mib(16384.0), 1024.0, 20), 65536.0);
        assert_eq!(nvls_tree_chunk(mib(32.0), 1024.0, 20), 32768.0);
        // 8-GPU nodes: 16 channels x 8 heads.
        assert_eq!(nvls_tree_chunk(mib(64.0), 128.0, 2), 131072.0);
        assert_eq!(nvls_tree_chunk(mib(8.0), 128.0, 4), 65536.0);
        assert_eq!(nvls_tree_chunk(mib(4.0), 128.0, 4), 32768.0);
    }

    #[test]
    fn a_double_binary_tree_loads_its_busiest_domain_with_two_buffers() {
        let sent = |d| path(d, 1, false).traffic(Func::AllReduce, Algorithm::Tree);
        assert_eq!((sent(2), sent(3), sent(4), sent(64)), (1.0, 1.5, 2.0, 2.0));
        // So Tree busbw is flat from 4 domains, as DGX Cloud B200 measured (190.7-193.5 GB/s).
        let busbw = |d: u32| path(d, 1, false).algbw(Func::AllReduce, Algorithm::Tree) * 2.0 * (8.0 * d as f64 - 1.0) / (8.0 * d as f64);
        assert!((busbw(4) - 190.7).abs() < 190.7 * 0.03 && (busbw(32) - 193.5).abs() < 193.5 * 0.03, "{} {}", busbw(4), busbw(32));
    }

    #[test]
    fn several_queue_pairs_or_host_staging_give_a_ring_the_nics_goodput() {
        let ring = |d, q, h| path(d, q, h).algbw(Func::AllReduce, Algorithm::Ring);
        // One QP: DGX Cloud B200, 334.8 GB/s busbw at 4 nodes (algbw x 2(31)/32).
        assert!((ring(4, 1, false) * 62.0 / 32.0 - 334.8).abs() < 334.8 * 0.03);
        // Two QPs, or GB200 trays fed from Grace memory: the full 382 GB/s, at 4 or 64 nodes.
        for d in [4, 64] {
            assert_eq!(ring(d, 2, false), ring(d, 1, true));
            assert!(ring(d, 2, false) > ring(d, 1, false));
            let n = 8.0 * d as f64;
            assert!((ring(d, 2, false) * 2.0 * (n - 1.0) / n - 382.0).abs() < 0.01);
        }
    }

    #[test]
    fn blackwell_nvls_loses_with_domain_size() {
        assert_eq!(nvls_intra_efficiency(Arch::Hopper, 8), 1.0);
        let b8 = nvls_intra_efficiency(Arch::Blackwell, 8);
        let b72 = nvls_intra_efficiency(Arch::Blackwell, 72);
        assert!(b8 > b72 && b72 > 0.7);
    }
}
