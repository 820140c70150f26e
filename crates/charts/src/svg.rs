//! Small SVG helpers around plotters' output: an accessible title, and a fallback image.

use crate::theme::Theme;

/// Escapes text for an XML attribute or element.
pub(crate) fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// Marks the chart as one image for screen readers and names it: plotters emits neither.
pub(crate) fn finish(svg: String, title: &str) -> String {
    let Some(open_end) = svg
        .find("<svg")
        .and_then(|i| svg[i..].find('>').map(|j| i + j))
    else {
        return svg;
    };
    let mut out = String::with_capacity(svg.len() + title.len() + 64);
    out.push_str(&svg[..open_end]);
    out.push_str(" role=\"img\" preserveAspectRatio=\"xMidYMid meet\">");
    out.push_str("<title>");
    out.push_str(&escape(title));
    out.push_str("</title>");
    out.push_str(&svg[open_end + 1..]);
    out
}

/// A plain SVG that states why a chart could not be drawn (renderers never panic).
pub(crate) fn error_svg(width: u32, height: u32, theme: &Theme, message: &str) -> String {
    format!(
        "<svg width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\
<title>chart unavailable</title>\
<rect width=\"100%\" height=\"100%\" fill=\"{bg}\"/>\
<text x=\"50%\" y=\"50%\" text-anchor=\"middle\" font-family=\"{font}\" font-size=\"14\" fill=\"{fg}\">{msg}</text></svg>",
        bg = theme.background.hex(),
        fg = theme.muted.hex(),
        font = theme.font,
        msg = escape(message),
    )
}

/// Trimmed text content of every `<text>` element (for tests and the CLI's checks).
pub fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..];
            Some(body[..body.find("</text>")?].trim().to_string())
        })
        .collect()
}

/// Number of `<polyline>` elements stroked in `color` (one per series line).
pub fn polylines_in(svg: &str, color: crate::Rgb) -> usize {
    let want = format!("stroke=\"{}\"", color.hex().to_uppercase());
    svg.split("<polyline")
        .skip(1)
        .filter(|p| {
            p.split('>')
                .next()
                .is_some_and(|attrs| attrs.to_uppercase().contains(&want.to_uppercase()))
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_text_content() {
        assert_eq!(
            texts("<svg><text x=\"1\">\n8B\n</text><text>1K</text></svg>"),
            ["8B", "1K"]
        );
    }

    #[test]
    fn title_goes_inside_the_root_element() {
        let s = finish(
            "<svg width=\"1\" height=\"1\"><rect/></svg>".into(),
            "a < b",
        );
        assert_eq!(s, "<svg width=\"1\" height=\"1\" role=\"img\" preserveAspectRatio=\"xMidYMid meet\"><title>a &lt; b</title><rect/></svg>");
    }
}
