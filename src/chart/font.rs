//! The one font sp carries: a subset of Inter Regular (SIL Open Font License 1.1, licence
//! and regeneration script in `font/`), embedded in the binary. PNGs are drawn with it, and
//! every chart lays its text out by its advance widths, so what the layout measured is what
//! the rasteriser draws. SVGs name generic families instead (the reader's own sans-serif),
//! so their layout keeps a margin for wider faces ([`MARGIN`]).

use std::sync::OnceLock;

/// The font file (OpenType, CFF outlines), which PNGs are drawn with.
pub const FONT: &[u8] = include_bytes!("font/Inter-Regular-subset.otf");

/// The font's metrics alone, which every chart is laid out by: its units per em, ascender
/// and `.notdef` advance (u16, i16, u16), the advances of the 0x400 characters below U+0400
/// (u16 each), then (character u32, advance u16) for the others it has, sorted; all
/// little-endian. 4 KB where the font is 37 KB, so the page, which writes SVGs only, does not
/// carry the font; the test `metrics_file_is_the_fonts` checks it against the font, and
/// writes it with SP_BLESS=1.
const METRICS: &[u8] = include_bytes!("font/metrics.bin");

/// How much wider than Inter a reader's sans-serif may be (DejaVu Sans is about 8 %
/// wider); layouts that must fit text in a space measure with it.
pub const MARGIN: f32 = 1.1;

/// Bold text (drawn at weight 600 by a browser) is measured this much wider.
const BOLD: f32 = 1.05;

/// Characters whose advances are in a table indexed by character.
const LOW: usize = 0x400;

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
    static METRICS_READ: OnceLock<Metrics> = OnceLock::new();
    METRICS_READ.get_or_init(|| read_metrics(METRICS))
}

/// [`METRICS`]'s layout read; what is short reads as the defaults.
fn read_metrics(bytes: &[u8]) -> Metrics {
    let u16_at = |i: usize| {
        bytes
            .get(i..i + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let head = 6 + 2 * LOW;
    let high = bytes.get(head..).unwrap_or_default().chunks_exact(6);
    Metrics {
        units_per_em: f32::from(u16_at(0).filter(|&u| u > 0).unwrap_or(1000)),
        ascender: f32::from(u16_at(2).map_or(800, |a| a as i16)),
        missing: u16_at(4).unwrap_or(500),
        low: (0..LOW).map(|c| u16_at(6 + 2 * c).unwrap_or(0)).collect(),
        high: high
            .filter_map(|e| {
                let c = char::from_u32(u32::from_le_bytes([e[0], e[1], e[2], e[3]]))?;
                Some((c, u16::from_le_bytes([e[4], e[5]])))
            })
            .collect(),
    }
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
    use crate::sort::SortSlice;

    /// [`METRICS`]'s bytes as read from `font` by ttf-parser.
    fn metrics_of(font: &[u8]) -> Vec<u8> {
        let face = ttf_parser::Face::parse(font, 0).unwrap();
        let mut low = vec![0u16; LOW];
        let mut high: Vec<(u32, u16)> = Vec::new();
        for sub in face.tables().cmap.unwrap().subtables {
            if !sub.is_unicode() {
                continue;
            }
            sub.codepoints(|cp| {
                let Some(g) = sub.glyph_index(cp) else { return };
                let adv = face.glyph_hor_advance(g).unwrap_or(0);
                match low.get_mut(cp as usize) {
                    Some(slot) => *slot = adv,
                    None => high.push((cp, adv)),
                }
            });
        }
        high.sort_ord_unstable();
        high.dedup_by_key(|e| e.0);
        let missing = face.glyph_hor_advance(ttf_parser::GlyphId(0)).unwrap();
        let mut out = Vec::new();
        out.extend(face.units_per_em().to_le_bytes());
        out.extend(face.ascender().to_le_bytes());
        out.extend(missing.to_le_bytes());
        out.extend(low.iter().flat_map(|a| a.to_le_bytes()));
        for (c, a) in high {
            out.extend(c.to_le_bytes());
            out.extend(a.to_le_bytes());
        }
        out
    }

    #[test]
    fn metrics_file_is_the_fonts() {
        let want = metrics_of(FONT);
        if std::env::var_os("SP_BLESS").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/chart/font/metrics.bin");
            std::fs::write(path, &want).unwrap();
        }
        assert!(
            want == METRICS,
            "font/metrics.bin is not the font's: SP_BLESS=1 rewrites it"
        );
        let m = read_metrics(METRICS);
        assert!(m.high.windows(2).all(|w| w[0].0 < w[1].0) && !m.high.is_empty());
        // Damaged or short bytes read as the defaults, not a panic.
        assert_eq!(read_metrics(&METRICS[..1]).units_per_em, 1000.0);
        assert_eq!(read_metrics(&METRICS[..3]).ascender, 800.0);
        assert_eq!(read_metrics(&[]).low.len(), LOW);
    }

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
