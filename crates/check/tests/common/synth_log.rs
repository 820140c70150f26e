//! Synthetic nccl-tests logs for the check tests: a header, rank lines, and result rows whose
//! columns agree as nccl-tests prints them (algbw = size / time, busbw = algbw x the
//! collective's factor), at a chosen plateau busbw.

use std::fmt::Write;

/// What to write.
#[derive(Clone, Debug)]
pub struct Synth {
    /// `all_reduce_perf`, `all_gather_perf`, ...
    pub test: &'static str,
    /// (host, GPUs on it): one rank line per GPU unless `last_rank_only`.
    pub hosts: Vec<(String, u32)>,
    /// The name each rank line ends with ("" for none).
    pub gpu: String,
    /// Lines before the header (NCCL_DEBUG, a command line).
    pub preamble: Vec<String>,
    /// Prefix of every line (`[1,0]<stdout>:`).
    pub prefix: String,
    /// Print only the highest rank's line (a large run).
    pub last_rank_only: bool,
    /// Large-message busbw, GB/s; smaller sizes ramp up to it.
    pub plateau_busbw: f64,
    pub min_bytes: u64,
    pub max_bytes: u64,
}

impl Default for Synth {
    fn default() -> Self {
        Synth {
            test: "all_reduce_perf",
            hosts: vec![("node0".into(), 8)],
            gpu: "NVIDIA H100 80GB HBM3".into(),
            preamble: Vec::new(),
            prefix: String::new(),
            last_rank_only: false,
            plateau_busbw: 100.0,
            min_bytes: 8,
            max_bytes: 8 << 30,
        }
    }
}

impl Synth {
    pub fn ranks(&self) -> u64 {
        self.hosts.iter().map(|h| u64::from(h.1)).sum()
    }

    /// busbw / algbw of the test at `n` ranks.
    fn factor(&self, n: f64) -> f64 {
        match self.test {
            "all_reduce_perf" => 2.0 * (n - 1.0) / n,
            "all_gather_perf" | "reduce_scatter_perf" | "alltoall_perf" => (n - 1.0) / n,
            _ => 1.0,
        }
    }

    pub fn text(&self) -> String {
        let p = &self.prefix;
        let mut s = String::new();
        for l in &self.preamble {
            let _ = writeln!(s, "{p}{l}");
        }
        let _ = writeln!(s, "{p}$ mpirun -np {} ./build/{} -b {} -e {} -f 2 -g 1", self.ranks(), self.test, self.min_bytes, self.max_bytes);
        let _ = writeln!(s, "{p}# nThread 1 nGpus 1 minBytes {} maxBytes {} step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0", self.min_bytes, self.max_bytes);
        let _ = writeln!(s, "{p}#\n{p}# Using devices");
        let mut rank = 0u64;
        let last = self.ranks().saturating_sub(1);
        for (host, k) in &self.hosts {
            for d in 0..*k {
                if !self.last_rank_only || rank == last {
                    let _ = writeln!(s, "{p}#  Rank {rank:>2} Group  0 Pid {:>6} on {host} device {d:>2} [0x{:02x}] {}", 1000 + rank, d, self.gpu);
                }
                rank += 1;
            }
        }
        let _ = writeln!(s, "{p}#\n{p}#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong");
        let n = self.ranks().max(1) as f64;
        let f = self.factor(n).max(1e-9);
        let mut bytes = self.min_bytes.max(1);
        while bytes <= self.max_bytes {
            // busbw ramps as bytes / (bytes + half-size), half-size 4 MiB.
            let busbw = self.plateau_busbw * bytes as f64 / (bytes as f64 + (4u64 << 20) as f64);
            let algbw = busbw / f;
            let time = bytes as f64 / (algbw * 1e3);
            let _ = writeln!(
                s,
                "{p}{bytes:>12} {:>13}     float     sum      -1 {time:>8.2} {algbw:>7.2} {busbw:>7.2}      0 {time:>8.2} {algbw:>7.2} {busbw:>7.2}      0",
                bytes / 4
            );
            bytes *= 2;
        }
        let _ = writeln!(s, "{p}# Out of bounds values : 0 OK\n{p}# Avg bus bandwidth    : {:.3}\n{p}#", self.plateau_busbw / 2.0);
        s
    }
}
