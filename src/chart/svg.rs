//! A [`Scene`] as SVG text, written by us: no script, no external reference, no
//! `foreignObject`; a `viewBox` so it scales; a `<title>` and a `<desc>`; one `<style>` of
//! classes; coordinates to a tenth of a pixel; every text from a profile escaped. The same
//! scene gives the same bytes.

use std::fmt::Write as _;

use super::scene::{Anchor, Scene, Shape, Style};
use super::text::escape_into;

/// The font families named: the reader's own interface font, then any sans-serif.
pub const SANS: &str = "system-ui, sans-serif";
/// For numbers in tables.
pub const MONO: &str = "ui-monospace, monospace";

/// Appends `v` to a tenth of a pixel, without a trailing `.0` (and `0` for `-0`).
pub fn num(out: &mut String, v: f32) {
    let tenths = (f64::from(v) * 10.0).round();
    if !tenths.is_finite() {
        out.push('0');
        return;
    }
    let t = tenths as i64;
    if t < 0 {
        out.push('-');
    }
    let a = t.unsigned_abs();
    let _ = write!(out, "{}", a / 10);
    if a % 10 != 0 {
        let _ = write!(out, ".{}", a % 10);
    }
}

/// The style of a class as CSS declarations.
fn css(out: &mut String, s: &Style) {
    match s.fill {
        Some(c) => {
            let _ = write!(out, "fill:{c}");
        }
        None => out.push_str("fill:none"),
    }
    if let Some(c) = s.stroke {
        let _ = write!(out, ";stroke:{c};stroke-width:");
        num(out, s.stroke_width);
    }
    if s.font_size > 0.0 {
        out.push_str(";font-size:");
        num(out, s.font_size);
        out.push_str("px");
        if s.bold {
            out.push_str(";font-weight:600");
        }
        if s.mono {
            let _ = write!(out, ";font-family:{MONO}");
        }
    }
    if s.opacity < 1.0 {
        let _ = write!(out, ";opacity:{:.2}", s.opacity.clamp(0.0, 1.0));
    }
}

/// How a document states its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sizing {
    /// A `viewBox` and its size in pixels: a file to open on its own.
    Sized,
    /// A `viewBox` alone: scales to whatever element it is inlined into.
    Scalable,
    /// Its size in pixels and an XML prolog before it, for a standalone file.
    Fixed,
}

/// Writes `scene` as one SVG document with its size ([`Sizing::Sized`]).
pub fn write(scene: &Scene) -> String {
    write_sized(scene, Sizing::Sized)
}

/// Writes `scene` as one SVG document, its size stated as `sizing` says.
pub fn write_sized(scene: &Scene, sizing: Sizing) -> String {
    let mut out = String::with_capacity(256 + scene.shapes().len() * 64);
    if sizing == Sizing::Fixed {
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
    }
    out.push_str("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ");
    num(&mut out, scene.width);
    out.push(' ');
    num(&mut out, scene.height);
    out.push('"');
    if sizing != Sizing::Scalable {
        out.push_str(" width=\"");
        num(&mut out, scene.width);
        out.push_str("\" height=\"");
        num(&mut out, scene.height);
        out.push('"');
    }
    let _ = write!(out, " font-family=\"{SANS}\">\n<title>");
    escape_into(&mut out, &scene.title);
    out.push_str("</title>\n<desc>");
    escape_into(&mut out, &scene.desc);
    out.push_str("</desc>\n<style>\n");
    let _ = writeln!(out, ".bg{{fill:{}}}", scene.background);
    for (name, style) in &scene.styles {
        let _ = write!(out, ".{name}{{");
        css(&mut out, style);
        out.push_str("}\n");
    }
    out.push_str("</style>\n<rect class=\"bg\" width=\"");
    num(&mut out, scene.width);
    out.push_str("\" height=\"");
    num(&mut out, scene.height);
    out.push_str("\"/>\n");
    for shape in scene.shapes() {
        write_shape(&mut out, scene, shape);
    }
    out.push_str("</svg>\n");
    out
}

fn attr(out: &mut String, name: &str, v: f32) {
    let _ = write!(out, " {name}=\"");
    num(out, v);
    out.push('"');
}

/// Closes an element: `/>`, or its tooltip and the closing tag.
fn close(out: &mut String, tag: &str, tip: Option<&str>) {
    match tip {
        Some(tip) => {
            out.push_str("><title>");
            escape_into(out, tip);
            let _ = writeln!(out, "</title></{tag}>");
        }
        None => out.push_str("/>\n"),
    }
}

fn write_shape(out: &mut String, scene: &Scene, shape: &Shape) {
    match shape {
        Shape::Rect {
            x,
            y,
            w,
            h,
            class,
            tip,
        } => {
            let _ = write!(out, "<rect class=\"{}\"", scene.class_name(*class));
            attr(out, "x", *x);
            attr(out, "y", *y);
            attr(out, "width", w.max(0.0));
            attr(out, "height", h.max(0.0));
            close(out, "rect", tip.as_deref());
        }
        Shape::Line {
            x1,
            y1,
            x2,
            y2,
            class,
        } => {
            let _ = write!(out, "<line class=\"{}\"", scene.class_name(*class));
            attr(out, "x1", *x1);
            attr(out, "y1", *y1);
            attr(out, "x2", *x2);
            attr(out, "y2", *y2);
            out.push_str("/>\n");
        }
        Shape::Path {
            points,
            closed,
            class,
        } => {
            if points.is_empty() {
                return;
            }
            let _ = write!(out, "<path class=\"{}\" d=\"", scene.class_name(*class));
            for (k, &(x, y)) in points.iter().enumerate() {
                out.push(if k == 0 { 'M' } else { 'L' });
                num(out, x);
                out.push(' ');
                num(out, y);
            }
            if *closed {
                out.push('Z');
            }
            out.push_str("\"/>\n");
        }
        Shape::Circle {
            cx,
            cy,
            r,
            class,
            tip,
        } => {
            let _ = write!(out, "<circle class=\"{}\"", scene.class_name(*class));
            attr(out, "cx", *cx);
            attr(out, "cy", *cy);
            attr(out, "r", *r);
            close(out, "circle", tip.as_deref());
        }
        Shape::Text {
            x,
            y,
            text,
            anchor,
            class,
            tip,
        } => {
            let _ = write!(out, "<text class=\"{}\"", scene.class_name(*class));
            attr(out, "x", *x);
            attr(out, "y", *y);
            match anchor {
                Anchor::Start => {}
                Anchor::Middle => out.push_str(" text-anchor=\"middle\""),
                Anchor::End => out.push_str(" text-anchor=\"end\""),
            }
            out.push('>');
            if let Some(tip) = tip {
                out.push_str("<title>");
                escape_into(out, tip);
                out.push_str("</title>");
            }
            escape_into(out, text);
            out.push_str("</text>\n");
        }
        Shape::VText { x, y, text, class } => {
            let _ = write!(out, "<text class=\"{}\"", scene.class_name(*class));
            attr(out, "x", *x);
            attr(out, "y", *y);
            out.push_str(" text-anchor=\"middle\" transform=\"rotate(-90 ");
            num(out, *x);
            out.push(' ');
            num(out, *y);
            out.push_str(")\">");
            escape_into(out, text);
            out.push_str("</text>\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::color::Rgb;

    #[test]
    fn numbers_have_a_tenth_at_most() {
        let s = |v: f32| {
            let mut o = String::new();
            num(&mut o, v);
            o
        };
        assert_eq!(s(12.0), "12");
        assert_eq!(s(12.34), "12.3");
        assert_eq!(s(-0.04), "0");
        assert_eq!(s(-2.25), "-2.3");
        assert_eq!(s(f32::NAN), "0");
    }

    #[test]
    fn a_scene_is_one_well_formed_document_with_its_text_escaped() {
        let mut scene = Scene::new(200.0, 100.0, Rgb(255, 255, 255));
        scene.title = "gantt of <run> & co".into();
        scene.desc = "sp plot gantt run.h5".into();
        let bar = scene.class("r0", Style::fill(Rgb(1, 2, 3)));
        let label = scene.class("t", Style::text(Rgb(0, 0, 0), 11.0));
        scene.rect_tip(1.0, 2.0, 3.0, 4.0, bar, "<script>alert(1)</script>".into());
        scene.text(5.0, 6.0, "a\u{7}&b", Anchor::End, label);
        let svg = write(&scene);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let root = doc.root_element();
        assert_eq!(root.attribute("viewBox"), Some("0 0 200 100"));
        let title = root.children().find(|n| n.has_tag_name("title")).unwrap();
        assert_eq!(title.text(), Some("gantt of <run> & co"));
        assert!(doc.descendants().all(|n| !n.has_tag_name("script")));
        let rect = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("r0"))
            .unwrap();
        assert_eq!(
            rect.first_child().and_then(|t| t.text()),
            Some("<script>alert(1)</script>")
        );
        let text = doc.descendants().find(|n| n.has_tag_name("text")).unwrap();
        assert_eq!(text.text(), Some("a\u{fffd}&b"));
        assert_eq!(text.attribute("text-anchor"), Some("end"));
        assert!(svg.contains(".r0{fill:#010203}"));
        assert_eq!(svg, write(&scene));
    }
}
