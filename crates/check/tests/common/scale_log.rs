//! A log's result rows rewritten with every bandwidth scaled by `k` (and every time by 1 / k),
//! out-of-place and in-place, as nccl-tests would have printed a run at k of the speed.

/// `text` with each result row's algbw and busbw times `k`, its times over `k`.
pub fn scaled_log(text: &str, k: f64) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let is_row = f.len() >= 12 && f[0].parse::<u64>().is_ok() && f[5].parse::<f64>().is_ok();
        if !is_row {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let mut g: Vec<String> = f.iter().map(|s| s.to_string()).collect();
        for (i, div) in [(5, true), (6, false), (7, false), (9, true), (10, false), (11, false)] {
            if let Some(v) = g.get(i).and_then(|s| s.parse::<f64>().ok()) {
                g[i] = if div { format!("{:.2}", v / k) } else { format!("{:.2}", v * k) };
            }
        }
        out.push_str(&format!("{:>12} {:>12} {:>8} {:>6} {:>6} {}\n", g[0], g[1], g[2], g[3], g[4], g[5..].join(" ")));
    }
    out
}
