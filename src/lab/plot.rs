//! Line charts as SVG files: learning curves, tuning runs, a match's Elo
//! and SPRT, and the course experiments' figures.
//!
//! A [`Figure`] is one or more [`Panel`]s stacked vertically, each with its
//! axes, [`Series`], reference lines in styles of their own and a legend
//! under it (never over the data), and notes at the bottom that define the
//! labels; a point may carry an interval, drawn as a vertical bar, and an
//! axis of players or budgets names its ticks. Drawing goes through plotters' SVG backend only, so no font files
//! or system libraries are needed: text is left to the program that shows
//! the picture.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

/// Width of a figure in pixels.
const WIDTH: u32 = 760;
/// Height of one panel in pixels, its legend not included.
const PANEL_HEIGHT: u32 = 320;
/// Height of the figure's title.
const TITLE_HEIGHT: u32 = 40;
/// Space around a panel's chart.
const MARGIN: u32 = 12;
/// Width of the y axis's labels and title.
const Y_LABEL_AREA: u32 = 70;
/// Height of a row of a legend.
const LEGEND_ROW: u32 = 20;
/// Width of a legend entry's sample and the space after it.
const SAMPLE_WIDTH: i32 = 32;
/// Space between two legend entries.
const ENTRY_GAP: i32 = 18;
/// The width of a character of 13-pixel sans-serif text, in pixels (an
/// estimate, a little wide: the program that shows the picture picks the
/// font).
const CHAR_WIDTH: f64 = 6.4;
/// Height of a line of notes.
const NOTE_LINE: u32 = 18;
/// Reference lines' colours, dashes and gaps (pixels), in order.
const GUIDE_STYLES: [(RGBColor, u32, u32); 3] = [
    (RGBColor(60, 60, 60), 10, 5),
    (RGBColor(170, 51, 34), 4, 4),
    (RGBColor(34, 119, 68), 16, 4),
];
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

/// What the drawing library says when it fails.
pub type DrawError = DrawingAreaErrorKind<std::io::Error>;

/// Drawing one part of a figure.
type Drawn = Result<(), DrawError>;

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
        why: DrawError,
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
    /// Named ticks on the x axis at whole-number positions (players,
    /// budgets), instead of numbered ones: the axis shows these only.
    pub x_ticks: Vec<(i64, String)>,
    /// Horizontal reference lines (such as an SPRT's bounds), with names;
    /// each is drawn in a style of its own.
    pub guides: Vec<(String, f64)>,
    /// The lines.
    pub series: Vec<Series>,
}

/// Panels stacked vertically under a title, each with its legend below
/// it (never over the data), and notes at the bottom that say what the
/// labels mean.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figure {
    /// The title above the panels.
    pub title: String,
    /// The charts.
    pub panels: Vec<Panel>,
    /// Lines of text under the panels (definitions of the labels used).
    pub notes: Vec<String>,
}

impl Figure {
    /// The figure as an SVG document.
    pub fn svg(&self) -> Result<String, PlotError> {
        self.check()?;
        let legends: Vec<Legend> = self.panels.iter().map(Legend::of).collect();
        let heights: Vec<u32> = legends.iter().map(|l| PANEL_HEIGHT + l.height()).collect();
        let notes_height = notes_height(&self.notes);
        let height = TITLE_HEIGHT + heights.iter().sum::<u32>() + notes_height;
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, (WIDTH, height)).into_drawing_area();
            let drawn = root
                .fill(&WHITE)
                .and_then(|()| root.titled(&self.title, ("sans-serif", 22)))
                .and_then(|mut rest| {
                    for ((panel, legend), h) in self.panels.iter().zip(&legends).zip(&heights) {
                        let (part, below) = rest.split_vertically(*h);
                        let (chart, strip) = part.split_vertically(PANEL_HEIGHT);
                        draw_panel(panel, &chart)?;
                        legend.draw(&strip)?;
                        rest = below;
                    }
                    draw_notes(&self.notes, &rest)?;
                    root.present()
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
        crate::atomic_file::write(path, text).map_err(|error| PlotError::Io {
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
    /// The x range of the data (and of the named ticks, half a step beyond
    /// them), widened when it is a single value.
    fn x_range(&self) -> (f64, f64) {
        let xs = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.x));
        if self.x_ticks.is_empty() {
            return widen(min_max(xs).unwrap_or((0.0, 1.0)), false);
        }
        let ticks = self.x_ticks.iter().map(|(x, _)| *x as f64);
        let (lo, hi) = min_max(xs.chain(ticks)).expect("ticks are given");
        (lo - 0.5, hi + 0.5)
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
            .chain(self.guides.iter().map(|(_, y)| *y));
        widen(min_max(ys).unwrap_or((0.0, 1.0)), self.log_y)
    }

    /// The label of x axis position `v`: its named tick, or its number.
    fn x_tick(&self, v: f64) -> String {
        if self.x_ticks.is_empty() {
            return tick(v);
        }
        self.x_ticks
            .iter()
            .find(|(x, _)| (*x as f64 - v).abs() < 1e-9)
            .map(|(_, name)| name.clone())
            .unwrap_or_default()
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
fn draw_panel(panel: &Panel, area: &DrawingArea<SVGBackend<'_>, Shift>) -> Drawn {
    let (x0, x1) = panel.x_range();
    let (y0, y1) = panel.y_range();
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(&panel.title, ("sans-serif", 16))
        .margin(MARGIN)
        .x_label_area_size(40)
        .y_label_area_size(Y_LABEL_AREA);
    if panel.log_y {
        let mut chart = builder.build_cartesian_2d(x0..x1, (y0..y1).log_scale())?;
        draw_chart(&mut chart, panel, (x0, x1), format_number)
    } else {
        let mut chart = builder.build_cartesian_2d(x0..x1, y0..y1)?;
        draw_chart(&mut chart, panel, (x0, x1), tick)
    }
}

/// Draws the axes (y labels by `y_tick`), the reference lines, the series
/// and their intervals.
fn draw_chart<'a, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, Y>>,
    panel: &Panel,
    (x0, x1): (f64, f64),
    y_tick: fn(f64) -> String,
) -> Drawn
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let x_label = |v: &f64| panel.x_tick(*v);
    let y_label = |v: &f64| y_tick(*v);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(&panel.x_label)
        .y_desc(&panel.y_label)
        .light_line_style(TRANSPARENT)
        .bold_line_style(BLACK.mix(0.12))
        .x_label_formatter(&x_label)
        .y_label_formatter(&y_label);
    if !panel.x_ticks.is_empty() {
        // One label per whole number of the range: the named ones show.
        mesh.x_labels((x1 - x0).round() as usize + 1);
    }
    mesh.draw()?;
    for (i, (_, y)) in panel.guides.iter().enumerate() {
        let (style, dash, gap) = guide_style(i);
        chart.draw_series(DashedLineSeries::new(
            vec![(x0, *y), (x1, *y)],
            dash,
            gap,
            style,
        ))?;
    }
    for (i, s) in panel.series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        chart.draw_series(
            s.points
                .iter()
                .map(|p| Circle::new((p.x, p.y), 3, colour.filled())),
        )?;
        if s.joined {
            let style = ShapeStyle::from(&colour).stroke_width(2);
            chart.draw_series(LineSeries::new(s.points.iter().map(|p| (p.x, p.y)), style))?;
        }
        chart.draw_series(s.points.iter().filter_map(|p| {
            p.interval
                .map(|(lo, hi)| PathElement::new(vec![(p.x, lo), (p.x, hi)], colour))
        }))?;
    }
    Ok(())
}

/// The stroke, dash and gap of reference line `i`: each its own colour
/// and dash, so two bounds are never confused.
fn guide_style(i: usize) -> (ShapeStyle, u32, u32) {
    let (colour, dash, gap) = GUIDE_STYLES[i % GUIDE_STYLES.len()];
    (ShapeStyle::from(&colour).stroke_width(2), dash, gap)
}

/// What a legend entry shows before its name.
#[derive(Clone, Copy, Debug)]
enum Sample {
    /// A series joined by a line.
    Line(RGBColor),
    /// A series of marks alone.
    Marks(RGBColor),
    /// Reference line `i`.
    Guide(usize),
}

/// A panel's legend, laid out in rows under the panel (never over the
/// data): each entry's sample, name and place.
struct Legend {
    /// Sample, name, x in pixels and row.
    entries: Vec<(Sample, String, i32, u32)>,
    /// Rows used.
    rows: u32,
}

impl Legend {
    /// The legend of `panel`: its reference lines, then its series.
    fn of(panel: &Panel) -> Legend {
        let guides = panel
            .guides
            .iter()
            .enumerate()
            .map(|(i, (name, _))| (Sample::Guide(i), name.clone()));
        let series = panel.series.iter().enumerate().map(|(i, s)| {
            let colour = PALETTE[i % PALETTE.len()];
            let sample = if s.joined {
                Sample::Line(colour)
            } else {
                Sample::Marks(colour)
            };
            (sample, s.name.clone())
        });
        let left = (MARGIN + Y_LABEL_AREA) as i32;
        let (mut x, mut row) = (left, 0);
        let mut entries = Vec::new();
        for (sample, name) in guides.chain(series) {
            let width = SAMPLE_WIDTH + text_width(&name) + ENTRY_GAP;
            if x > left && x + width > WIDTH as i32 - MARGIN as i32 {
                x = left;
                row += 1;
            }
            entries.push((sample, name, x, row));
            x += width;
        }
        let rows = if entries.is_empty() { 0 } else { row + 1 };
        Legend { entries, rows }
    }

    /// Pixels the legend takes under its panel.
    fn height(&self) -> u32 {
        if self.rows == 0 {
            0
        } else {
            self.rows * LEGEND_ROW + 8
        }
    }

    /// Draws the legend into `strip`.
    fn draw(&self, strip: &DrawingArea<SVGBackend<'_>, Shift>) -> Drawn {
        for (sample, name, x, row) in &self.entries {
            let y = (row * LEGEND_ROW + LEGEND_ROW / 2) as i32;
            let ends = vec![(*x, y), (*x + SAMPLE_WIDTH - 8, y)];
            let drawn = match *sample {
                Sample::Line(colour) => strip.draw(&PathElement::new(ends, colour.stroke_width(2))),
                Sample::Marks(colour) => strip.draw(&Circle::new(
                    (*x + (SAMPLE_WIDTH - 8) / 2, y),
                    3,
                    colour.filled(),
                )),
                Sample::Guide(i) => {
                    let (style, dash, gap) = guide_style(i);
                    strip.draw(&DashedPathElement::new(ends, dash, gap, style))
                }
            };
            drawn?;
            strip.draw(&Text::new(
                name.clone(),
                (*x + SAMPLE_WIDTH, y - 8),
                ("sans-serif", 13),
            ))?;
        }
        Ok(())
    }
}

/// The width of `text` in pixels at the legend's size.
fn text_width(text: &str) -> i32 {
    (text.chars().count() as f64 * CHAR_WIDTH).ceil() as i32
}

/// `notes` broken into lines that fit the figure's width.
fn note_lines(notes: &[String]) -> Vec<String> {
    let most = ((WIDTH - 2 * MARGIN) as f64 / CHAR_WIDTH) as usize;
    let mut lines = Vec::new();
    for note in notes {
        let mut line = String::new();
        for word in note.split_whitespace() {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > most {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        lines.push(line);
    }
    lines
}

/// Pixels the notes take.
fn notes_height(notes: &[String]) -> u32 {
    match note_lines(notes).len() as u32 {
        0 => 0,
        n => n * NOTE_LINE + 12,
    }
}

/// Draws `notes` into `area`, one line under another.
fn draw_notes(notes: &[String], area: &DrawingArea<SVGBackend<'_>, Shift>) -> Drawn {
    for (i, line) in note_lines(notes).into_iter().enumerate() {
        let y = 4 + (i as u32 * NOTE_LINE) as i32;
        area.draw(&Text::new(
            line,
            (MARGIN as i32, y),
            ("sans-serif", 13).into_font().color(&BLACK.mix(0.75)),
        ))?;
    }
    Ok(())
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
            notes: Vec::new(),
        }
    }

    /// The text elements of `svg`: their y and their words.
    fn texts(svg: &str) -> Vec<(f64, String)> {
        let lines: Vec<&str> = svg.lines().collect();
        lines
            .windows(2)
            .filter(|w| w[0].starts_with("<text"))
            .map(|w| {
                let y = w[0]
                    .split(" y=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap();
                (y.parse().unwrap(), w[1].trim().to_string())
            })
            .collect()
    }

    /// The largest y of `svg`'s data: its series' polylines and marks.
    fn lowest_data(svg: &str, series: usize) -> f64 {
        (0..series)
            .flat_map(|i| lines_in_colour(svg, i))
            .filter(|l| l.len() > 2)
            .flatten()
            .map(|(_, y)| y)
            .fold(f64::MIN, f64::max)
    }

    #[test]
    fn named_ticks_replace_numbers_and_the_legend_and_notes_sit_under_the_axis() {
        let mut f = figure(false, &[90.0, 20.0, 95.0]);
        let panel = &mut f.panels[0];
        panel.x_ticks = vec![
            (0, "alphabeta-4".into()),
            (1, "expectimax-4".into()),
            (2, "greedy".into()),
        ];
        panel
            .series
            .push(Series::from_pairs("second", [(0.0, 10.0), (2.0, 50.0)]));
        f.notes = vec!["E1: the first-named evaluator. ".repeat(8)];
        let svg = f.svg().unwrap();
        let texts = texts(&svg);
        let words: Vec<&str> = texts.iter().map(|(_, t)| t.as_str()).collect();
        for name in ["alphabeta-4", "expectimax-4", "greedy"] {
            assert_eq!(words.iter().filter(|w| **w == name).count(), 1, "{words:?}");
        }
        assert!(
            !words
                .iter()
                .any(|w| w.contains('.') && w.parse::<f64>().is_ok()),
            "no fractional tick on a named axis: {words:?}"
        );
        let axis_title = texts.iter().find(|(_, t)| t == "x").unwrap().0;
        let legend = texts.iter().find(|(_, t)| t == "second").unwrap().0;
        assert!(
            legend > axis_title && axis_title > lowest_data(&svg, 2),
            "{texts:?}"
        );
        let notes: Vec<&(f64, String)> = texts.iter().filter(|(y, _)| *y > legend).collect();
        assert!(notes.len() >= 2, "a long note is wrapped: {notes:?}");
        assert!(notes[0].1.starts_with("E1: the first-named"), "{notes:?}");
        let height: f64 = svg
            .split("height=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            notes.iter().all(|(y, _)| *y < height),
            "the notes fit in the picture"
        );
    }

    #[test]
    fn reference_lines_are_told_apart_by_colour() {
        let mut f = figure(false, &[0.0, 1.0]);
        f.panels[0].guides = vec![("upper".into(), 2.0), ("lower".into(), -2.0)];
        let svg = f.svg().unwrap();
        let stroke = |(RGBColor(r, g, b), _, _): (RGBColor, u32, u32)| {
            format!("stroke=\"#{r:02X}{g:02X}{b:02X}\"")
        };
        let (upper, lower) = (stroke(GUIDE_STYLES[0]), stroke(GUIDE_STYLES[1]));
        assert_ne!(upper, lower);
        // Dashes along the chart, and a sample in the legend, for each.
        for s in [upper, lower] {
            assert!(svg.lines().filter(|l| l.contains(&s)).count() > 10, "{s}");
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
