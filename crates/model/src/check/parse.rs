//! Reads nccl-tests output as people paste it: one or several runs of any `*_perf` test, the
//! `# nThread` and `#  Rank` header, out-of-place and in-place columns, with launcher,
//! Slurm and NCCL_DEBUG lines mixed in. Every line is accounted for: a header, a result row,
//! known chatter (counted), or unread (returned with its line number). Never panics.

use crate::collective::Collective;
use crate::error::{printable, ModelError, Result};

/// Longest text kept of an unread line (characters).
const UNREAD_TEXT_CHARS: usize = 120;
/// Unread lines listed at most (the rest are counted): a 1 MiB log of noise stays small.
const MAX_UNREAD_LISTED: usize = 200;
/// Result rows read at most over all runs (a real sweep has about 40 per run).
const MAX_ROWS: usize = 20_000;

/// One column group of a result row (nccl-tests prints out-of-place, then in-place).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measure {
    /// Time of one operation, µs.
    pub time_us: f64,
    /// GB/s per direction, as printed.
    pub algbw: f64,
    pub busbw: f64,
}

/// One result row.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// 1-based line number in the text.
    pub line: usize,
    pub bytes: u64,
    pub count: u64,
    /// The reduction column (`sum`, `none`, ...) where printed.
    pub redop: Option<String>,
    /// The root column where printed (-1 for none).
    pub root: Option<i64>,
    pub out_of_place: Measure,
    pub in_place: Option<Measure>,
}

/// One run of one test: its header and its rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Run {
    /// The collective, where the log names it (`Collective test starting: all_reduce_perf`,
    /// or a command line with `all_reduce_perf`); else inferred by [`Run::op`].
    pub named_op: Option<Collective>,
    /// `#  Rank` lines seen.
    pub ranks: u32,
    /// Hosts of those ranks, in order of first appearance, and ranks on each.
    pub hosts: Vec<(String, u32)>,
    /// The GPU name the header prints (`NVIDIA H100 80GB HBM3`).
    pub gpu_name: Option<String>,
    pub rows: Vec<Row>,
    /// The `# Avg bus bandwidth` figure, where printed.
    pub avg_busbw: Option<f64>,
    /// GPUs each process drives (`nGpus` of the header, nccl-tests' `-g`).
    pub gpus_per_process: Option<u32>,
}

/// A line that could not be read.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Unread {
    pub line: usize,
    pub text: String,
}

/// What a log held.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Log {
    pub runs: Vec<Run>,
    /// Lines neither nccl-tests output nor known chatter (the first [`MAX_UNREAD_LISTED`]).
    pub unread: Vec<Unread>,
    pub unread_count: usize,
    /// NCCL_DEBUG, MPI and Slurm lines recognised and skipped.
    pub chatter: usize,
}

/// The collective of a test binary name in `text` (`all_reduce_perf`, `alltoall_perf_mpi`).
fn op_named(text: &str) -> Option<Collective> {
    const BINARIES: [(&str, Collective); 7] = [
        ("all_reduce_perf", Collective::AllReduce),
        ("all_gather_perf", Collective::AllGather),
        ("reduce_scatter_perf", Collective::ReduceScatter),
        ("alltoall_perf", Collective::AllToAll),
        ("broadcast_perf", Collective::Broadcast),
        ("sendrecv_perf", Collective::SendRecv),
        ("reduce_perf", Collective::Reduce),
    ];
    // `reduce_perf` is a suffix of the others: the longest name found first wins.
    BINARIES.iter().find(|(b, _)| text.contains(b)).map(|(_, op)| *op)
}

/// Drops launcher prefixes: `[1,0]<stdout>:`, `[0]`, `0:` (srun -l), `host: `.
fn strip_prefix(line: &str) -> &str {
    let mut s = line.trim_start();
    loop {
        let before = s;
        if s.starts_with('[') {
            if let Some(end) = s.find(']') {
                let inner = &s[1..end];
                if inner.chars().all(|c| c.is_ascii_digit() || c == ',') {
                    s = s[end + 1..].trim_start_matches("<stdout>:").trim_start_matches("<stderr>:").trim_start();
                }
            }
        }
        if let Some((head, rest)) = s.split_once(": ") {
            if !head.is_empty() && head.len() < 64 && head.chars().all(|c| c.is_ascii_alphanumeric() || "-_.,".contains(c)) {
                s = rest.trim_start();
            }
        }
        if s == before {
            return s;
        }
    }
}

/// Launcher and library lines that come with nccl-tests output.
fn is_chatter(s: &str) -> bool {
    const MARKS: [&str; 14] = [
        "NCCL INFO", "NCCL WARN", "NCCL version", "NCCL_", "mpirun", "srun", "slurm", "SLURM", "pmix", "PMIX", "OMPI", "UCX", "Warning", "WARNING",
    ];
    MARKS.iter().any(|m| s.contains(m))
}

/// `#  Rank  0 Group  0 Pid 1234 on host device  0 [0x..] NVIDIA H100 80GB HBM3` (older
/// versions have no `Group`): the host and the GPU name.
fn rank_line(s: &str) -> Option<(String, Option<String>)> {
    let t: Vec<&str> = s.split_whitespace().collect();
    let on = t.iter().position(|w| *w == "on")?;
    let host = t.get(on + 1)?.to_string();
    let dev = t.iter().position(|w| *w == "device")?;
    // After `device N`, a bus id in brackets, then the name.
    let rest = t.get(dev + 2..).unwrap_or(&[]);
    let rest = match rest.first() {
        Some(w) if w.starts_with('[') => &rest[1..],
        _ => rest,
    };
    let name = rest.join(" ");
    Some((host, (!name.is_empty()).then_some(name)))
}

fn number(w: &str) -> Option<f64> {
    w.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)
}

/// A result row: size, count, type, [redop], [root], then time, algbw, busbw, #wrong for
/// out-of-place and (optionally) in-place. `#wrong` may be a count, an error value or N/A.
fn row(s: &str, line: usize) -> Option<Row> {
    let t: Vec<&str> = s.split_whitespace().collect();
    let bytes = t.first()?.parse::<u64>().ok()?;
    let count = t.get(1)?.parse::<u64>().ok()?;
    let ty = t.get(2)?;
    if !ty.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let mut i = 3;
    let mut redop = None;
    if t.get(i).is_some_and(|w| w.chars().next().is_some_and(|c| c.is_ascii_alphabetic())) {
        redop = Some(t[i].to_string());
        i += 1;
    }
    let rest = &t[i.min(t.len())..];
    // An integer root column precedes the time where the row has one more field than the
    // column groups need.
    let (root, cols) = match rest.len() {
        9 | 5 => (rest[0].parse::<i64>().ok(), &rest[1..]),
        8 | 4 => (None, rest),
        _ => return None,
    };
    if rest.len() % 4 == 1 && root.is_none() {
        return None;
    }
    let group = |c: &[&str]| -> Option<Measure> {
        Some(Measure { time_us: number(c[0])?, algbw: number(c[1])?, busbw: number(c[2])? })
    };
    let out_of_place = group(&cols[0..4])?;
    let in_place = if cols.len() == 8 { Some(group(&cols[4..8])?) } else { None };
    Some(Row { line, bytes, count, redop, root, out_of_place, in_place })
}

/// Reads a log. `Err` (field `log`) when the text holds no nccl-tests result at all.
pub fn parse(text: &str) -> Result<Log> {
    let mut log = Log::default();
    let mut cur: Option<Run> = None;
    // A test named on a line before its header (a command line, a script's echo).
    let mut pending_op: Option<Collective> = None;
    let mut headers = 0usize;
    let mut rows = 0usize;
    let finish = |log: &mut Log, run: Option<Run>| {
        if let Some(r) = run.filter(|r| !r.rows.is_empty() || r.ranks > 0) {
            log.runs.push(r);
        }
    };
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let s = strip_prefix(raw).trim_end();
        if s.trim().is_empty() {
            continue;
        }
        if let Some(h) = s.strip_prefix('#') {
            let h = h.trim();
            if h.starts_with("nThread") || h.starts_with("Collective test starting") {
                // A new run starts, unless this header continues the one just named.
                let continuing = h.starts_with("nThread") && cur.as_ref().is_some_and(|r| r.rows.is_empty() && r.ranks == 0);
                if !continuing {
                    finish(&mut log, cur.take());
                    cur = Some(Run { named_op: pending_op.take(), ..Run::default() });
                }
                headers += 1;
                let mut words = h.split_whitespace();
                if let (Some(r), Some(_)) = (cur.as_mut(), words.find(|w| *w == "nGpus")) {
                    r.gpus_per_process = words.next().and_then(|w| w.parse().ok()).filter(|g| *g >= 1);
                }
                if let Some(op) = op_named(h) {
                    if let Some(r) = cur.as_mut() {
                        r.named_op = Some(op);
                    }
                }
            } else if h.starts_with("Rank") {
                let run = cur.get_or_insert_with(|| Run { named_op: pending_op.take(), ..Run::default() });
                match rank_line(h) {
                    Some((host, gpu)) => {
                        run.ranks = run.ranks.saturating_add(1);
                        let full = run.hosts.len() >= 100_000;
                        match run.hosts.iter_mut().find(|(x, _)| *x == host) {
                            Some(e) => e.1 = e.1.saturating_add(1),
                            None if !full => run.hosts.push((host, 1)),
                            None => {}
                        }
                        if run.gpu_name.is_none() {
                            run.gpu_name = gpu;
                        }
                    }
                    None => note_unread(&mut log, n, raw),
                }
            } else if let Some(v) = h.strip_prefix("Avg bus bandwidth") {
                if let Some(r) = cur.as_mut() {
                    r.avg_busbw = v.trim_start_matches([' ', ':']).split_whitespace().next().and_then(number);
                }
            }
            // Other `#` lines are nccl-tests' own comments and column titles.
            continue;
        }
        if s.starts_with(|c: char| c.is_ascii_digit()) {
            if let Some(r) = row(s, n) {
                if rows < MAX_ROWS {
                    rows += 1;
                    cur.get_or_insert_with(|| Run { named_op: pending_op.take(), ..Run::default() }).rows.push(r);
                }
                continue;
            }
        }
        if let Some(op) = op_named(s) {
            // A command line: it names the next run, or the current one if it has no name.
            match cur.as_mut() {
                Some(r) if r.named_op.is_none() && r.rows.is_empty() => r.named_op = Some(op),
                _ => pending_op = Some(op),
            }
            if is_chatter(s) {
                log.chatter += 1;
                continue;
            }
        }
        if is_chatter(s) {
            log.chatter += 1;
        } else {
            note_unread(&mut log, n, raw);
        }
    }
    finish(&mut log, cur);
    if rows == 0 {
        let why = if headers > 0 {
            "it has nccl-tests headers but no result rows (did the run fail or stop early?)"
        } else {
            "no '# nThread' header and no result rows were found"
        };
        return Err(ModelError::new(
            "log",
            format!("not nccl-tests output: {why}; paste what all_reduce_perf (or another *_perf test) printed"),
        ));
    }
    log.runs.retain(|r| !r.rows.is_empty());
    Ok(log)
}

fn note_unread(log: &mut Log, line: usize, raw: &str) {
    log.unread_count += 1;
    if log.unread.len() < MAX_UNREAD_LISTED {
        log.unread.push(Unread { line, text: printable(raw.trim(), UNREAD_TEXT_CHARS) });
    }
}

impl Run {
    /// Ranks: the `#  Rank` lines, else what the all_reduce busbw factor 2(n-1)/n gives.
    pub fn rank_count(&self) -> Option<u32> {
        if self.ranks > 0 {
            return Some(self.ranks);
        }
        let f = self.factor()?;
        // f = 2(n-1)/n for all_reduce, so n = 2 / (2 - f); only plausible when f > 1.
        (f > 1.05 && f < 2.0).then(|| (2.0 / (2.0 - f)).round() as u32)
    }

    /// busbw / algbw over the rows whose figures have three significant digits.
    fn factor(&self) -> Option<f64> {
        let r = self.rows.iter().rev().find(|r| r.out_of_place.algbw >= 1.0)?;
        Some(r.out_of_place.busbw / r.out_of_place.algbw)
    }

    /// The collective: as named, else from the columns (the busbw factor, redop and root),
    /// and whether it was named (true) or inferred (false).
    pub fn op(&self) -> Option<(Collective, bool)> {
        if let Some(op) = self.named_op {
            return Some((op, true));
        }
        let f = self.factor()?;
        let r = self.rows.last()?;
        let sum = r.redop.as_deref().is_some_and(|o| o != "none");
        let root = r.root.unwrap_or(-1);
        let op = if f > 1.05 {
            Collective::AllReduce
        } else if f < 0.995 {
            if sum { Collective::ReduceScatter } else { Collective::AllGather }
        } else if root < 0 {
            Collective::SendRecv
        } else if sum {
            Collective::Reduce
        } else {
            Collective::Broadcast
        };
        Some((op, false))
    }

    /// Nodes and GPUs per node from the hosts, when every host has the same count.
    pub fn layout(&self) -> Option<(u32, u32)> {
        let (_, per) = self.hosts.first()?;
        self.hosts.iter().all(|(_, k)| k == per).then_some((self.hosts.len() as u32, *per))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_and_chatter() {
        assert_eq!(strip_prefix("[1,0]<stdout>:   8   2 float sum"), "8   2 float sum");
        assert_eq!(strip_prefix("0:         8"), "8");
        assert_eq!(strip_prefix("[0]      1048576"), "1048576");
        assert_eq!(strip_prefix("# Avg bus bandwidth    : 70.742"), "# Avg bus bandwidth    : 70.742");
        assert!(is_chatter("node1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0"));
        assert!(!is_chatter("Job ID: 79939"));
    }

    #[test]
    fn rows_old_and_new_formats() {
        // nccl-tests 2.x: redop and root; sendrecv's in-place #wrong is N/A.
        let r = row("1024 256 float sum -1 35.00 0.03 0.03 0 26.42 0.04 0.04 N/A", 3).unwrap();
        assert_eq!((r.bytes, r.count, r.root), (1024, 256, Some(-1)));
        assert_eq!(r.out_of_place, Measure { time_us: 35.0, algbw: 0.03, busbw: 0.03 });
        assert_eq!(r.in_place.unwrap().time_us, 26.42);
        // Older output: no root column, a float error column.
        let r = row("33554432 8388608 float sum 1000.1 33.55 58.71 5e-07 998.2 33.61 58.82 5e-07", 1).unwrap();
        assert_eq!((r.root, r.out_of_place.busbw), (None, 58.71));
        // Out-of-place only.
        assert!(row("8 2 float sum -1 35.58 0.00 0.00 0", 1).unwrap().in_place.is_none());
        assert!(row("8 2 float sum -1 35.58 x 0.00 0", 1).is_none());
        assert!(row("2026 was a year", 1).is_none());
    }

    #[test]
    fn mixed_log_with_debug_lines_and_tagged_output() {
        let text = "\
$ mpirun -np 2 ./build/alltoall_perf -b 8 -e 16
host1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB
[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 8 maxBytes 16 step: 2(factor)
[1,0]<stdout>:#  Rank  0 Group  0 Pid 1 on host1 device  0 [0x1a] NVIDIA A100-SXM4-80GB
[1,0]<stdout>:#  Rank  1 Group  0 Pid 2 on host2 device  0 [0x1a] NVIDIA A100-SXM4-80GB
[1,0]<stdout>:           8             1     float    none      -1    20.10    0.00    0.00      0    19.90    0.00    0.00      0
[1,0]<stdout>:          16             2     float    none      -1    20.20    0.00    0.00      0    20.00    0.00    0.00      0
something odd
";
        let log = parse(text).unwrap();
        assert_eq!(log.runs.len(), 1);
        let r = &log.runs[0];
        assert_eq!(r.op(), Some((Collective::AllToAll, true)));
        assert_eq!(r.rank_count(), Some(2));
        assert_eq!(r.layout(), Some((2, 1)));
        assert_eq!(r.gpu_name.as_deref(), Some("NVIDIA A100-SXM4-80GB"));
        assert_eq!(r.rows.len(), 2);
        assert_eq!(log.chatter, 2);
        assert_eq!(log.unread, vec![Unread { line: 8, text: "something odd".into() }]);
    }

    #[test]
    fn not_nccl_tests_output_is_a_typed_error() {
        for t in ["", "hello\nworld", "{\"cluster\":{}}", "# nThread 1 nGpus 8\n#  Rank 0 Group 0 Pid 1 on h device 0 [0] X\n"] {
            let e = parse(t).unwrap_err();
            assert_eq!(e.field, "log");
            assert!(e.message.starts_with("not nccl-tests output"), "{}", e.message);
        }
    }
}
