//! Line charts as SVG files: learning curves, tuning runs, a match's Elo
//! and SPRT, and the course experiments' figures.
//!
//! A [`Figure`] is one or more [`Panel`]s stacked vertically, each with its
//! axes and [`Series`]; a point may carry an interval, drawn as a vertical
//! bar. Drawing goes through plotters' SVG backend only, so no font files
//! or system libraries are needed: text is left to the program that shows
//! the picture.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// Width of a figure in pixels.
const WIDTH: u32 = 760;
/// Height of one panel in pixels.
const PANEL_HEIGHT: u32 = 320;
/// Series colours, in order (a colour-blind-safe palette).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(120, 120, 120),
    RGBColor(240, 228, 66),
];

/// What can go wrong when drawing a figure.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// A value that is not a finite number.
    #[error("series '{series}': the point ({x}, {y}) is not a finite number")]
    NotFinite {
        /// The series.
        series: String,
        /// The point's x.
        x: f64,
        /// The point's y.
        y: f64,
    },
    /// A value that a logarithmic axis cannot show.
    #[error("series '{series}': {y} at x = {x} cannot be shown on a logarithmic axis")]
    NotPositive {
        /// The series.
        series: String,
        /// The point's x.
        x: f64,
        /// The point's y.
        y: f64,
    },
    /// The drawing library failed.
    #[error("drawing '{title}': {why}")]
    Draw {
        /// The figure.
        title: String,
        /// What the library said.
        why: String,
    },
    /// The file could not be written.
    #[error("writing the picture {path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
}

/// One point of a series, with an optional interval on y.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Position on the x axis.
    pub x: f64,
    /// Position on the y axis.
    pub y: f64,
    /// Lower and upper end of an interval on y, drawn as a bar.
    pub interval: Option<(f64, f64)>,
}

impl Point {
    /// A point without an interval.
    pub fn new(x: f64, y: f64) -> Point {
        Point {
            x,
            y,
            interval: None,
        }
    }

    /// A point with an interval `low..high` on y.
    pub fn with_interval(x: f64, y: f64, low: f64, high: f64) -> Point {
        Point {
            x,
            y,
            interval: Some((low, high)),
        }
    }
}

/// A named set of points, joined by a line in the order given, or not.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The name in the legend.
    pub name: String,
    /// The points.
    pub points: Vec<Point>,
    /// Whether a line joins the points (else they are marks alone).
    pub joined: bool,
}

impl Series {
    /// A joined series of `points`.
    pub fn new(name: &str, points: Vec<Point>) -> Series {
        Series {
            name: name.to_string(),
            points,
            joined: true,
        }
    }

    /// A joined series from `(x, y)` pairs.
    pub fn from_pairs(name: &str, pairs: impl IntoIterator<Item = (f64, f64)>) -> Series {
        Series::new(
            name,
            pairs.into_iter().map(|(x, y)| Point::new(x, y)).collect(),
        )
    }

    /// The same points as marks without a line.
    pub fn marks_only(self) -> Series {
        Series {
            joined: false,
            ..self
        }
    }
}

/// One chart: axes, labels and series.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Panel {
    /// The chart's own title (may be empty).
    pub title: String,
    /// The x axis label.
    pub x_label: String,
    /// The y axis label.
    pub y_label: String,
    /// A logarithmic y axis (every y and interval end must be positive).
    pub log_y: bool,
    /// A fixed y range instead of one fitted to the data.
    pub y_range: Option<(f64, f64)>,
    /// Horizontal reference lines (such as an SPRT's bounds), with names.
    pub rules: Vec<(String, f64)>,
    /// Put the legend in the lower right corner (for data along the top)
    /// instead of the upper left.
    pub legend_low: bool,
    /// The lines.
    pub series: Vec<Series>,
}

/// Panels stacked vertically under a title.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figure {
    /// The title above the panels.
    pub title: String,
    /// The charts.
    pub panels: Vec<Panel>,
}

impl Figure {
    /// The figure as an SVG document.
    pub fn svg(&self) -> Result<String, PlotError> {
        self.check()?;
        let mut text = String::new();
        let height = PANEL_HEIGHT * self.panels.len() as u32 + 40;
        {
            let root = SVGBackend::with_string(&mut text, (WIDTH, height)).into_drawing_area();
            let drawn = root
                .fill(&WHITE)
                .map_err(|e| e.to_string())
                .and_then(|()| {
                    root.titled(&self.title, ("sans-serif", 22))
                        .map_err(|e| e.to_string())
                })
                .and_then(|area| {
                    for (panel, part) in self
                        .panels
                        .iter()
                        .zip(area.split_evenly((self.panels.len(), 1)))
                    {
                        draw_panel(panel, &part)?;
                    }
                    root.present().map_err(|e| e.to_string())
                });
            drawn.map_err(|why| PlotError::Draw {
                title: self.title.clone(),
                why,
            })?;
        }
        Ok(text)
    }

    /// Writes the figure as an SVG file.
    pub fn save(&self, path: &Path) -> Result<(), PlotError> {
        let text = self.svg()?;
        std::fs::write(path, text).map_err(|error| PlotError::Io {
            path: path.to_path_buf(),
            error,
        })
    }

    /// Refuses figures that cannot be drawn, naming the bad point. A figure
    /// without points is drawn, with empty axes: a run whose Elo is still
    /// infinite has nothing finite to show yet, and that is no error.
    fn check(&self) -> Result<(), PlotError> {
        for panel in &self.panels {
            for s in &panel.series {
                for p in &s.points {
                    let values = [p.x, p.y]
                        .into_iter()
                        .chain(p.interval.into_iter().flat_map(|(a, b)| [a, b]));
                    if values.clone().any(|v| !v.is_finite()) {
                        return Err(PlotError::NotFinite {
                            series: s.name.clone(),
                            x: p.x,
                            y: p.y,
                        });
                    }
                    if panel.log_y && values.skip(1).any(|v| v <= 0.0) {
                        return Err(PlotError::NotPositive {
                            series: s.name.clone(),
                            x: p.x,
                            y: p.y,
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

impl Panel {
    /// The x range of the data, widened when it is a single value.
    fn x_range(&self) -> (f64, f64) {
        let xs = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.x));
        widen(min_max(xs).unwrap_or((0.0, 1.0)), false)
    }

    /// The y range: the fixed one, or the data's (intervals and reference
    /// lines included) with a margin.
    fn y_range(&self) -> (f64, f64) {
        if let Some(r) = self.y_range {
            return r;
        }
        let ys = self
            .series
            .iter()
            .flat_map(|s| s.points.iter())
            .flat_map(|p| {
                std::iter::once(p.y).chain(p.interval.into_iter().flat_map(|(a, b)| [a, b]))
            })
            .chain(self.rules.iter().map(|(_, y)| *y));
        widen(min_max(ys).unwrap_or((0.0, 1.0)), self.log_y)
    }
}

/// The smallest and largest of `values`.
fn min_max(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// A range with a margin of 5% (a factor on a logarithmic axis), never empty.
fn widen((lo, hi): (f64, f64), log: bool) -> (f64, f64) {
    if log {
        return (lo / 1.5, hi * 1.5);
    }
    if hi - lo < 1e-12 {
        return (lo - 1.0, hi + 1.0);
    }
    let pad = (hi - lo) * 0.05;
    (lo - pad, hi + pad)
}

/// Draws one panel into `area`.
fn draw_panel(panel: &Panel, area: &DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), String> {
    let (x0, x1) = panel.x_range();
    let (y0, y1) = panel.y_range();
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(&panel.title, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70);
    if panel.log_y {
        let mut chart = builder
            .build_cartesian_2d(x0..x1, (y0..y1).log_scale())
            .map_err(|e| e.to_string())?;
        draw_chart(&mut chart, panel, (x0, x1), format_number)
    } else {
        let mut chart = builder
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| e.to_string())?;
        draw_chart(&mut chart, panel, (x0, x1), tick)
    }
}

/// Draws the axes (y labels by `y_tick`), the reference lines, the series,
/// their intervals and the legend.
fn draw_chart<'a, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, Y>>,
    panel: &Panel,
    (x0, x1): (f64, f64),
    y_tick: fn(f64) -> String,
) -> Result<(), String>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc(&panel.x_label)
        .y_desc(&panel.y_label)
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| y_tick(*v))
        .draw()
        .map_err(|e| e.to_string())?;
    for (name, y) in &panel.rules {
        let style = ShapeStyle::from(&BLACK.mix(0.5)).stroke_width(1);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x0, *y), (x1, *y)],
                style,
            )))
            .map_err(|e| e.to_string())?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }
    for (i, s) in panel.series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        let style = ShapeStyle::from(&colour).stroke_width(2);
        let marks = chart
            .draw_series(
                s.points
                    .iter()
                    .map(|p| Circle::new((p.x, p.y), 3, colour.filled())),
            )
            .map_err(|e| e.to_string())?;
        if s.joined {
            chart
                .draw_series(LineSeries::new(s.points.iter().map(|p| (p.x, p.y)), style))
                .map_err(|e| e.to_string())?
                .label(s.name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        } else {
            marks
                .label(s.name.as_str())
                .legend(move |(x, y)| Circle::new((x + 10, y), 3, colour.filled()));
        }
        chart
            .draw_series(s.points.iter().filter_map(|p| {
                p.interval
                    .map(|(lo, hi)| PathElement::new(vec![(p.x, lo), (p.x, hi)], colour))
            }))
            .map_err(|e| e.to_string())?;
    }
    chart
        .configure_series_labels()
        .position(if panel.legend_low {
            SeriesLabelPosition::LowerRight
        } else {
            SeriesLabelPosition::UpperLeft
        })
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()
        .map_err(|e| e.to_string())
}

/// A tick label for a linear axis: whole numbers without a fraction, others
/// with at most three decimals.
fn tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        let text = format!("{v:.3}");
        text.trim_end_matches('0').to_string()
    }
}

/// A tick label for a logarithmic axis: 1, 10, 100, 1k, 10k, 1M, ...
fn format_number(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{}M", v / 1e6)
    } else if a >= 1e3 {
        format!("{}k", v / 1e3)
    } else if a >= 1.0 || a == 0.0 {
        format!("{v}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The polylines of `svg` drawn in palette colour `i`, as point lists.
    pub(crate) fn lines_in_colour(svg: &str, i: usize) -> Vec<Vec<(f64, f64)>> {
        let RGBColor(r, g, b) = PALETTE[i];
        let stroke = format!("stroke=\"#{r:02X}{g:02X}{b:02X}\"");
        svg.lines()
            .filter(|l| l.starts_with("<polyline") && l.contains(&stroke))
            .map(|l| {
                let points = l
                    .split("points=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap();
                points
                    .split_whitespace()
                    .map(|xy| {
                        let (x, y) = xy.split_once(',').unwrap();
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect()
            })
            .collect()
    }

    fn figure(log_y: bool, ys: &[f64]) -> Figure {
        Figure {
            title: "known data".into(),
            panels: vec![Panel {
                x_label: "x".into(),
                y_label: "y".into(),
                log_y,
                series: vec![Series::from_pairs(
                    "line",
                    ys.iter().enumerate().map(|(i, y)| (i as f64, *y)),
                )],
                ..Panel::default()
            }],
        }
    }

    #[test]
    fn points_land_evenly_where_the_data_is_even() {
        let svg = figure(false, &[0.0, 5.0, 10.0]).svg().unwrap();
        // The series line is the longest polyline in its colour (the legend's
        // sample is two points).
        let line = lines_in_colour(&svg, 0)
            .into_iter()
            .max_by_key(|l| l.len())
            .unwrap();
        assert_eq!(line.len(), 3);
        let ((x0, y0), (x1, y1), (x2, y2)) = (line[0], line[1], line[2]);
        assert!(x0 < x1 && x1 < x2, "x grows to the right: {line:?}");
        assert!(y0 > y1 && y1 > y2, "y grows upwards: {line:?}");
        assert!(((x1 - x0) - (x2 - x1)).abs() <= 1.0, "{line:?}");
        assert!(((y0 - y1) - (y1 - y2)).abs() <= 1.0, "{line:?}");
    }

    #[test]
    fn a_log_axis_spaces_powers_of_ten_evenly() {
        let svg = figure(true, &[1.0, 10.0, 100.0, 1000.0]).svg().unwrap();
        let line = lines_in_colour(&svg, 0)
            .into_iter()
            .max_by_key(|l| l.len())
            .unwrap();
        let steps: Vec<f64> = line.windows(2).map(|w| w[0].1 - w[1].1).collect();
        assert!(
            steps.iter().all(|s| (s - steps[0]).abs() <= 1.0),
            "{steps:?}"
        );
        assert!(steps[0] > 10.0);
    }

    #[test]
    fn bad_data_is_refused_with_the_point() {
        let e = figure(true, &[1.0, 0.0]).svg().unwrap_err().to_string();
        assert!(e.contains("0 at x = 1"), "{e}");
        let e = figure(false, &[f64::NAN]).svg().unwrap_err().to_string();
        assert!(e.contains("not a finite number"), "{e}");
        let empty = figure(false, &[]).svg().unwrap();
        assert!(
            empty.contains("known data"),
            "an empty figure still has its axes and title"
        );
    }
}
