//! The league's tables: the ladder (every active player ranked by the
//! conservative estimate, with the rating's interval, games, points,
//! forfeits by reason and the share of moves that kept the value; the
//! anchors marked) and the final round's table (ranked by points).

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::games::label;
use crate::kinds::{GameKind, State};
use crate::rating::{self, Rating, Replayed};
use crate::store::{Player, Store, StoreError, Tally};

/// The players of the table of the games of `kind`, in its order, each
/// with its record: `ladder` ranks the active players (anchors too) by
/// rating, `final` the active students by points.
pub fn rows(store: &Store, kind: GameKind) -> Result<Vec<(Player, Tally)>, StoreError> {
    rows_among(store, &store.players()?, kind)
}

/// [`rows`] of `players`, the league's players as the caller read them.
pub fn rows_among(
    store: &Store,
    players: &[Player],
    kind: GameKind,
) -> Result<Vec<(Player, Tally)>, StoreError> {
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
        .filter(|p| p.state == State::Active && (kind == GameKind::Ladder || !p.anchor))
        .map(|p| (p.clone(), tally(p.id)))
        .collect();
    if kind == GameKind::Final {
        rows.sort_by(|a, b| b.1.points.total_cmp(&a.1.points));
    } else {
        rows.sort_by(|a, b| b.0.rating.ordinal().total_cmp(&a.0.rating.ordinal()));
    }
    Ok(rows)
}

/// Each student's latest submission, if it was refused.
pub fn refused(players: &[Player]) -> Vec<&Player> {
    players
        .iter()
        .filter(|p| p.state == State::Rejected)
        .filter(|p| {
            !players
                .iter()
                .any(|q| q.student == p.student && q.version > p.version)
        })
        .collect()
}

/// The table of the games of `kind`: `ladder` ranks by rating, `final`
/// by points.
pub fn table(store: &Store, kind: GameKind) -> Result<String, StoreError> {
    let mut out = String::new();
    if store.note(crate::isolation::NOTE)?.is_some() {
        let _ = writeln!(out, "WARNING: {}", crate::isolation::WARNING);
    }
    out.push_str(
        "rating: the conservative estimate, mu - 3 sigma; the interval: 95% of the strength\n",
    );
    let _ = writeln!(
        out,
        "{:>3}  {:<28} {:>7} {:>16} {:>6} {:>7}  {:>8}  lost by",
        "#", "player", "rating", "95% interval", "games", "points", "accuracy"
    );
    let players = store.players()?;
    for (i, (p, t)) in rows_among(store, &players, kind)?.iter().enumerate() {
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
    for p in refused(&players) {
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

/// The table of the games of `kind` as CSV, for a spreadsheet or a
/// gradebook: a header, then a row per player in the table's order (its
/// rank, student, version, whether an anchor, the rating and its interval,
/// games, points, judged and kept moves, forfeits by reason).
pub fn csv(store: &Store, kind: GameKind) -> Result<String, StoreError> {
    let header = [
        "rank", "student", "version", "anchor", "rating", "low", "high", "games", "points",
        "judged", "kept", "lost by",
    ];
    let mut lines = vec![connect4_grade::class::csv_line(&header.map(String::from))];
    for (i, (p, t)) in rows(store, kind)?.iter().enumerate() {
        let (low, high) = p.rating.interval();
        let row = [
            (i + 1).to_string(),
            p.student.clone(),
            p.version.to_string(),
            p.anchor.to_string(),
            format!("{:.2}", p.rating.ordinal()),
            format!("{low:.2}"),
            format!("{high:.2}"),
            t.games.to_string(),
            t.points.to_string(),
            t.judged.to_string(),
            t.kept.to_string(),
            lost_by(t),
        ];
        lines.push(connect4_grade::class::csv_line(&row));
    }
    Ok(lines.join("\n") + "\n")
}

/// Whether the stored ratings are the ladder's games replayed in the
/// order they were recorded (each student from a new rating, the anchors
/// fixed): what a game counted twice, or lost, would break. A line that
/// says so.
pub fn audit(store: &Store) -> Result<String, StoreError> {
    let players = store.players()?;
    let mut ratings: BTreeMap<i64, Replayed> = players
        .iter()
        .map(|p| {
            let rating = if p.anchor {
                p.rating
            } else {
                Rating::default()
            };
            (
                p.id,
                Replayed {
                    rating,
                    fixed: p.anchor,
                },
            )
        })
        .collect();
    let history = store.ladder_history()?;
    rating::replay(&mut ratings, history.iter().copied());
    let worst = players
        .iter()
        .filter_map(|p| {
            let replayed = ratings.get(&p.id)?.rating;
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

/// The games a player lost by forfeit, counted by reason.
pub fn forfeits(t: &Tally) -> BTreeMap<&str, usize> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &t.forfeits {
        *counts.entry(r).or_default() += 1;
    }
    counts
}

/// Forfeits by reason: "crash 4, illegal move 8".
fn lost_by(t: &Tally) -> String {
    forfeits(t)
        .iter()
        .map(|(r, n)| format!("{r} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}
