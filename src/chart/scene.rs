//! A chart as a list of shapes in pixel coordinates, before it is written: the one picture
//! that [`svg`](super::svg) writes as text and [`raster`](super::raster) paints into a PNG,
//! so the two agree by construction. Shapes name a [`Class`] (their paint) rather than a
//! colour, so the SVG groups repeated styles into one `<style>` block.

use super::color::Rgb;

/// The paint of a set of shapes: a class of the SVG's `<style>` block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    pub fill: Option<Rgb>,
    pub stroke: Option<Rgb>,
    pub stroke_width: f32,
    /// Text only: size in pixels, weight (400 or 600), monospace.
    pub font_size: f32,
    pub bold: bool,
    pub mono: bool,
    /// 0 to 1.
    pub opacity: f32,
}

impl Style {
    /// A solid fill.
    pub fn fill(color: Rgb) -> Style {
        Style {
            fill: Some(color),
            stroke: None,
            stroke_width: 0.0,
            font_size: 0.0,
            bold: false,
            mono: false,
            opacity: 1.0,
        }
    }

    /// A stroke `width` pixels wide, no fill.
    pub fn stroke(color: Rgb, width: f32) -> Style {
        Style {
            fill: None,
            stroke: Some(color),
            stroke_width: width,
            ..Style::fill(color)
        }
    }

    /// Text of `size` pixels.
    pub fn text(color: Rgb, size: f32) -> Style {
        Style {
            font_size: size,
            ..Style::fill(color)
        }
    }

    pub fn bold(self) -> Style {
        Style { bold: true, ..self }
    }

    pub fn mono(self) -> Style {
        Style { mono: true, ..self }
    }

    pub fn opacity(self, opacity: f32) -> Style {
        Style { opacity, ..self }
    }
}

/// A class of the scene's style sheet (its index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Class(pub(super) u32);

/// Where a text's `x` lies: its start, middle or end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

/// One shape. Coordinates in pixels from the top left; `tip`: the tooltip (`<title>`).
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        class: Class,
        tip: Option<String>,
    },
    Line {
        x1: f32,
        y1: f32,
        x2: f32,
        y2: f32,
        class: Class,
    },
    /// Connected segments (stroked) or a closed polygon (filled when its class fills).
    Path {
        points: Vec<(f32, f32)>,
        closed: bool,
        class: Class,
    },
    Circle {
        cx: f32,
        cy: f32,
        r: f32,
        class: Class,
        tip: Option<String>,
    },
    /// One line of text; `y` is its baseline.
    Text {
        x: f32,
        y: f32,
        text: String,
        anchor: Anchor,
        class: Class,
        tip: Option<String>,
    },
    /// Text turned a quarter left about its anchor (a vertical axis title).
    VText {
        x: f32,
        y: f32,
        text: String,
        class: Class,
    },
}

/// A whole chart: its size, style sheet, shapes in painting order, and the words of its
/// `<title>` and `<desc>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    pub width: f32,
    pub height: f32,
    pub background: Rgb,
    /// The document's title (what the chart is, of which file).
    pub title: String,
    /// What drew it: sp and the command.
    pub desc: String,
    pub(super) styles: Vec<(String, Style)>,
    pub(super) shapes: Vec<Shape>,
}

impl Scene {
    pub fn new(width: f32, height: f32, background: Rgb) -> Scene {
        Scene {
            width,
            height,
            background,
            title: String::new(),
            desc: String::new(),
            styles: Vec::new(),
            shapes: Vec::new(),
        }
    }

    /// The class named `name` (letters, digits, `-`), added with `style` the first time.
    pub fn class(&mut self, name: &str, style: Style) -> Class {
        if let Some(i) = self.styles.iter().position(|(n, _)| n == name) {
            return Class(i as u32);
        }
        self.styles.push((name.to_string(), style));
        Class((self.styles.len() - 1) as u32)
    }

    pub fn style(&self, class: Class) -> &Style {
        &self.styles[class.0 as usize].1
    }

    pub fn class_name(&self, class: Class) -> &str {
        &self.styles[class.0 as usize].0
    }

    pub fn push(&mut self, shape: Shape) {
        self.shapes.push(shape);
    }

    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// The texts of the scene, in drawing order: what the charts' tests read.
    #[cfg(test)]
    pub fn texts(&self) -> Vec<&str> {
        (self.shapes.iter())
            .filter_map(|s| match s {
                Shape::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    pub fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, class: Class) {
        self.push(Shape::Rect {
            x,
            y,
            w,
            h,
            class,
            tip: None,
        });
    }

    pub fn rect_tip(&mut self, x: f32, y: f32, w: f32, h: f32, class: Class, tip: String) {
        self.push(Shape::Rect {
            x,
            y,
            w,
            h,
            class,
            tip: Some(tip),
        });
    }

    pub fn line(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, class: Class) {
        self.push(Shape::Line {
            x1,
            y1,
            x2,
            y2,
            class,
        });
    }

    pub fn text(&mut self, x: f32, y: f32, text: impl Into<String>, anchor: Anchor, class: Class) {
        self.push(Shape::Text {
            x,
            y,
            text: text.into(),
            anchor,
            class,
            tip: None,
        });
    }

    pub fn text_tip(
        &mut self,
        x: f32,
        y: f32,
        text: impl Into<String>,
        anchor: Anchor,
        class: Class,
        tip: String,
    ) {
        self.push(Shape::Text {
            x,
            y,
            text: text.into(),
            anchor,
            class,
            tip: Some(tip),
        });
    }

    /// How many shapes of `class` the scene holds (for tests counting what was drawn).
    pub fn count(&self, class: Class) -> usize {
        self.shapes
            .iter()
            .filter(|s| match s {
                Shape::Rect { class: c, .. }
                | Shape::Line { class: c, .. }
                | Shape::Path { class: c, .. }
                | Shape::Circle { class: c, .. }
                | Shape::Text { class: c, .. }
                | Shape::VText { class: c, .. } => *c == class,
            })
            .count()
    }
}
