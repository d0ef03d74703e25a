//! The league's tables: the ladder (every active player ranked by the
//! conservative estimate, with the rating's interval, games, points,
//! forfeits by reason and the share of moves that kept the value; the
//! anchors marked) and the final round's table (ranked by points).

use std::collections::BTreeMap;
use std::fmt::Write;

use connect4::score::Outcome;

use crate::games::label;
use crate::rating::{self, Rating};
use crate::store::{Store, StoreError, Tally};

/// The table of the games of `kind`: `ladder` ranks by rating, `final`
/// by points.
pub fn table(store: &Store, kind: &str) -> Result<String, StoreError> {
    let players = store.players()?;
    let tallies = store.tallies(kind)?;
    let tally = |id| {
        tallies
            .iter()
            .find(|t| t.player == id)
            .cloned()
            .unwrap_or_default()
    };
    let mut rows: Vec<_> = players
        .iter()
        .filter(|p| p.state == "active" && (kind == "ladder" || !p.anchor))
        .map(|p| (p, tally(p.id)))
        .collect();
    if kind == "final" {
        rows.sort_by(|a, b| b.1.points.total_cmp(&a.1.points));
    } else {
        rows.sort_by(|a, b| b.0.rating.ordinal().total_cmp(&a.0.rating.ordinal()));
    }
    let mut out = String::from(
        "rating: the conservative estimate, mu - 3 sigma; the interval: 95% of the strength\n",
    );
    let _ = writeln!(
        out,
        "{:>3}  {:<28} {:>7} {:>16} {:>6} {:>7}  {:>8}  lost by",
        "#", "player", "rating", "95% interval", "games", "points", "accuracy"
    );
    for (i, (p, t)) in rows.iter().enumerate() {
        let (low, high) = p.rating.interval();
        let name = if p.anchor {
            format!("{} (anchor)", label(p))
        } else {
            label(p)
        };
        let _ = writeln!(
            out,
            "{:>3}  {:<28} {:>7.1} {:>16} {:>6} {:>7}  {:>8}  {}",
            i + 1,
            name,
            p.rating.ordinal(),
            format!("[{low:.1}, {high:.1}]"),
            t.games,
            t.points,
            accuracy(t),
            lost_by(t)
        );
    }
    let rejected: Vec<_> = players
        .iter()
        .filter(|p| p.state == "rejected")
        .filter(|p| {
            !players
                .iter()
                .any(|q| q.student == p.student && q.version > p.version)
        })
        .collect();
    for p in rejected {
        let _ = writeln!(
            out,
            "refused: {} v{}: {}",
            p.student,
            p.version,
            p.note.as_deref().unwrap_or("")
        );
    }
    Ok(out)
}

/// Whether the stored ratings are the ladder's games replayed in the
/// order they were recorded (each student from a new rating, the anchors
/// fixed): what a game counted twice, or lost, would break. A line that
/// says so.
pub fn audit(store: &Store) -> Result<String, StoreError> {
    let players = store.players()?;
    let mut ratings: Vec<(i64, bool, Rating)> = players
        .iter()
        .map(|p| {
            (
                p.id,
                p.anchor,
                if p.anchor {
                    p.rating
                } else {
                    Rating::default()
                },
            )
        })
        .collect();
    let history = store.ladder_history()?;
    for (a, b, result) in &history {
        let get = |id: i64| ratings.iter().find(|r| r.0 == id).map(|r| r.2);
        let (Some(ra), Some(rb)) = (get(*a), get(*b)) else {
            continue;
        };
        let outcome = match result.as_str() {
            "1-0" => Outcome::Win,
            "0-1" => Outcome::Loss,
            _ => Outcome::Draw,
        };
        let (na, nb) = rating::rate(ra, rb, outcome);
        for (id, r) in [(*a, na), (*b, nb)] {
            if let Some(slot) = ratings.iter_mut().find(|s| s.0 == id && !s.1) {
                slot.2 = r;
            }
        }
    }
    let worst = players
        .iter()
        .filter_map(|p| {
            let replayed = ratings.iter().find(|r| r.0 == p.id)?.2;
            Some(
                (p.rating.mu - replayed.mu)
                    .abs()
                    .max((p.rating.sigma - replayed.sigma).abs()),
            )
        })
        .fold(0.0, f64::max);
    Ok(if worst < 1e-9 {
        format!(
            "the ratings are the {} ladder games replayed in order: each counted once\n",
            history.len()
        )
    } else {
        format!(
            "warning: the ratings differ from the {} ladder games replayed in order (by up to {worst:.3})\n",
            history.len()
        )
    })
}

/// The share of the moves the solver judged that kept the value.
fn accuracy(t: &Tally) -> String {
    match t.judged {
        0 => "-".into(),
        n => format!("{:.1}%", 100.0 * t.kept as f64 / n as f64),
    }
}

/// Forfeits by reason: "crash 4, illegal move 8".
fn lost_by(t: &Tally) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &t.forfeits {
        *counts.entry(r).or_default() += 1;
    }
    counts
        .iter()
        .map(|(r, n)| format!("{r} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}
