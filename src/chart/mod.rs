//! Charts: the rows of a plot kind drawn as SVG written by us, or as a PNG painted from the
//! same shapes. The layer under `sp plot`, `sp export flamegraph` and (later) the page's
//! **Save SVG** / **Save PNG**, so a chart is the same picture everywhere.
//!
//! - [`scene`]: a chart as shapes in pixels with classes for their paint; [`svg`] writes it
//!   (no script, deterministic bytes, a `viewBox`, `<title>` tooltips, one `<style>`);
//!   [`raster`] paints it with tiny-skia into a PNG ([`png`]), its text from the one
//!   embedded font ([`font`], Inter under the SIL Open Font License).
//! - [`color`]: the one region colour function (the page's), the themes, the scales;
//!   [`axis`]: round ticks and time units; [`text`]: escaping and middle ellipses;
//!   [`frame`]: titles, axes and legends.
//! - [`flamegraph`]: the aggregated call stacks of [`crate::analysis::stacks`] as a flame
//!   graph; [`gantt`] and [`flame_chart`]: calls in time order through the level of detail.
//! - The aggregate kinds, each drawn from the rows of [`crate::analysis::plot_data`] that
//!   `sp export plot-data` writes ([`aggregate`] holds what they share): [`durations`],
//!   [`histogram`], [`rank_heatmap`], [`imbalance`], [`timeseries`], [`density`].
//!
//! A renderer only draws rows computed by the analysis layer; it computes no chart's
//! numbers itself. Level of detail is part of the data ([`crate::analysis::lod`]).
//!
//! ```
//! use sp::chart::{color::Theme, scene::{Anchor, Scene, Style}, svg};
//!
//! let theme = Theme::Light;
//! let mut scene = Scene::new(120.0, 40.0, theme.ink().bg);
//! scene.title = "a bar".into();
//! let bar = scene.class("r3", Style::fill(sp::chart::color::region(3, theme, false)));
//! scene.rect(10.0, 10.0, 100.0, 20.0, bar);
//! let text = svg::write(&scene);
//! assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 120 40\""));
//! ```

pub mod aggregate;
pub mod axis;
pub mod color;
pub mod density;
pub mod durations;
pub mod flame_chart;
pub mod flamegraph;
pub mod font;
pub mod frame;
pub mod gantt;
pub mod histogram;
pub mod imbalance;
pub mod plot;
pub mod png;
pub mod rank_heatmap;
#[cfg(feature = "png")]
pub mod raster;
pub mod scaling;
pub mod scaling_model;
pub mod scene;
pub mod svg;
pub mod text;
pub mod timeline;
pub mod timeseries;

/// The file format a chart is written in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Format {
    Svg,
    /// At `scale` device pixels per chart pixel.
    #[cfg(feature = "png")]
    Png {
        scale: f32,
    },
}

impl Format {
    /// The format a file name asks for: `.png` a PNG at `scale`, anything else SVG.
    #[cfg(feature = "png")]
    pub fn of_path(path: &str, scale: f32) -> Format {
        if path.to_ascii_lowercase().ends_with(".png") {
            Format::Png { scale }
        } else {
            Format::Svg
        }
    }
}

/// `scene` as the bytes of a file in `format`.
pub fn encode(scene: &scene::Scene, format: Format) -> Result<Vec<u8>, EncodeError> {
    match format {
        Format::Svg => Ok(svg::write(scene).into_bytes()),
        #[cfg(feature = "png")]
        Format::Png { scale } => raster::png(scene, scale).map_err(EncodeError::Raster),
    }
}

/// Why a chart could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    #[cfg(feature = "png")]
    Raster(raster::RasterError),
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, _f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            #[cfg(feature = "png")]
            EncodeError::Raster(ref e) => e.fmt(_f),
        }
    }
}

impl std::error::Error for EncodeError {}
