//! Text measured without a DOM: widths from a per-character table, and greedy line wrapping.
//! The CLI has no browser to ask, and asking the browser (getBBox) would force a layout on
//! every redraw, so every renderer lays out text from these estimates.
//!
//! The table is DejaVu Sans (the widest of the fonts the theme's stack resolves to on common
//! systems: Linux's default sans, wider than Arial, Helvetica, Segoe UI and Roboto), so an
//! estimate errs towards too wide: text laid out from it fits whichever font draws it.

/// Advance widths of ASCII 32..=126 in thousandths of an em (DejaVu Sans Book: the font's
/// `hmtx` advances over its 2048 units per em, rounded up).
const ASCII: [u16; 95] = [
    318, 401, 460, 838, 637, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, // ' '..'/'
    637, 637, 637, 637, 637, 637, 637, 637, 637, 637, 337, 337, 838, 838, 838, 531, // '0'..'?'
    1000, 685, 686, 698, 771, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, // '@'..'O'
    603, 787, 695, 635, 611, 732, 685, 989, 685, 611, 685, 390, 337, 390, 838, 500, // 'P'..'_'
    500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, // '`'..'o'
    635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838, // 'p'..'~'
];

/// Width of one character in ems (outside ASCII: the symbols the charts use, else wide).
fn em(c: char) -> f64 {
    let w = match c {
        ' '..='~' => ASCII[c as usize - 32],
        '×' | '÷' | '→' | '↓' | '↗' | '▶' | '★' => 838,
        '·' => 318,
        'µ' => 636,
        '–' => 500,
        '—' => 1000,
        '−' => 838,
        '…' => 1000,
        '’' | '‘' => 318,
        '“' | '”' => 518,
        '²' | '³' | '⁰' => 401,
        _ => 1000,
    };
    f64::from(w) / 1000.0
}

/// Estimated width in pixels of `s` at `size` px; `bold` (weight 600 or more) is wider.
pub fn text_width(s: &str, size: f64, bold: bool) -> f64 {
    let w: f64 = s.chars().map(em).sum::<f64>() * size;
    if bold {
        w * 1.1
    } else {
        w
    }
}

/// Splits `s` into lines no wider than `max_px` at `size` px, breaking at spaces (a word
/// wider than a line is broken between characters). Never loses a character; always at
/// least one line.
pub fn wrap(s: &str, size: f64, bold: bool, max_px: f64) -> Vec<String> {
    let max_px = max_px.max(size * 2.0);
    let fits = |t: &str| text_width(t, size, bold) <= max_px;
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in s.split(' ').filter(|w| !w.is_empty()) {
        let candidate = if cur.is_empty() { word.to_string() } else { format!("{cur} {word}") };
        if fits(&candidate) {
            cur = candidate;
            continue;
        }
        if !cur.is_empty() {
            lines.push(std::mem::take(&mut cur));
        }
        // A word too long for a line of its own is cut between characters.
        for ch in word.chars() {
            cur.push(ch);
            if !fits(&cur) && cur.chars().count() > 1 {
                cur.pop();
                lines.push(std::mem::take(&mut cur));
                cur.push(ch);
            }
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// `s` as it fits in `max_px`: whole when it does, else cut with an ellipsis (for labels in
/// a fixed column, where the full text is also in a tooltip or a table).
pub fn fit(s: &str, size: f64, bold: bool, max_px: f64) -> String {
    if text_width(s, size, bold) <= max_px {
        return s.to_string();
    }
    let mut cut = s.to_string();
    while cut.chars().count() > 1 && text_width(&format!("{cut}…"), size, bold) > max_px {
        cut.pop();
    }
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_follow_the_table() {
        // DejaVu Sans: "0" is 1303/2048 em, "i" 569/2048, "W" 2025/2048.
        assert!((text_width("0", 1000.0, false) - 637.0).abs() < 1.0);
        assert!((text_width("i", 1000.0, false) - 278.0).abs() < 1.0);
        assert!((text_width("W", 1000.0, false) - 989.0).abs() < 1.0);
        assert!(text_width("mmmm", 12.0, false) > text_width("iiii", 12.0, false) * 3.0);
        assert!(text_width("ab", 12.0, true) > text_width("ab", 12.0, false));
    }

    #[test]
    fn wrapping_keeps_every_word_and_fits() {
        let s = "4 nodes × 8 H100 SXM5 80GB (32 GPUs) · NVLink4 + NVSwitch · 8 × InfiniBand NDR 400G per node · NCCL 2.27.5";
        for max in [120.0, 300.0, 800.0] {
            let lines = wrap(s, 12.0, false, max);
            assert_eq!(lines.join(" "), s, "at {max}px");
            for l in &lines {
                assert!(text_width(l, 12.0, false) <= max, "{l:?} wider than {max}");
            }
        }
        assert_eq!(wrap(s, 12.0, false, 2000.0).len(), 1);
        assert_eq!(wrap("", 12.0, false, 100.0), vec![String::new()]);
        assert_eq!(fit("NVLink4 NVSwitch", 12.0, false, 500.0), "NVLink4 NVSwitch");
        let cut = fit("NVLink4 NVSwitch", 12.0, false, 60.0);
        assert!(cut.ends_with('…') && text_width(&cut, 12.0, false) <= 60.0, "{cut}");
        let long = wrap("abcdefghijklmnopqrstuvwxyz", 12.0, false, 40.0);
        assert!(long.len() > 3 && long.concat() == "abcdefghijklmnopqrstuvwxyz", "{long:?}");
    }
}
