//! Small SVG writing helpers: elements with escaped text, an accessible title, a fallback
//! image. Charts are written as SVG text directly (no drawing library), which keeps the
//! web bundle small and the output identical on web and CLI.

use crate::theme::Theme;

/// Escapes text for an XML or HTML attribute or element.
pub fn escape(s: &str) -> String {
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

/// Marks the chart as one image for screen readers and names it.
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

/// An SVG document being written: elements are appended as text.
pub(crate) struct Doc {
    pub s: String,
    pub font: &'static str,
    /// Whether the document's own `<svg>` names the font (then labels inherit it).
    font_on_root: bool,
    /// Straight segments waiting to be written as one `<path>` per stroke (see [`Doc::seg`]).
    segs: Vec<(String, f64, String)>,
}

impl Doc {
    /// Opens `<svg>` of `w` x `h` with a background.
    pub fn new(w: u32, h: u32, theme: &Theme) -> Doc {
        use std::fmt::Write;
        let mut s = String::with_capacity(16 * 1024);
        let _ = write!(
            s,
            "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"{}\"><rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"{}\"/>",
            theme.font,
            theme.background.hex()
        );
        Doc { s, font: theme.font, font_on_root: true, segs: Vec::new() }
    }
    /// An empty document for a caller that writes its own `<svg>` element, or a fragment
    /// spliced into another document.
    pub fn fragment(font: &'static str) -> Doc {
        Doc { s: String::with_capacity(16 * 1024), font, font_on_root: false, segs: Vec::new() }
    }
    /// A straight segment, batched with others of the same stroke into one `<path>` (far
    /// fewer DOM nodes to parse, style and lay out on every redraw). Written by [`Doc::flush`].
    pub fn seg(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, color: &str, width: f64) {
        use std::fmt::Write;
        let i = match self.segs.iter().position(|(c, w, _)| c == color && *w == width) {
            Some(i) => i,
            None => {
                self.segs.push((color.to_string(), width, String::new()));
                self.segs.len() - 1
            }
        };
        let _ = write!(self.segs[i].2, "M{x1:.1} {y1:.1}L{x2:.1} {y2:.1}");
    }
    /// Writes the batched segments (call before drawing what must lie on top of them).
    pub fn flush(&mut self) {
        use std::fmt::Write;
        for (c, w, d) in self.segs.drain(..) {
            let _ = write!(self.s, "<path fill=\"none\" stroke=\"{c}\" stroke-width=\"{w}\" d=\"{d}\"/>");
        }
    }
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, extra: &str) {
        use std::fmt::Write;
        let _ = write!(
            self.s,
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\"{extra}/>",
            w.max(0.0),
            h.max(0.0)
        );
    }
    pub fn circle(&mut self, cx: f64, cy: f64, r: f64, fill: &str, stroke: &str, width: f64) {
        use std::fmt::Write;
        let _ = write!(
            self.s,
            "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{r}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{width}\"/>"
        );
    }
    pub fn polyline(&mut self, pts: &[(f64, f64)], color: &str, width: f64) {
        use std::fmt::Write;
        self.s.push_str("<polyline fill=\"none\" stroke-linejoin=\"round\" stroke=\"");
        self.s.push_str(color);
        let _ = write!(self.s, "\" stroke-width=\"{width}\" points=\"");
        for (x, y) in pts {
            let _ = write!(self.s, "{x:.1},{y:.1} ");
        }
        self.s.push_str("\"/>");
    }
    /// A polyline with an SVG dash pattern (`""` draws it solid).
    pub fn polyline_dashed(&mut self, pts: &[(f64, f64)], color: &str, width: f64, dash: &str) {
        self.polyline(pts, color, width);
        if !dash.is_empty() {
            self.s.truncate(self.s.len() - 2);
            self.s.push_str(" stroke-dasharray=\"");
            self.s.push_str(dash);
            self.s.push_str("\"/>");
        }
    }
    /// One straight line with an SVG dash pattern (a legend's line sample).
    pub fn line_dashed(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), color: &str, width: f64, dash: &str) {
        use std::fmt::Write;
        let _ = write!(self.s, "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"{color}\" stroke-width=\"{width}\"");
        if !dash.is_empty() {
            let _ = write!(self.s, " stroke-dasharray=\"{dash}\"");
        }
        self.s.push_str("/>");
    }
    /// [`Doc::text`] with a `data-role` naming what the text is (`legend`, `in-plot`), which
    /// layout tests and a page's scripts can read.
    #[allow(clippy::too_many_arguments)]
    pub fn text_role(&mut self, x: f64, y: f64, size: f64, anchor: &str, baseline: &str, color: &str, weight: u32, t: &str, role: &str) {
        let at = self.s.len();
        self.text(x, y, size, anchor, baseline, color, weight, t);
        self.s.insert_str(at + "<text".len(), &format!(" data-role=\"{role}\""));
    }
    /// Text; `anchor` start/middle/end, `baseline` as SVG's dominant-baseline.
    #[allow(clippy::too_many_arguments)]
    pub fn text(&mut self, x: f64, y: f64, size: f64, anchor: &str, baseline: &str, color: &str, weight: u32, t: &str) {
        use std::fmt::Write;
        // The font family is the <svg>'s where it has one (inherited); weight 400 and anchor "start" are SVG's
        // defaults. Fewer bytes per label: the page parses these charts on every slider input.
        let _ = write!(self.s, "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{size}\"");
        if !self.font_on_root {
            let _ = write!(self.s, " font-family=\"{}\"", self.font);
        }
        if weight != 400 {
            let _ = write!(self.s, " font-weight=\"{weight}\"");
        }
        if anchor != "start" {
            let _ = write!(self.s, " text-anchor=\"{anchor}\"");
        }
        let _ = write!(self.s, " dominant-baseline=\"{baseline}\" fill=\"{color}\">{}</text>", escape(t));
    }
    pub fn finish(mut self, title: &str) -> String {
        self.flush();
        self.s.push_str("</svg>");
        finish(self.s, title)
    }
}

/// Maps a value range onto a pixel range.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub p0: f64,
    pub p1: f64,
}

impl Axis {
    pub fn new(lo: f64, hi: f64, p0: f64, p1: f64) -> Axis {
        // A zero-width range would divide by zero when mapping.
        let hi = if hi > lo { hi } else { lo + 1.0 };
        Axis { lo, hi, p0, p1 }
    }
    pub fn px(&self, v: f64) -> f64 {
        self.p0 + (v - self.lo) / (self.hi - self.lo) * (self.p1 - self.p0)
    }
    pub fn contains(&self, v: f64) -> bool {
        v >= self.lo - 1e-9 && v <= self.hi + 1e-9
    }
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

/// `width="W" height="H"` of an SVG's root element ((0, 0) when absent).
pub fn svg_size(svg: &str) -> (u32, u32) {
    let head = svg.split('>').next().unwrap_or("");
    let attr = |name: &str| {
        head.split(&format!(" {name}=\""))
            .nth(1)
            .and_then(|r| r.split('"').next())
            .and_then(|v| v.parse().ok())
    };
    (attr("width").unwrap_or(0), attr("height").unwrap_or(0))
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
