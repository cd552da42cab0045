//! The one font sp carries: a subset of Inter Regular (SIL Open Font License 1.1, licence
//! and regeneration script in `font/`), embedded in the binary. PNGs are drawn with it, and
//! every chart lays its text out by its advance widths, so what the layout measured is what
//! the rasteriser draws. SVGs name generic families instead (the reader's own sans-serif),
//! so their layout keeps a margin for wider faces ([`MARGIN`]).

use crate::sort::SortSlice;
use std::sync::OnceLock;

/// The font file (OpenType, CFF outlines).
pub const FONT: &[u8] = include_bytes!("font/Inter-Regular-subset.otf");

/// How much wider than Inter a reader's sans-serif may be (DejaVu Sans is about 8 %
/// wider); layouts that must fit text in a space measure with it.
pub const MARGIN: f32 = 1.1;

/// Bold text (drawn at weight 600 by a browser) is measured this much wider.
const BOLD: f32 = 1.05;

struct Metrics {
    units_per_em: f32,
    ascender: f32,
    /// Advances of the characters below U+0400, in font units (0: not in the font).
    low: Vec<u16>,
    /// Of the others the font has, sorted by character.
    high: Vec<(char, u16)>,
    /// What a character the font lacks is drawn as (its `.notdef` box).
    missing: u16,
}

fn metrics() -> &'static Metrics {
    static METRICS: OnceLock<Metrics> = OnceLock::new();
    METRICS.get_or_init(|| {
        let mut m = Metrics {
            units_per_em: 1000.0,
            ascender: 800.0,
            low: vec![0; 0x400],
            high: Vec::new(),
            missing: 500,
        };
        let Ok(face) = ttf_parser::Face::parse(FONT, 0) else {
            return m;
        };
        m.units_per_em = f32::from(face.units_per_em());
        m.ascender = f32::from(face.ascender());
        m.missing = face
            .glyph_hor_advance(ttf_parser::GlyphId(0))
            .unwrap_or(500);
        if let Some(cmap) = face.tables().cmap {
            for sub in cmap.subtables {
                if !sub.is_unicode() {
                    continue;
                }
                sub.codepoints(|cp| {
                    let Some(c) = char::from_u32(cp) else { return };
                    let Some(g) = sub.glyph_index(cp) else { return };
                    let adv = face.glyph_hor_advance(g).unwrap_or(0);
                    match m.low.get_mut(cp as usize) {
                        Some(slot) => *slot = adv,
                        None => m.high.push((c, adv)),
                    }
                });
            }
        }
        m.high.sort_ord_unstable();
        m.high.dedup_by_key(|e| e.0);
        m
    })
}

/// The advance of `c` in font units.
fn advance(m: &Metrics, c: char) -> u16 {
    let adv = match m.low.get(c as usize) {
        Some(&a) => a,
        None => m
            .high
            .binary_search_by_key(&c, |e| e.0)
            .map_or(0, |i| m.high[i].1),
    };
    if adv == 0 && !c.is_control() {
        m.missing
    } else {
        adv
    }
}

/// The width of `text` drawn at `size` pixels with the embedded font.
pub fn width(text: &str, size: f32) -> f32 {
    let m = metrics();
    let units: u32 = text.chars().map(|c| u32::from(advance(m, c))).sum();
    units as f32 * size / m.units_per_em
}

/// The room `text` needs at `size` pixels in any reader's sans-serif: [`width`] with the
/// [`MARGIN`], wider again if `bold`.
pub fn room(text: &str, size: f32, bold: bool) -> f32 {
    width(text, size) * MARGIN * if bold { BOLD } else { 1.0 }
}

/// The height of capitals above the baseline at `size` pixels, about (for centring text
/// on a line: its baseline goes this much / 2 below the line's middle).
pub fn cap_height(size: f32) -> f32 {
    0.727 * size
}

/// The font's ascender at `size` pixels.
pub fn ascender(size: f32) -> f32 {
    let m = metrics();
    m.ascender * size / m.units_per_em
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_come_from_the_font() {
        let face = ttf_parser::Face::parse(FONT, 0).unwrap();
        let upem = f32::from(face.units_per_em());
        let adv = |c: char| {
            f32::from(
                face.glyph_hor_advance(face.glyph_index(c).unwrap())
                    .unwrap(),
            )
        };
        let want = (adv('a') + adv('µ') + adv('↻')) * 12.0 / upem;
        assert!((width("aµ↻", 12.0) - want).abs() < 1e-3);
        // Wider letters are wider; an empty text has no width.
        assert!(width("WWW", 11.0) > width("iii", 11.0));
        assert_eq!(width("", 11.0), 0.0);
        // A character the font lacks takes the width of its box, not nothing.
        assert!(width("中", 11.0) > 3.0);
        assert!(room("abc", 11.0, true) > room("abc", 11.0, false));
    }
}
