//! The report's results as HTML: the standings (with what each engine lost
//! by), each pairing's score and Elo in words a reader takes in (a side
//! that won every game is said so, not written `-inf`), the crosstable
//! with the engines' names and a heat map of each cell's score, and, with
//! more than two engines, the rating list as bars with their intervals.
//! Every name is escaped: it comes from a log.

use std::fmt::Write;

use connect4_match::results::{Results, Summary};

/// The results of one log, as HTML.
pub fn tables(results: &Results) -> String {
    let summary = results.summary();
    let mut out = standings(&summary);
    out.push_str(&pairings(&summary));
    if summary.engines.len() > 2 {
        out.push_str(&crosstable(results));
        out.push_str(&rating_bars(&summary));
    }
    out
}

/// Engine, games, points, score, time a move, lost by.
fn standings(summary: &Summary) -> String {
    let mut engines: Vec<_> = summary.engines.iter().collect();
    engines.sort_by(|a, b| b.points.total_cmp(&a.points));
    let mut out = String::from(
        "<h3>Standings</h3><table class=\"results\"><tr><th>engine</th><th>games</th>\
         <th>points</th><th>score</th><th>ms/move</th><th>lost by</th></tr>",
    );
    for e in engines {
        let score = match e.games {
            0 => String::new(),
            n => format!("{:.1}%", 100.0 * e.points / f64::from(n)),
        };
        let lost_by: Vec<String> = e
            .forfeits
            .iter()
            .map(|(why, n)| format!("{why} {n}"))
            .collect();
        let _ = write!(
            out,
            "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{score}</td><td>{:.1}</td><td class=\"name\">{}</td></tr>",
            escape(&e.name),
            e.games,
            e.points,
            e.ms_per_move,
            escape(&lost_by.join(", "))
        );
    }
    out.push_str("</table>");
    out
}

/// Each pairing: wins, draws, losses, score, Elo with its interval.
fn pairings(summary: &Summary) -> String {
    let mut out = String::from(
        "<h3>Pairings</h3><table class=\"results\"><tr><th>pairing</th><th>games</th>\
         <th>wins</th><th>draws</th><th>losses</th><th>score</th><th>Elo</th></tr>",
    );
    for p in &summary.pairings {
        let _ = write!(
            out,
            "<tr><td class=\"name\">{} vs {}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}%</td><td>{}</td></tr>",
            escape(&p.a),
            escape(&p.b),
            p.games,
            p.wins,
            p.draws,
            p.losses,
            100.0 * p.score,
            escape(&elo_words(p.elo, (&p.a, &p.b), (p.wins, p.losses, p.games)))
        );
    }
    out.push_str("</table>");
    out
}

/// An Elo difference of `a` over `b` in words: a number, or what an
/// infinite one means; from `a`'s wins, losses and games.
fn elo_words(
    elo: Option<f64>,
    (a, b): (&str, &str),
    (wins, losses, games): (u32, u32, u32),
) -> String {
    match elo {
        Some(e) if e.is_finite() => format!("{e:+.1}"),
        _ if games > 0 && wins == games => format!("none finite: {a} won every game"),
        _ if games > 0 && losses == games => format!("none finite: {b} won every game"),
        _ => "not enough games".into(),
    }
}

/// The crosstable with names, each cell coloured by its score (red lost,
/// green won).
fn crosstable(results: &Results) -> String {
    let order = results.crosstable_order();
    let cells = results.crosstable_cells(&order);
    let names: Vec<String> = order
        .iter()
        .map(|&i| escape(&results.engines[i].name))
        .collect();
    let mut out =
        String::from("<h3>Crosstable</h3><table class=\"results crosstable\"><tr><th></th>");
    for n in &names {
        let _ = write!(out, "<th>{n}</th>");
    }
    out.push_str("</tr>");
    for (i, row) in cells.iter().enumerate() {
        let _ = write!(out, "<tr><th class=\"name\">{}</th>", names[i]);
        for (j, cell) in row.iter().enumerate() {
            match cell {
                _ if i == j => out.push_str("<td class=\"self\"></td>"),
                Some((points, games)) if *games > 0 => {
                    let share = points / f64::from(*games);
                    let hue = (120.0 * share).round();
                    let _ = write!(
                        out,
                        "<td style=\"background: hsl({hue}, 70%, 85%)\" title=\"{:.0}%\">{points}/{games}</td>",
                        100.0 * share
                    );
                }
                _ => out.push_str("<td></td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
    if order.len() < results.engines.len() {
        let _ = write!(
            out,
            "<p>The {} best engines by score; {} more engines are in the standings.</p>",
            order.len(),
            results.engines.len() - order.len()
        );
    }
    out
}

/// The rating list as bars: each engine's Elo (relative to the field) and
/// its 95% interval, on one scale.
fn rating_bars(summary: &Summary) -> String {
    let finite: Vec<f64> = summary
        .ratings
        .iter()
        .flat_map(|r| [r.low, r.high, r.elo])
        .filter(|x| x.is_finite())
        .collect();
    let (lo, hi) = finite
        .iter()
        .fold((0.0f64, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    let span = (hi - lo).max(1.0);
    let at = |x: f64| 100.0 * (x.clamp(lo, hi) - lo) / span;
    let mut out = String::from(
        "<h3>Ratings</h3><table class=\"results ratings\"><tr><th>#</th><th>engine</th>\
         <th>Elo</th><th>95%</th><th class=\"bar\">on one scale</th></tr>",
    );
    for (i, r) in summary.ratings.iter().enumerate() {
        let (a, b) = (at(r.low), at(r.high));
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"name\">{}</td><td>{:+.1}</td><td>[{:+.1}, {:+.1}]</td><td class=\"bar\">\
             <div class=\"track\"><div class=\"interval\" style=\"left: {a:.1}%; width: {:.1}%\"></div>\
             <div class=\"mark\" style=\"left: {:.1}%\"></div></div></td></tr>",
            i + 1,
            escape(&r.name),
            r.elo,
            r.low,
            r.high,
            (b - a).max(0.5),
            at(r.elo)
        );
    }
    out.push_str("</table>");
    out
}

/// `text` as HTML text: `&`, `<`, `>` and quotes escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The tables' style.
pub const STYLE: &str = "table.results { border-collapse: collapse; background: #fff; margin: 0.4rem 0 1rem; }
table.results th, table.results td { border: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: right; }
table.results .name, table.results th:first-child { text-align: left; }
table.crosstable td.self { background: #eee; }
table.ratings td.bar { width: 18rem; }
.track { position: relative; height: 0.8rem; background: #f3f3f3; }
.interval { position: absolute; top: 0.2rem; height: 0.4rem; background: #8ab4e8; }
.mark { position: absolute; top: 0; width: 2px; height: 0.8rem; background: #1a4f8f; }
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infinite_elo_is_said_in_words_and_names_are_escaped() {
        let names = ("greedy", "random");
        assert_eq!(
            elo_words(None, names, (4, 0, 4)),
            "none finite: greedy won every game"
        );
        assert_eq!(
            elo_words(Some(f64::NEG_INFINITY), names, (0, 4, 4)),
            "none finite: random won every game"
        );
        assert_eq!(elo_words(Some(12.34), names, (3, 1, 4)), "+12.3");
        assert_eq!(escape("<b>\"x\"</b>"), "&lt;b&gt;&quot;x&quot;&lt;/b&gt;");
    }
}
