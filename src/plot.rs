//! PNG line plots (simulation vs analytic curves, in the style of the paper's figures).
//!
//! One function, [`line_plot`], draws every series of a [`PlotSpec`] on one pair of linear axes
//! with a legend, and writes an 800 × 600 PNG. It runs headless: the text is rendered by
//! plotters' `ab_glyph` backend from the DejaVu Sans font embedded in the binary (crate `dejavu`),
//! so no system font or font configuration is needed.
//!
//! Colours follow the series order: black, red, blue, green, orange, purple, brown, grey (the
//! paper draws the simulation in black and the analytic models in red and blue). The axis ranges
//! are the data range of all series plus 4 % on each side.

use anyhow::{anyhow, Context as _};
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Solid line through the points.
    Line,
    /// Dashed line through the points (analytic curves, as in the paper).
    Dashed,
    /// A small filled circle at each point.
    Markers,
}

/// One named curve.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// (x, y) points, drawn in the given order; non-finite points are skipped.
    pub points: Vec<(f64, f64)>,
    pub style: Style,
}

/// A figure: title, axis labels and the series drawn on it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotSpec {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
}

/// Colours by series index (cycled).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 0, 0),
    RGBColor(214, 39, 40),
    RGBColor(31, 119, 180),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(127, 127, 127),
];

/// Family name under which the embedded font is registered.
pub const FONT: &str = "softdem-sans";

pub fn register_font() -> anyhow::Result<()> {
    static OK: OnceLock<bool> = OnceLock::new();
    let ok =
        *OK.get_or_init(|| plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular()).is_ok());
    anyhow::ensure!(ok, "the embedded DejaVu Sans font could not be parsed");
    Ok(())
}

/// Data range of all finite points, padded by 4 % (or ±1 around a single value).
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let span = hi - lo;
    if span <= 1e-12 * hi.abs().max(lo.abs()).max(1e-300) {
        let d = if lo == 0.0 { 1.0 } else { 0.05 * lo.abs() };
        return (lo - d, hi + d);
    }
    (lo - 0.04 * span, hi + 0.04 * span)
}

/// Draws `spec` into a PNG at `path` (800 × 600 pixels), creating the parent directory.
pub fn line_plot(path: &Path, spec: &PlotSpec) -> anyhow::Result<()> {
    register_font()?;
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
    }
    draw(path, spec).map_err(|e| anyhow!("plotting {}: {e}", path.display()))
}

fn draw(path: &Path, spec: &PlotSpec) -> Result<(), Box<dyn std::error::Error>> {
    let finite = |s: &Series| -> Vec<(f64, f64)> {
        s.points
            .iter()
            .copied()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .collect()
    };
    let all: Vec<(f64, f64)> = spec.series.iter().flat_map(finite).collect();
    let (x0, x1) = range(all.iter().map(|p| p.0));
    let (y0, y1) = range(all.iter().map(|p| p.1));

    let root = BitMapBackend::new(path, (800, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(&spec.title, (FONT, 24))
        .margin(16)
        .x_label_area_size(52)
        .y_label_area_size(72)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .x_desc(&spec.x_label)
        .y_desc(&spec.y_label)
        .axis_desc_style((FONT, 20))
        .label_style((FONT, 16))
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(210, 210, 210))
        .draw()?;
    for (i, s) in spec.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let pts = finite(s);
        let anno = match s.style {
            Style::Line => chart.draw_series(LineSeries::new(pts, color.stroke_width(2)))?,
            Style::Dashed => chart.draw_series(DashedLineSeries::new(pts, 10, 6, color.stroke_width(2)))?,
            Style::Markers => chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 4, color.filled())))?,
        };
        let style = s.style;
        anno.label(s.name.clone())
            .legend(move |(x, y)| -> DynElement<'static, BitMapBackend, (i32, i32)> {
                match style {
                    Style::Markers => Circle::new((x + 10, y), 4, color.filled()).into_dyn(),
                    _ => PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)).into_dyn(),
                }
            });
    }
    chart
        .configure_series_labels()
        .label_font((FONT, 16))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_a_png_with_text() {
        let dir = std::env::temp_dir().join(format!("softdem-plot-{}", std::process::id()));
        let path = dir.join("t.png");
        let spec = PlotSpec {
            title: "y = x² (test)".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            series: vec![
                Series {
                    name: "curve".into(),
                    points: (0..=20).map(|i| (i as f64 / 20.0, (i as f64 / 20.0).powi(2))).collect(),
                    style: Style::Line,
                },
                Series {
                    name: "dashed".into(),
                    points: vec![(0.0, 0.0), (1.0, 1.0)],
                    style: Style::Dashed,
                },
                Series {
                    name: "markers".into(),
                    points: vec![(0.5, 0.5), (0.7, f64::NAN)],
                    style: Style::Markers,
                },
            ],
        };
        line_plot(&path, &spec).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        std::fs::remove_dir_all(&dir).ok();
    }
}
