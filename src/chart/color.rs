//! Colours: the one region colour function (golden-angle hues by region id, lightness per
//! theme, merged blocks paler and greyer), the two themes' colours (those of the browser
//! page), a sequential colour-blind-safe scale for quantities with no centre (viridis) and
//! a diverging scale around a meaningful centre.

use std::fmt;

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#rrggbb`.
    pub fn hex(self) -> String {
        self.to_string()
    }

    /// `self` over `under` at `alpha` (0 to 1).
    pub fn over(self, under: Rgb, alpha: f64) -> Rgb {
        let mix =
            |a: u8, b: u8| (f64::from(b) + (f64::from(a) - f64::from(b)) * alpha).round() as u8;
        Rgb(
            mix(self.0, under.0),
            mix(self.1, under.1),
            mix(self.2, under.2),
        )
    }
}

impl fmt::Display for Rgb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// Light or dark: the background a chart is drawn on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Theme {
    #[default]
    Light,
    Dark,
}

impl Theme {
    /// Both themes with their names (`--theme`).
    pub const ALL: [(Theme, &'static str); 2] = [(Theme::Light, "light"), (Theme::Dark, "dark")];

    pub fn name(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    pub fn is_dark(self) -> bool {
        self == Theme::Dark
    }

    /// The theme's colours (the page's CSS variables of the same names).
    pub fn ink(self) -> Ink {
        match self {
            Theme::Light => Ink {
                bg: Rgb(0xff, 0xff, 0xff),
                bg_alt: Rgb(0xf6, 0xf7, 0xf9),
                fg: Rgb(0x1d, 0x23, 0x30),
                muted: Rgb(0x5c, 0x65, 0x77),
                faint: Rgb(0x8a, 0x93, 0xa5),
                grid: Rgb(0xe6, 0xe9, 0xee),
                border: Rgb(0xc4, 0xca, 0xd6),
                accent: Rgb(0x2f, 0x5b, 0xd3),
                hot: Rgb(214, 48, 39),
                cold: Rgb(44, 98, 214),
                neutral: Rgb(0xee, 0xf0, 0xf4),
                on_region: Rgb(0x14, 0x19, 0x22),
            },
            Theme::Dark => Ink {
                bg: Rgb(0x16, 0x18, 0x1d),
                bg_alt: Rgb(0x1e, 0x21, 0x28),
                fg: Rgb(0xe3, 0xe6, 0xec),
                muted: Rgb(0xa2, 0xaa, 0xb8),
                faint: Rgb(0x7a, 0x82, 0x93),
                grid: Rgb(0x2a, 0x2e, 0x37),
                border: Rgb(0x43, 0x4a, 0x57),
                accent: Rgb(0x7f, 0xa2, 0xff),
                hot: Rgb(240, 96, 84),
                cold: Rgb(96, 140, 255),
                neutral: Rgb(0x26, 0x2a, 0x33),
                on_region: Rgb(0xf2, 0xf4, 0xf8),
            },
        }
    }
}

/// The colours of a theme other than the regions'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ink {
    pub bg: Rgb,
    /// Every other lane's band.
    pub bg_alt: Rgb,
    pub fg: Rgb,
    pub muted: Rgb,
    pub faint: Rgb,
    pub grid: Rgb,
    pub border: Rgb,
    pub accent: Rgb,
    /// Above the centre of a diverging scale, and below it.
    pub hot: Rgb,
    pub cold: Rgb,
    /// Within the noise of a diverging scale.
    pub neutral: Rgb,
    /// Text drawn over a region's colour.
    pub on_region: Rgb,
}

/// Region `id`'s colour as hue (tenths of a degree: the page wrote it to one decimal),
/// saturation and lightness (percent): golden-angle hues, so neighbouring ids differ and a
/// region has the same colour in every chart and on every load; lightness varies by id in
/// thirds, and is higher in the light theme. A `merged` block of many calls takes its
/// dominant region's hue, paler and greyer.
pub fn region_hsl(id: u32, theme: Theme, merged: bool) -> (u32, u8, u8) {
    let hue = tenths((f64::from(id) * 137.508) % 360.0);
    let step = [0i32, 6, -6][(id % 3) as usize];
    let (sat, light) = match (theme, merged) {
        (Theme::Dark, true) => (24, 30),
        (Theme::Dark, false) => (52, 40 + step),
        (Theme::Light, true) => (26, 80),
        (Theme::Light, false) => (62, 68 + step),
    };
    (hue, sat, light as u8)
}

/// The CSS colours of regions `0..n` in `theme`, full or `merged`: what the page draws with.
pub fn palette_css(n: usize, theme: Theme, merged: bool) -> Vec<String> {
    (0..n)
        .map(|id| region_css(u32::try_from(id).unwrap_or(u32::MAX), theme, merged))
        .collect()
}

/// Region `id`'s colour as CSS text, `hsl(h,s%,l%)`, byte for byte what the page wrote.
pub fn region_css(id: u32, theme: Theme, merged: bool) -> String {
    let (h, s, l) = region_hsl(id, theme, merged);
    format!("hsl({}.{},{s}%,{l}%)", h / 10, h % 10)
}

/// Region `id`'s colour in sRGB.
pub fn region(id: u32, theme: Theme, merged: bool) -> Rgb {
    let (h, s, l) = region_hsl(id, theme, merged);
    hsl(
        f64::from(h) / 10.0,
        f64::from(s) / 100.0,
        f64::from(l) / 100.0,
    )
}

/// `x` (0 or more, below 10^15) in tenths, rounded as JavaScript's `toFixed(1)` rounds:
/// the nearest tenth to the exact binary value, the larger on a tie. Worked in integers
/// on the value's mantissa and exponent, so no decimal expansion is needed.
fn tenths(x: f64) -> u32 {
    if !(x.is_finite() && (0.0..1e8).contains(&x)) {
        return 0;
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let (mant, exp) = if exp == 0 {
        (bits & ((1 << 52) - 1), -1074)
    } else {
        ((bits & ((1 << 52) - 1)) | (1 << 52), exp - 1075)
    };
    let ten = u128::from(mant) * 10;
    let t = if exp >= 0 {
        ten << exp
    } else if exp < -120 {
        0
    } else {
        let s = (-exp) as u32;
        (ten + (1u128 << (s - 1))) >> s
    };
    u32::try_from(t).unwrap_or(u32::MAX)
}

/// HSL (hue in degrees, saturation and lightness 0 to 1) to sRGB, as CSS defines it.
pub fn hsl(h: f64, s: f64, l: f64) -> Rgb {
    let f = |n: f64| {
        let k = (n + h / 30.0) % 12.0;
        let a = s * l.min(1.0 - l);
        l - a * (k - 3.0).min(9.0 - k).clamp(-1.0, 1.0)
    };
    let byte = |v: f64| (v * 255.0).round().clamp(0.0, 255.0) as u8;
    Rgb(byte(f(0.0)), byte(f(8.0)), byte(f(4.0)))
}

/// Viridis at nine even stops (the scale is in the public domain).
const VIRIDIS: [Rgb; 9] = [
    Rgb(68, 1, 84),
    Rgb(71, 45, 123),
    Rgb(59, 82, 139),
    Rgb(44, 114, 142),
    Rgb(33, 145, 140),
    Rgb(40, 174, 128),
    Rgb(94, 201, 98),
    Rgb(173, 220, 48),
    Rgb(253, 231, 37),
];

/// The sequential scale at `t` (0 to 1): viridis, interpolated between its stops. On the
/// dark theme the scale starts a little higher, so the lowest values stay visible on the
/// dark background.
pub fn sequential(t: f64, theme: Theme) -> Rgb {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let t = match theme {
        Theme::Light => t,
        Theme::Dark => 0.15 + 0.85 * t,
    };
    let at = t * (VIRIDIS.len() - 1) as f64;
    let i = (at.floor() as usize).min(VIRIDIS.len() - 2);
    VIRIDIS[i + 1].over(VIRIDIS[i], at - i as f64)
}

/// The diverging scale at `shade` (−1 to 1; 0 the centre): the theme's cold colour below,
/// hot above, blended over the background by the shade's size, as the page's heatmap.
pub fn diverging(shade: f64, theme: Theme) -> Rgb {
    let ink = theme.ink();
    if !shade.is_finite() || shade == 0.0 {
        return ink.neutral;
    }
    let c = if shade > 0.0 { ink.hot } else { ink.cold };
    c.over(ink.bg, shade.abs().min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_colours_are_the_pages_strings() {
        // What the page's SP.regionColor wrote for these ids (its formula, run in node).
        assert_eq!(region_css(0, Theme::Light, false), "hsl(0.0,62%,68%)");
        assert_eq!(region_css(1, Theme::Light, false), "hsl(137.5,62%,74%)");
        assert_eq!(region_css(2, Theme::Dark, false), "hsl(275.0,52%,34%)");
        assert_eq!(region_css(7, Theme::Dark, true), "hsl(242.6,24%,30%)");
        assert_eq!(region_css(5, Theme::Light, true), "hsl(327.5,26%,80%)");
    }

    #[test]
    fn tenths_round_exact_ties_up_as_javascript_does() {
        assert_eq!(tenths(0.25), 3);
        assert_eq!(tenths(2.75), 28);
        assert_eq!(tenths(0.05), 1); // 0.05 is just above the tie in binary
        assert_eq!(tenths(1.45), 14); // just below
        assert_eq!(tenths(359.96), 3600);
        assert_eq!(tenths(0.0), 0);
    }

    #[test]
    fn hsl_converts_as_css_does() {
        assert_eq!(hsl(0.0, 1.0, 0.5), Rgb(255, 0, 0));
        assert_eq!(hsl(120.0, 1.0, 0.25), Rgb(0, 128, 0));
        assert_eq!(hsl(240.0, 1.0, 0.5), Rgb(0, 0, 255));
        assert_eq!(hsl(0.0, 0.0, 1.0), Rgb(255, 255, 255));
        assert_eq!(hsl(137.5, 0.62, 0.74), Rgb(148, 230, 172));
    }

    #[test]
    fn scales_reach_their_ends_and_stay_off_the_dark_background() {
        assert_eq!(sequential(0.0, Theme::Light), VIRIDIS[0]);
        assert_eq!(sequential(1.0, Theme::Light), VIRIDIS[8]);
        assert_eq!(sequential(0.5, Theme::Light), VIRIDIS[4]);
        assert_ne!(sequential(0.0, Theme::Dark), VIRIDIS[0]);
        assert_eq!(diverging(0.0, Theme::Light), Theme::Light.ink().neutral);
        assert_eq!(diverging(1.0, Theme::Dark), Theme::Dark.ink().hot);
        assert_eq!(diverging(-1.0, Theme::Light), Theme::Light.ink().cold);
    }
}
