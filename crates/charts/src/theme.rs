//! Colours and type for charts. SVG attributes need concrete colours (charts cannot read
//! the page's CSS variables), so the page picks the theme matching `prefers-color-scheme` and redraws.

/// An sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#rrggbb`, for CSS and SVG attributes.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// A chart palette. Series colours are told apart by hue and lightness, and every series is
/// also named in the legend, so colour is never the only cue. Series colours also colour text
/// (labels on curves, the hierarchy's ratios): each is at least 4.5:1 (WCAG AA) against its
/// theme's background and the page's panels (test below; e2e/a11y.mjs checks the pages).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Theme {
    pub dark: bool,
    pub background: Rgb,
    pub text: Rgb,
    /// Tick labels and secondary text.
    pub muted: Rgb,
    /// Major grid lines.
    pub grid: Rgb,
    /// Minor grid lines.
    pub grid_minor: Rgb,
    /// Axis lines.
    pub axis: Rgb,
    pub series: [Rgb; 6],
    /// CSS font stack; no quotes, because it lands in an SVG attribute.
    pub font: &'static str,
}

/// System fonts only: no web-font download, and native SVG viewers resolve them too.
const FONT: &str = "system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif";

impl Theme {
    pub const fn light() -> Theme {
        Theme {
            dark: false,
            background: Rgb(0xff, 0xff, 0xff),
            text: Rgb(0x1c, 0x22, 0x30),
            muted: Rgb(0x5a, 0x64, 0x78),
            grid: Rgb(0xe3, 0xe7, 0xee),
            grid_minor: Rgb(0xf2, 0xf4, 0xf7),
            axis: Rgb(0x9a, 0xa3, 0xb2),
            series: [
                Rgb(0x25, 0x63, 0xeb),
                Rgb(0xc2, 0x41, 0x0c),
                Rgb(0x04, 0x78, 0x57),
                Rgb(0x7c, 0x3a, 0xed),
                Rgb(0xdc, 0x26, 0x26),
                Rgb(0x0e, 0x74, 0x90),
            ],
            font: FONT,
        }
    }

    pub const fn dark() -> Theme {
        Theme {
            dark: true,
            background: Rgb(0x16, 0x1b, 0x26),
            text: Rgb(0xe6, 0xe9, 0xf0),
            muted: Rgb(0x9a, 0xa4, 0xb8),
            grid: Rgb(0x2b, 0x33, 0x44),
            grid_minor: Rgb(0x1f, 0x26, 0x34),
            axis: Rgb(0x4b, 0x55, 0x68),
            series: [
                Rgb(0x60, 0xa5, 0xfa),
                Rgb(0xfb, 0x92, 0x3c),
                Rgb(0x34, 0xd3, 0x99),
                Rgb(0xa7, 0x8b, 0xfa),
                Rgb(0xf8, 0x71, 0x71),
                Rgb(0x22, 0xd3, 0xee),
            ],
            font: FONT,
        }
    }

    /// The light or dark palette.
    pub const fn for_dark(dark: bool) -> Theme {
        if dark {
            Theme::dark()
        } else {
            Theme::light()
        }
    }

    /// Colour of the `i`-th series, cycling.
    pub fn series_color(&self, i: usize) -> Rgb {
        self.series[i % self.series.len()]
    }
}

/// WCAG 2's relative luminance of an sRGB colour (0 black .. 1 white).
pub fn luminance(c: Rgb) -> f64 {
    let f = |v: u8| {
        let v = v as f64 / 255.0;
        if v <= 0.03928 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * f(c.0) + 0.7152 * f(c.1) + 0.0722 * f(c.2)
}

/// WCAG 2's contrast ratio of two colours (1..21; AA asks 4.5 for text, 3 for large text).
pub fn contrast(a: Rgb, b: Rgb) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// White or black, whichever reads better on `bg` (text on a filled cell).
pub fn ink_on(bg: Rgb) -> Rgb {
    const WHITE: Rgb = Rgb(0xff, 0xff, 0xff);
    // Pure black: with white, one of the two is always at least sqrt(21) = 4.58:1.
    const INK: Rgb = Rgb(0, 0, 0);
    if contrast(WHITE, bg) >= contrast(INK, bg) {
        WHITE
    } else {
        INK
    }
}

impl Default for Theme {
    fn default() -> Self {
        Theme::light()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// WCAG's contrast ratio, on its published anchors: black on white is 21:1, and the page's
    /// old faint grey #8a93a6 on white 3.1:1 (issue 20). Every text colour of both themes is AA.
    #[test]
    fn chart_text_colours_are_wcag_aa_on_their_backgrounds() {
        assert!((contrast(Rgb(0, 0, 0), Rgb(255, 255, 255)) - 21.0).abs() < 1e-9);
        assert!((contrast(Rgb(0x8a, 0x93, 0xa6), Rgb(255, 255, 255)) - 3.09).abs() < 0.01);
        for t in [Theme::light(), Theme::dark()] {
            for c in [t.text, t.muted].into_iter().chain(t.series) {
                let r = contrast(c, t.background);
                assert!(r >= 4.5, "{} on {} ({}): {r:.2}", c.hex(), t.background.hex(), if t.dark { "dark" } else { "light" });
            }
        }
        // Text on a filled cell takes the better of white and ink: at least 4.5:1 on any fill.
        for v in (0..=255).step_by(5) {
            for bg in [Rgb(v, v, v), Rgb(v, 0x63, 0xeb), Rgb(0x25, v, 0xeb), Rgb(0x60, 0xa5, v)] {
                assert!(contrast(ink_on(bg), bg) >= 4.5, "{} on {}", ink_on(bg).hex(), bg.hex());
            }
        }
    }
}
