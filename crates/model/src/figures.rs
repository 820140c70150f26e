//! Numbers as people read them: whole numbers with thousands separators ("1,024") and US
//! dollar amounts ("$53,493,760"), one convention for the page and the CLI.

/// `x` rounded to a whole number, its thousands separated by commas: "53,493,760", "-1,200".
/// Not-a-number and infinities, which no total should be, print as "–".
pub fn thousands(x: f64) -> String {
    if !x.is_finite() {
        return "–".to_string();
    }
    let r = x.round();
    let digits = format!("{:.0}", r.abs());
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if r < 0.0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A US dollar amount, whole dollars: "$53,493,760" (negative: "-$1,200").
pub fn usd(x: f64) -> String {
    let t = thousands(x);
    match t.strip_prefix('-') {
        Some(pos) => format!("-${pos}"),
        None if x.is_finite() => format!("${t}"),
        None => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped_and_dollars_signed() {
        assert_eq!(thousands(53_493_760.0), "53,493,760");
        assert_eq!(thousands(1024.0), "1,024");
        assert_eq!(thousands(999.4), "999");
        assert_eq!(thousands(999.5), "1,000");
        assert_eq!(thousands(0.0), "0");
        assert_eq!(thousands(-1200.0), "-1,200");
        assert_eq!(thousands(100_000.0), "100,000");
        assert_eq!(thousands(f64::NAN), "–");
        assert_eq!(usd(53_493_760.0), "$53,493,760");
        assert_eq!(usd(380_000.0), "$380,000");
        assert_eq!(usd(-1200.0), "-$1,200");
        assert_eq!(usd(f64::INFINITY), "–");
    }
}
