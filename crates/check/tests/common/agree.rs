//! The agreement checks of a check report: every quoted percentage follows from the two
//! numbers beside it, every row's ratio from its measured and expected busbw.

use fabricscope_check::CheckReport;

/// Every `A <unit> [measured] vs B <unit> expected [at <size>] (P%` or `(Fx` in `text`: P
/// (or F) follows from A and B as printed (A and B to 0.01 or 0.1, P to 1, F to 0.1).
pub fn percentages_agree(text: &str) {
    let num = |w: &str| w.parse::<f64>().ok();
    for (i, _) in text.match_indices(" vs ") {
        let before: Vec<&str> = text[..i].split_whitespace().rev().take(3).collect();
        let Some(a) = before.iter().find_map(|w| num(w)) else { continue };
        let after = &text[i + 4..];
        let Some(b) = after.split_whitespace().next().and_then(num) else { continue };
        let Some(open) = after.find('(').filter(|&o| o < 48) else { continue };
        let inner = &after[open + 1..];
        let lo = (a - 0.05).max(0.0) / (b + 0.05);
        let hi = (a + 0.05) / (b - 0.05).max(1e-9);
        if let Some(p) = inner.split('%').next().and_then(num) {
            assert!(p >= (lo * 100.0).floor() - 0.5 && p <= (hi * 100.0).ceil() + 0.5, "{p}% beside {a} and {b}: {text}");
        } else if let Some(f) = inner.split('x').next().and_then(num) {
            assert!(f >= lo - 0.05 && f <= hi + 0.05, "{f}x beside {a} and {b}: {text}");
        } else {
            panic!("no percentage or factor beside {a} and {b}: {text}");
        }
    }
}

pub fn numbers_agree(r: &CheckReport) {
    for w in &r.rows {
        assert_eq!(w.ratio, w.measured_busbw / w.expected_busbw, "{w:?}");
    }
    for p in &r.plateaus {
        assert_eq!(p.ratio, p.measured_busbw / p.expected_busbw);
        assert!(r.rows.iter().any(|w| w.run == p.run && w.bytes == p.bytes && w.measured_busbw == p.measured_busbw), "the plateau is a row of the table");
    }
    for c in &r.verdict {
        percentages_agree(&c.evidence);
    }
    if r.healthy == Some(true) {
        assert!(r.plateaus.iter().all(|p| p.measured_busbw > 0.0));
    }
}
