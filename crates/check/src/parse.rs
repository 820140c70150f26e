//! Reads nccl-tests output as people paste it: one or several runs of any `*_perf` test, the
//! `# nThread` and `#  Rank` header, out-of-place and in-place columns, with launcher,
//! Slurm and NCCL_DEBUG lines mixed in. Every line is accounted for: a header, a result row,
//! known chatter (counted), or unread (returned with its line number). Never panics.

use super::facts::Facts;
use crate::collective::Collective;
use crate::error::{printable, ModelError, Result};
use std::collections::HashMap;

/// Longest text kept of an unread line (characters).
const UNREAD_TEXT_CHARS: usize = 120;
/// Unread lines listed at most (the rest are counted): a 1 MiB log of noise stays small.
const MAX_UNREAD_LISTED: usize = 200;
/// Result rows read at most over all runs (a real sweep has about 40 per run).
const MAX_ROWS: usize = 20_000;
/// Hosts kept per run (a 100,000-GPU run has 12,500 hosts of 8).
const MAX_HOSTS: usize = 100_000;
/// Ranks whose `#  Rank` lines are told apart (a set of one bit each, 128 KiB at most): a rank
/// printed twice (a header repeated by a launcher or a `tee`) counts once. Ranks above it are
/// counted by their lines, as before.
const MAX_DISTINCT_RANKS: u64 = 1 << 20;
/// NUL characters among the first lines read from which a log is taken for UTF-16 text read
/// as bytes (every other byte of ASCII in UTF-16 is 0).
const UTF16_NULS: usize = 16;
/// Characters of a line searched for a `host: ` launcher prefix: searching further on every
/// prefix of a line of many prefixes would make reading quadratic.
const PREFIX_HEAD_CHARS: usize = 64;
/// Largest size read as a measurement (1 TiB): nccl-tests sweeps stop at a few GiB per GPU.
const MAX_ROW_BYTES: u64 = 1 << 40;
/// Largest bandwidth read as a measurement, GB/s per direction: about 100x the fastest
/// scale-up link of the catalog (NVLink5, 900 GB/s per direction).
const MAX_ROW_GBPS: f64 = 100_000.0;
/// From this size up a busbw printed as 0.00 GB/s (under 10 MB/s) is not a measurement.
const ZERO_BUSBW_FROM: u64 = 1 << 20;
/// Slack when checking algbw = size / time: nccl-tests prints algbw with 2 decimals and the
/// time with 3 to 5 significant digits.
const ALGBW_SLACK_ABS: f64 = 0.011;
const ALGBW_SLACK_REL: f64 = 0.03;

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
    /// The highest rank number of those lines (a large run may print only its last one).
    pub max_rank: Option<u64>,
    /// The device index of the highest rank (its node's last GPU, as launchers place ranks).
    pub max_rank_device: Option<u32>,
    /// Hosts of those ranks, in order of first appearance, and ranks on each.
    pub hosts: Vec<(String, u32)>,
    /// Where each host is in `hosts` (a lookup per rank line, not a scan).
    host_index: HashMap<String, usize>,
    /// The GPU name the header prints (`NVIDIA H100 80GB HBM3`).
    pub gpu_name: Option<String>,
    pub rows: Vec<Row>,
    /// The `# Avg bus bandwidth` figure, where printed.
    pub avg_busbw: Option<f64>,
    /// GPUs each process drives (`nGpus` of the header, nccl-tests' `-g`).
    pub gpus_per_process: Option<u32>,
    /// Size of the last row read (sizes must increase within a run).
    last_bytes: Option<u64>,
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
    /// Result rows not read as measurements, each with the reason (the first
    /// [`MAX_UNREAD_LISTED`]; `text` is the reason).
    pub rejected: Vec<Unread>,
    pub rejected_count: usize,
    /// Library, network plugin and forced settings the log shows.
    pub facts: Facts,
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

/// Drops launcher prefixes: `[1,0]<stdout>:`, `[0]`, `0:` (srun -l), `host: `. Each pass
/// removes a prefix and searches at most [`PREFIX_HEAD_CHARS`] for `: `, so a line of a
/// million prefixes costs time linear in its length.
fn strip_prefix(line: &str) -> &str {
    let mut s = line.trim_start();
    loop {
        let before = s.len();
        // `[1,0]`, then `<stdout>:` or `<stderr>:`, as often as they repeat: compared byte by
        // byte in one loop, as a line of a million such prefixes makes this the whole cost.
        let b = s.as_bytes();
        let mut i = 0;
        while b.get(i) == Some(&b'[') {
            let inner = b[i + 1..].iter().position(|&c| !(c.is_ascii_digit() || c == b','));
            let Some(k) = inner.filter(|k| b.get(i + k + 1) == Some(&b']')) else { break };
            i += k + 2;
            while b.get(i) == Some(&b'<') && (b[i..].starts_with(b"<stdout>:") || b[i..].starts_with(b"<stderr>:")) {
                i += 9;
            }
            while b.get(i).is_some_and(|c| *c == b' ' || *c == b'\t') {
                i += 1;
            }
        }
        if i > 0 {
            // `i` is past ASCII bytes only: a char boundary.
            s = s[i..].trim_start();
            continue;
        }
        let head = &s.as_bytes()[..s.len().min(PREFIX_HEAD_CHARS + 2)];
        if let Some(i) = head.windows(2).position(|w| w == b": ") {
            if i > 0 && s.as_bytes()[..i].iter().all(|&b| b.is_ascii_alphanumeric() || b"-_.,".contains(&b)) {
                s = s[i + 2..].trim_start();
            }
        }
        if s.len() == before {
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

/// One `#  Rank` line.
struct RankLine {
    rank: Option<u64>,
    host: String,
    device: Option<u32>,
    gpu: Option<String>,
}

/// `#  Rank  0 Group  0 Pid 1234 on host device  0 [0x..] NVIDIA H100 80GB HBM3` (older
/// versions have no `Group`): the rank, host, device index and GPU name.
fn rank_line(s: &str, want_name: bool) -> Option<RankLine> {
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
    // Joined only while the run has no name yet: a 100,000-rank header joins once.
    let name = if want_name { rest.join(" ") } else { String::new() };
    Some(RankLine {
        rank: t.get(1).and_then(|w| w.parse().ok()),
        host,
        device: t.get(dev + 1).and_then(|w| w.parse().ok()),
        gpu: (!name.is_empty()).then_some(name),
    })
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

/// Why a result row is not a measurement, if it is not one. `last` is the previous row's
/// size in the same run.
fn garbage(r: &Row, last: Option<u64>) -> Option<String> {
    let m = &r.out_of_place;
    let why = if r.bytes == 0 {
        "size 0 B: nothing to compare".to_string()
    } else if r.bytes > MAX_ROW_BYTES {
        format!("size {} B is above 1 TiB", r.bytes)
    } else if last.is_some_and(|l| r.bytes <= l) {
        format!("size {} B is not above the previous row's {} B", r.bytes, last.unwrap_or(0))
    } else if m.time_us <= 0.0 {
        "time 0 µs".to_string()
    } else if m.busbw > MAX_ROW_GBPS || m.algbw > MAX_ROW_GBPS {
        format!("bandwidth above {MAX_ROW_GBPS} GB/s")
    } else if m.busbw == 0.0 && r.bytes >= ZERO_BUSBW_FROM {
        format!("busbw 0 GB/s at {} B", r.bytes)
    } else {
        // nccl-tests prints algbw = size / time (GB/s = B / µs / 1000).
        let algbw = r.bytes as f64 / m.time_us / 1e3;
        if (m.algbw - algbw).abs() > ALGBW_SLACK_ABS + ALGBW_SLACK_REL * algbw {
            format!("algbw {} GB/s does not follow from {} B in {} µs ({algbw:.2} GB/s)", m.algbw, r.bytes, m.time_us)
        } else {
            return None;
        }
    };
    Some(why)
}

/// Reads a log line by line (so the page can read a large one in slices): [`Parser::line`]
/// for each line, then [`Parser::finish`].
#[derive(Default)]
pub struct Parser {
    log: Log,
    cur: Option<Run>,
    /// A test named on a line before its header (a command line, a script's echo).
    pending_op: Option<Collective>,
    headers: usize,
    rows: usize,
    n: usize,
    /// The current run's ranks seen (one bit each, up to [`MAX_DISTINCT_RANKS`]); cleared at
    /// each new run, so a log of many runs keeps one set, not one per run.
    seen_ranks: Vec<u64>,
    /// NUL characters seen (UTF-16 text read as bytes holds one per ASCII character).
    nuls: usize,
}

impl Parser {
    /// Lines read so far.
    pub fn lines(&self) -> usize {
        self.n
    }

    fn run(&mut self) -> &mut Run {
        let op = &mut self.pending_op;
        self.cur.get_or_insert_with(|| Run { named_op: op.take(), ..Run::default() })
    }

    /// Ends the current run. Only a run with result rows is kept: a header with no rows is
    /// nothing to judge, and a log of a million such headers must not keep a million runs (the
    /// memory kept is in the result rows, at most [`MAX_ROWS`], not in the lines).
    fn finish_run(&mut self) {
        if let Some(r) = self.cur.take().filter(|r| !r.rows.is_empty()) {
            self.log.runs.push(r);
        }
        self.seen_ranks.clear();
    }

    /// Runs kept so far, with the one being read (each has at least one result row but the
    /// current one): what the reader holds, for tests of its memory.
    pub fn runs_kept(&self) -> usize {
        self.log.runs.len() + usize::from(self.cur.is_some())
    }

    /// Whether `rank` was seen in the current run (and marks it seen). Ranks beyond
    /// [`MAX_DISTINCT_RANKS`] are never taken for repeats.
    fn repeated_rank(&mut self, rank: u64) -> bool {
        if rank >= MAX_DISTINCT_RANKS {
            return false;
        }
        let (word, bit) = ((rank / 64) as usize, rank % 64);
        if self.seen_ranks.len() <= word {
            self.seen_ranks.resize(word + 1, 0);
        }
        let seen = self.seen_ranks[word] & (1 << bit) != 0;
        self.seen_ranks[word] |= 1 << bit;
        seen
    }

    /// Reads the next line.
    pub fn line(&mut self, raw: &str) {
        self.n += 1;
        let n = self.n;
        if self.rows == 0 && self.nuls < UTF16_NULS {
            self.nuls += raw.bytes().filter(|b| *b == 0).count();
        }
        let s = strip_prefix(raw).trim_end();
        if s.trim().is_empty() {
            return;
        }
        let digit = s.starts_with(|c: char| c.is_ascii_digit());
        // Rank lines name no library or network (and a large run has one per GPU).
        let rank = s.strip_prefix('#').is_some_and(|h| h.trim_start().starts_with("Rank"));
        if !digit && !rank {
            // The whole line: `rccl-tests: Version ...` reads like a host prefix.
            self.log.facts.note(raw);
        }
        if let Some(h) = s.strip_prefix('#') {
            self.header(h.trim(), n, raw);
            return;
        }
        if digit {
            if let Some(r) = row(s, n) {
                if self.rows < MAX_ROWS {
                    let run = self.run();
                    match garbage(&r, run.last_bytes) {
                        None => {
                            run.last_bytes = Some(r.bytes);
                            run.rows.push(r);
                            self.rows += 1;
                        }
                        Some(why) => {
                            self.log.rejected_count += 1;
                            if self.log.rejected.len() < MAX_UNREAD_LISTED {
                                self.log.rejected.push(Unread { line: n, text: why });
                            }
                        }
                    }
                }
                return;
            }
        }
        if let Some(op) = op_named(s) {
            // A command line: it names the next run, or the current one if it has no name.
            match self.cur.as_mut() {
                Some(r) if r.named_op.is_none() && r.rows.is_empty() => r.named_op = Some(op),
                _ => self.pending_op = Some(op),
            }
        }
        // rccl-tests' own version line reads like a host prefix (`rccl-tests: `) and a word.
        if is_chatter(s) || raw.contains("rccl-tests: Version") {
            self.log.chatter += 1;
        } else {
            note_unread(&mut self.log, n, raw);
        }
    }

    /// A `#` line (without the `#`).
    fn header(&mut self, h: &str, n: usize, raw: &str) {
        if h.starts_with("nThread") || h.starts_with("Collective test starting") {
            // A new run starts, unless this header continues the one just named.
            let continuing = h.starts_with("nThread") && self.cur.as_ref().is_some_and(|r| r.rows.is_empty() && r.ranks == 0);
            if !continuing {
                self.finish_run();
                self.cur = Some(Run { named_op: self.pending_op.take(), ..Run::default() });
            }
            self.headers += 1;
            let run = self.run();
            let mut words = h.split_whitespace();
            if words.any(|w| w == "nGpus") {
                run.gpus_per_process = words.next().and_then(|w| w.parse().ok()).filter(|g| *g >= 1);
            }
            if let Some(op) = op_named(h) {
                run.named_op = Some(op);
            }
        } else if h.starts_with("Rank") {
            let want_name = self.cur.as_ref().is_none_or(|r| r.gpu_name.is_none());
            match rank_line(h, want_name) {
                Some(l) => {
                    // The same rank printed again (a repeated header) is the same GPU.
                    if l.rank.is_some_and(|r| self.repeated_rank(r)) {
                        return;
                    }
                    let run = self.run();
                    run.ranks = run.ranks.saturating_add(1);
                    if l.rank.is_some() && l.rank >= run.max_rank {
                        (run.max_rank, run.max_rank_device) = (l.rank, l.device);
                    }
                    match run.host_index.get(&l.host) {
                        Some(&i) => run.hosts[i].1 = run.hosts[i].1.saturating_add(1),
                        None if run.hosts.len() < MAX_HOSTS => {
                            run.host_index.insert(l.host.clone(), run.hosts.len());
                            run.hosts.push((l.host, 1));
                        }
                        None => {}
                    }
                    if run.gpu_name.is_none() {
                        run.gpu_name = l.gpu;
                    }
                }
                None => note_unread(&mut self.log, n, raw),
            }
        } else if let Some(v) = h.strip_prefix("Avg bus bandwidth") {
            if let Some(r) = self.cur.as_mut() {
                r.avg_busbw = v.trim_start_matches([' ', ':']).split_whitespace().next().and_then(number);
            }
        }
        // Other `#` lines are nccl-tests' own comments and column titles.
    }

    /// The log. `Err` (field `log`) when the text holds no nccl-tests result at all.
    pub fn finish(mut self) -> Result<Log> {
        self.finish_run();
        let mut log = self.log;
        if self.rows == 0 {
            let why = if log.rejected_count > 0 {
                format!("none of its {} result row(s) is a measurement (first: line {}: {})", log.rejected_count, log.rejected[0].line, log.rejected[0].text)
            } else if self.headers > 0 {
                "it has nccl-tests headers but no result rows (did the run fail or stop early?)".into()
            } else if self.nuls >= UTF16_NULS {
                "the text is full of NUL characters, as UTF-16 text read as bytes is; save the log as UTF-8 (or pass the file to `fabricscope check`, which reads UTF-16)".into()
            } else {
                "no '# nThread' header and no result rows were found".into()
            };
            return Err(ModelError::new(
                "log",
                format!("not nccl-tests output: {why}; paste what all_reduce_perf (or another *_perf test) printed"),
            ));
        }
        log.runs.retain(|r| !r.rows.is_empty());
        Ok(log)
    }
}

/// Reads a log. `Err` (field `log`) when the text holds no nccl-tests result at all. Lines end
/// in LF, CRLF or a lone CR (old Mac files, some Windows tools): see [`next_line`].
pub fn parse(text: &str) -> Result<Log> {
    let mut p = Parser::default();
    let mut at = 0;
    while at < text.len() {
        let (line, used) = next_line(&text[at..]);
        p.line(line);
        at += used;
    }
    p.finish()
}

/// The first line of `rest` without its end, and the bytes it takes with its end: a line ends
/// at LF, CRLF or a lone CR. The page reads its slices with it too.
pub fn next_line(rest: &str) -> (&str, usize) {
    match rest.bytes().position(|b| b == b'\n' || b == b'\r') {
        None => (rest, rest.len()),
        Some(i) if rest.as_bytes()[i] == b'\r' && rest.as_bytes().get(i + 1) == Some(&b'\n') => (&rest[..i], i + 2),
        Some(i) => (&rest[..i], i + 1),
    }
}

/// A log file's bytes as text: UTF-8 (a byte-order mark dropped, stray bytes replaced), or
/// UTF-16 where it starts with its byte-order mark (Windows tools, PowerShell's `>`), or where
/// most of its first bytes alternate with NUL (UTF-16 without a mark). Never copies valid UTF-8.
pub fn decode(bytes: Vec<u8>) -> String {
    let utf16 = |b: &[u8], le: bool| -> String {
        let units = b.chunks_exact(2).map(|c| if le { u16::from_le_bytes([c[0], c[1]]) } else { u16::from_be_bytes([c[0], c[1]]) });
        char::decode_utf16(units).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)).collect()
    };
    match bytes.as_slice() {
        [0xFF, 0xFE, rest @ ..] => return utf16(rest, true),
        [0xFE, 0xFF, rest @ ..] => return utf16(rest, false),
        [0xEF, 0xBB, 0xBF, ..] => return decode(bytes[3..].to_vec()),
        _ => {}
    }
    // No mark: UTF-16 of ASCII text has a NUL in every other byte.
    let head = &bytes[..bytes.len().min(4096) & !1];
    let nul_at = |odd: usize| head.iter().skip(odd).step_by(2).filter(|b| **b == 0).count();
    let pairs = head.len() / 2;
    if pairs >= 8 {
        if nul_at(1) * 10 >= pairs * 9 {
            return utf16(&bytes, true);
        }
        if nul_at(0) * 10 >= pairs * 9 {
            return utf16(&bytes, false);
        }
    }
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

fn note_unread(log: &mut Log, line: usize, raw: &str) {
    log.unread_count += 1;
    if log.unread.len() < MAX_UNREAD_LISTED {
        log.unread.push(Unread { line, text: printable(raw.trim(), UNREAD_TEXT_CHARS) });
    }
}

impl Run {
    /// Ranks the header accounts for: the `#  Rank` lines, or the highest rank + 1 where a
    /// large run prints only some of them (not bounded here: see [`crate::limits`]).
    pub fn header_ranks(&self) -> Option<u64> {
        let lines = u64::from(self.ranks);
        let top = self.max_rank.map_or(0, |r| r.saturating_add(1));
        let n = lines.max(top);
        (n > 0).then_some(n)
    }

    /// Every rank has its `#  Rank` line (so the hosts and their counts are the layout).
    pub fn all_ranks_listed(&self) -> bool {
        self.header_ranks() == Some(u64::from(self.ranks)) && self.hosts.len() < MAX_HOSTS
    }

    /// Ranks: from the header ([`Run::header_ranks`]), else what the all_reduce busbw factor
    /// 2(n-1)/n gives, and whether inferred (true) rather than read.
    pub fn rank_count(&self) -> Option<(u64, bool)> {
        if let Some(n) = self.header_ranks() {
            return Some((n, false));
        }
        let f = self.factor()?;
        // f = 2(n-1)/n for all_reduce, so n = 2 / (2 - f); only plausible when f > 1.
        (f > 1.05 && f < 2.0).then(|| ((2.0 / (2.0 - f)).round() as u64, true))
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

    /// Nodes and GPUs per node from the hosts, when every rank is listed and every host has
    /// the same count.
    pub fn layout(&self) -> Option<(u32, u32)> {
        let (_, per) = self.hosts.first()?;
        (self.all_ranks_listed() && self.hosts.iter().all(|(_, k)| k == per)).then_some((self.hosts.len() as u32, *per))
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
        assert_eq!(r.rank_count(), Some((2, false)));
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

    #[test]
    fn rank_lines_give_the_highest_rank_its_device_and_hosts() {
        let l = rank_line("Rank 1439 Group  0 Pid 77 on rack19-tray17 device  3 [0000:1b:00] NVIDIA GB200", true).unwrap();
        assert_eq!((l.rank, l.host.as_str(), l.device, l.gpu.as_deref()), (Some(1439), "rack19-tray17", Some(3), Some("NVIDIA GB200")));
        // Older nccl-tests: no Group column.
        let l = rank_line("Rank  9 Pid 1018129 on pinoak0004 device  1 [0000:c6:00.0] AMD Instinct MI250X", true).unwrap();
        assert_eq!((l.rank, l.device, l.gpu.as_deref()), (Some(9), Some(1), Some("AMD Instinct MI250X")));
        let text = "# nThread 1 nGpus 1\n#  Rank  0 Group 0 Pid 1 on a device 0 [0] X\n#  Rank  1 Group 0 Pid 2 on b device 0 [0] X\n#  Rank  2 Group 0 Pid 3 on a device 1 [0] X\n#  Rank  3 Group 0 Pid 4 on b device 1 [0] X\n8 2 float none -1 10.0 0.00 0.00 0\n";
        let r = &parse(text).unwrap().runs[0];
        assert_eq!(r.hosts, vec![("a".to_string(), 2), ("b".to_string(), 2)]);
        assert_eq!((r.header_ranks(), r.layout()), (Some(4), Some((2, 2))));
    }

    #[test]
    fn many_prefixes_are_stripped_one_pass_each() {
        assert_eq!(strip_prefix(&("[0]".repeat(1000) + "[1,0]<stdout>: 8 2")), "8 2");
        assert_eq!(strip_prefix("node-1: [3] 0: 16 4"), "16 4");
        // Not a prefix: a bracket of letters, a colon past the head.
        assert_eq!(strip_prefix("[abc] 8"), "[abc] 8");
        let far = format!("{}: x", "a".repeat(PREFIX_HEAD_CHARS + 5));
        assert_eq!(strip_prefix(&far), far);
    }

    const RUN: &str = "# nThread 1 nGpus 1\n#  Rank  0 Group 0 Pid 1 on a device 0 [0] X\n#  Rank  1 Group 0 Pid 2 on b device 0 [0] X\n8 2 float sum -1 10.0 0.00 0.00 0\n16 4 float sum -1 10.0 0.00 0.00 0\n";

    #[test]
    fn headers_without_rows_keep_nothing() {
        // Issue 38: a million headers (each with a rank line) and no rows kept a million runs.
        let mut p = Parser::default();
        for _ in 0..200_000 {
            p.line("# nThread 1 nGpus 1");
            p.line("#  Rank  0 Group 0 Pid 1 on a device 0 [0] X");
        }
        assert!(p.runs_kept() <= 1, "{} runs kept", p.runs_kept());
        for l in RUN.lines() {
            p.line(l);
        }
        assert_eq!(p.runs_kept(), 1);
        let log = p.finish().unwrap();
        assert_eq!(log.runs.len(), 1);
        assert_eq!(log.runs[0].rank_count(), Some((2, false)));
    }

    #[test]
    fn a_rank_printed_twice_counts_once() {
        // The header's rank lines printed twice (a launcher echoing both streams, a `tee`).
        let twice = "# nThread 1 nGpus 1\n#  Rank  0 Group 0 Pid 1 on a device 0 [0] X\n#  Rank  1 Group 0 Pid 2 on b device 0 [0] X\n#  Rank  0 Group 0 Pid 1 on a device 0 [0] X\n#  Rank  1 Group 0 Pid 2 on b device 0 [0] X\n8 2 float sum -1 10.0 0.00 0.00 0\n";
        let r = &parse(twice).unwrap().runs[0];
        assert_eq!(r.ranks, 2);
        assert_eq!(r.rank_count(), Some((2, false)));
        assert_eq!(r.hosts, vec![("a".to_string(), 1), ("b".to_string(), 1)]);
        assert_eq!(r.layout(), Some((2, 1)));
        // A second run starts its own set: the same ranks count again there.
        let log = parse(&format!("{RUN}{RUN}")).unwrap();
        assert_eq!(log.runs.iter().map(|r| r.ranks).collect::<Vec<_>>(), vec![2, 2]);
    }

    #[test]
    fn cr_only_and_crlf_lines_are_lines() {
        let lf = parse(RUN).unwrap();
        for text in [RUN.replace('\n', "\r"), RUN.replace('\n', "\r\n")] {
            let log = parse(&text).unwrap();
            assert_eq!(log.runs, lf.runs, "{text:?}");
            assert_eq!(log.unread_count, 0);
        }
        assert_eq!(next_line("a\r\nb"), ("a", 3));
        assert_eq!(next_line("a\rb"), ("a", 2));
        assert_eq!(next_line("a"), ("a", 1));
    }

    #[test]
    fn utf16_logs_are_decoded_or_named() {
        let utf16 = |le: bool, bom: bool| -> Vec<u8> {
            let mut b = if bom { if le { vec![0xFF, 0xFE] } else { vec![0xFE, 0xFF] } } else { Vec::new() };
            for u in RUN.encode_utf16() {
                b.extend(if le { u.to_le_bytes() } else { u.to_be_bytes() });
            }
            b
        };
        let want = parse(RUN).unwrap().runs;
        for (le, bom) in [(true, true), (false, true), (true, false), (false, false)] {
            let text = decode(utf16(le, bom));
            assert_eq!(parse(&text).unwrap().runs, want, "le {le} bom {bom}");
        }
        assert_eq!(decode(b"\xEF\xBB\xBFplain".to_vec()), "plain");
        assert_eq!(decode(b"caf\xE9".to_vec()), "caf\u{FFFD}");
        // Read as bytes (a page's paste of UTF-16): named, not just "not nccl-tests output".
        let as_bytes: String = utf16(true, false).iter().map(|b| char::from(*b)).collect();
        let e = parse(&as_bytes).unwrap_err();
        assert!(e.message.contains("UTF-16"), "{}", e.message);
    }
}
