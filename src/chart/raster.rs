//! A [`Scene`] painted into pixels with tiny-skia (pure Rust, so the static musl binary and
//! WebAssembly draw too), its text drawn from the embedded font's outlines, and encoded as
//! a PNG ([`super::png`]). Painting the scene directly rather than parsing its SVG back
//! (as resvg would) is several times faster and a fraction of the size; `docs/charts.md`
//! has the measurements.

use std::collections::HashMap;

use tiny_skia::{FillRule, Paint, Path, PathBuilder, Pixmap, Rect, Stroke, Transform};

use super::color::Rgb;
use super::font::{self, FONT};
use super::scene::{Anchor, Scene, Shape, Style};

/// The largest image drawn, in pixels (about 16 k × 16 k at scale 1).
pub const MAX_PIXELS: u64 = 1 << 28;

/// Why a scene could not be drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RasterError {
    /// The image would have more than [`MAX_PIXELS`] pixels, or none.
    Size { width: u64, height: u64 },
}

impl std::fmt::Display for RasterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RasterError::Size { width, height } => write!(
                f,
                "a {width} × {height} pixel image is too large to draw (at most {MAX_PIXELS} pixels)"
            ),
        }
    }
}

impl std::error::Error for RasterError {}

/// `scene` drawn at `scale` device pixels per scene pixel, as a PNG file.
pub fn png(scene: &Scene, scale: f32) -> Result<Vec<u8>, RasterError> {
    let pixmap = paint(scene, scale)?;
    let rgb: Vec<u8> = pixmap
        .pixels()
        .iter()
        .flat_map(|p| {
            // The background is opaque, so every pixel is: premultiplied is plain.
            let c = p.demultiply();
            [c.red(), c.green(), c.blue()]
        })
        .collect();
    super::png::encode_rgb(pixmap.width(), pixmap.height(), &rgb).ok_or(RasterError::Size {
        width: u64::from(pixmap.width()),
        height: u64::from(pixmap.height()),
    })
}

/// `scene` drawn at `scale` device pixels per scene pixel.
pub fn paint(scene: &Scene, scale: f32) -> Result<Pixmap, RasterError> {
    let scale = if scale.is_finite() && scale > 0.0 {
        scale
    } else {
        1.0
    };
    let width = (f64::from(scene.width) * f64::from(scale)).ceil().max(0.0) as u64;
    let height = (f64::from(scene.height) * f64::from(scale)).ceil().max(0.0) as u64;
    let too_big = RasterError::Size { width, height };
    if width == 0 || height == 0 || width.saturating_mul(height) > MAX_PIXELS {
        return Err(too_big);
    }
    let mut pixmap = Pixmap::new(width as u32, height as u32).ok_or(too_big)?;
    let bg = scene.background;
    pixmap.fill(tiny_skia::Color::from_rgba8(bg.0, bg.1, bg.2, 255));
    let mut painter = Painter {
        pixmap,
        base: Transform::from_scale(scale, scale),
        glyphs: Glyphs::new(),
    };
    for shape in scene.shapes() {
        painter.shape(scene, shape);
    }
    Ok(painter.pixmap)
}

struct Painter {
    pixmap: Pixmap,
    base: Transform,
    glyphs: Glyphs,
}

fn paint_of(color: Rgb, opacity: f32) -> Paint<'static> {
    let mut p = Paint::default();
    let a = (opacity.clamp(0.0, 1.0) * 255.0).round() as u8;
    p.set_color_rgba8(color.0, color.1, color.2, a);
    p.anti_alias = true;
    p
}

impl Painter {
    fn fill(&mut self, path: &Path, style: &Style, transform: Transform) {
        if let Some(c) = style.fill {
            let paint = paint_of(c, style.opacity);
            self.pixmap
                .fill_path(path, &paint, FillRule::Winding, transform, None);
        }
    }

    fn stroke(&mut self, path: &Path, style: &Style) {
        if let Some(c) = style.stroke {
            let paint = paint_of(c, style.opacity);
            let stroke = Stroke {
                width: style.stroke_width.max(0.1),
                ..Stroke::default()
            };
            self.pixmap
                .stroke_path(path, &paint, &stroke, self.base, None);
        }
    }

    fn shape(&mut self, scene: &Scene, shape: &Shape) {
        match shape {
            Shape::Rect {
                x, y, w, h, class, ..
            } => {
                let style = *scene.style(*class);
                if let Some(rect) = Rect::from_xywh(*x, *y, *w, *h) {
                    if let Some(c) = style.fill {
                        let paint = paint_of(c, style.opacity);
                        self.pixmap.fill_rect(rect, &paint, self.base, None);
                    }
                    if style.stroke.is_some() {
                        let path = PathBuilder::from_rect(rect);
                        self.stroke(&path, &style);
                    }
                }
            }
            Shape::Line {
                x1,
                y1,
                x2,
                y2,
                class,
            } => {
                let mut pb = PathBuilder::new();
                pb.move_to(*x1, *y1);
                pb.line_to(*x2, *y2);
                if let Some(path) = pb.finish() {
                    let style = *scene.style(*class);
                    self.stroke(&path, &style);
                }
            }
            Shape::Path {
                points,
                closed,
                class,
            } => {
                let mut pb = PathBuilder::new();
                for (k, &(x, y)) in points.iter().enumerate() {
                    if k == 0 {
                        pb.move_to(x, y);
                    } else {
                        pb.line_to(x, y);
                    }
                }
                if *closed {
                    pb.close();
                }
                if let Some(path) = pb.finish() {
                    let style = *scene.style(*class);
                    if *closed {
                        self.fill(&path, &style, self.base);
                    }
                    self.stroke(&path, &style);
                }
            }
            Shape::Circle {
                cx, cy, r, class, ..
            } => {
                if let Some(path) = PathBuilder::from_circle(*cx, *cy, r.max(0.1)) {
                    let style = *scene.style(*class);
                    self.fill(&path, &style, self.base);
                    self.stroke(&path, &style);
                }
            }
            Shape::Text {
                x,
                y,
                text,
                anchor,
                class,
                ..
            } => {
                let style = *scene.style(*class);
                let w = font::width(text, style.font_size);
                let x0 = match anchor {
                    Anchor::Start => *x,
                    Anchor::Middle => x - w / 2.0,
                    Anchor::End => x - w,
                };
                self.text(text, &style, self.base.pre_translate(x0, *y));
            }
            Shape::VText {
                x, y, text, class, ..
            } => {
                let style = *scene.style(*class);
                let w = font::width(text, style.font_size);
                let at = self
                    .base
                    .pre_translate(*x, *y)
                    .pre_rotate(-90.0)
                    .pre_translate(-w / 2.0, 0.0);
                self.text(text, &style, at);
            }
        }
    }

    /// `text` with its baseline's start at the origin of `at`.
    fn text(&mut self, text: &str, style: &Style, at: Transform) {
        let Some(color) = style.fill else { return };
        let paint = paint_of(color, style.opacity);
        let size = style.font_size;
        let Some(face) = self.glyphs.face.as_ref() else {
            return;
        };
        let em = size / f32::from(face.units_per_em());
        let embolden = style.bold.then(|| Stroke {
            width: 0.045 * size / em,
            ..Stroke::default()
        });
        let mut pen = 0.0f32;
        for c in super::text::clean(text).chars() {
            let (path, advance) = self.glyphs.get(c);
            if let Some(path) = path {
                let t = at.pre_translate(pen, 0.0).pre_scale(em, -em);
                self.pixmap
                    .fill_path(path, &paint, FillRule::Winding, t, None);
                if let Some(stroke) = &embolden {
                    self.pixmap.stroke_path(path, &paint, stroke, t, None);
                }
            }
            pen += f32::from(advance) * em;
        }
    }
}

/// The embedded font's glyph outlines, read once per glyph.
struct Glyphs {
    face: Option<ttf_parser::Face<'static>>,
    cache: HashMap<char, (Option<Path>, u16)>,
}

impl Glyphs {
    fn new() -> Glyphs {
        Glyphs {
            face: ttf_parser::Face::parse(FONT, 0).ok(),
            cache: HashMap::new(),
        }
    }

    /// The outline of `c` (in font units, y up) and its advance; the font's box for a
    /// character it lacks.
    fn get(&mut self, c: char) -> (Option<&Path>, u16) {
        let face = self.face.as_ref();
        let (path, advance) = self.cache.entry(c).or_insert_with(|| {
            let Some(face) = face else {
                return (None, 0);
            };
            let id = face.glyph_index(c).unwrap_or(ttf_parser::GlyphId(0));
            let mut outline = Outline(PathBuilder::new());
            let path = face
                .outline_glyph(id, &mut outline)
                .and_then(|_| outline.0.finish());
            (path, face.glyph_hor_advance(id).unwrap_or(0))
        });
        (path.as_ref(), *advance)
    }
}

struct Outline(PathBuilder);

impl ttf_parser::OutlineBuilder for Outline {
    fn move_to(&mut self, x: f32, y: f32) {
        self.0.move_to(x, y);
    }
    fn line_to(&mut self, x: f32, y: f32) {
        self.0.line_to(x, y);
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        self.0.quad_to(x1, y1, x, y);
    }
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        self.0.cubic_to(x1, y1, x2, y2, x, y);
    }
    fn close(&mut self) {
        self.0.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::scene::Style;

    #[test]
    fn shapes_and_text_land_where_the_scene_puts_them() {
        let mut scene = Scene::new(60.0, 30.0, Rgb(255, 255, 255));
        let red = scene.class("r", Style::fill(Rgb(255, 0, 0)));
        let ink = scene.class("t", Style::text(Rgb(0, 0, 0), 12.0));
        scene.rect(10.0, 10.0, 10.0, 10.0, red);
        scene.text(30.0, 20.0, "Hi", Anchor::Start, ink);
        let p = paint(&scene, 2.0).unwrap();
        assert_eq!((p.width(), p.height()), (120, 60));
        let at = |x: u32, y: u32| {
            let c = p.pixel(x, y).unwrap().demultiply();
            (c.red(), c.green(), c.blue())
        };
        assert_eq!(at(30, 30), (255, 0, 0));
        assert_eq!(at(5, 5), (255, 255, 255));
        // Some pixel of the text's box is dark.
        let dark = (60..90)
            .flat_map(|x| (20..40).map(move |y| (x, y)))
            .any(|(x, y)| at(x, y).0 < 100);
        assert!(dark);
        let png = png(&scene, 1.0).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(png, super::png(&scene, 1.0).unwrap());
        let huge = Scene::new(1e6, 1e6, Rgb(0, 0, 0));
        assert!(matches!(paint(&huge, 1.0), Err(RasterError::Size { .. })));
    }
}
