//! The league as its page shows it, as JSON: the ladder (every active
//! player with its rating and interval, games, points, forfeits by
//! reason and accuracy, the anchors marked; the refused submissions; the
//! final round's table once it is played) and each student's page (their
//! submissions, the latest one's record and the moves where it gave the
//! value away, their games). Read from the league's database at each
//! request, through a connection that cannot write.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::games::label;
use crate::kinds::GameKind;
use crate::ladder;
use crate::store::{PlayedGame, Player, Store, StoreError, Tally};

/// A student's page lists their newest games, this many at most.
const MOST_GAMES: usize = 200;
/// And the moves where their latest submission gave the value away.
const MOST_SLIPS: usize = 50;

/// The league in a folder, as the page reads it.
pub struct View {
    dir: PathBuf,
}

impl View {
    /// The league in `dir` (its database need not exist yet: a request
    /// says so until the league has started).
    pub fn new(dir: &Path) -> View {
        View {
            dir: dir.to_path_buf(),
        }
    }

    /// The league's game log, which the page replays.
    pub fn log(&self) -> PathBuf {
        crate::game_log(&self.dir)
    }

    fn store(&self) -> Result<Store, StoreError> {
        Store::open_read_only(&crate::database(&self.dir))
    }

    /// The ladder, the refused submissions and the final round's table.
    pub fn ladder(&self) -> Result<Value, StoreError> {
        let store = self.store()?;
        let players = store.players()?;
        let ladder: Vec<Value> = ladder::rows_among(&store, &players, GameKind::Ladder)?
            .iter()
            .enumerate()
            .map(|(i, (p, t))| row(i, p, t))
            .collect();
        let last_round = ladder::rows_among(&store, &players, GameKind::Final)?;
        let final_round: Vec<Value> = last_round
            .iter()
            .filter(|(_, t)| t.games > 0)
            .enumerate()
            .map(|(i, (p, t))| row(i, p, t))
            .collect();
        let refused: Vec<Value> = ladder::refused(&players)
            .iter()
            .map(|p| json!({ "student": p.student, "version": p.version, "note": p.note }))
            .collect();
        let rounds: u64 = store
            .note("rounds")?
            .and_then(|r| r.parse().ok())
            .unwrap_or(0);
        Ok(json!({
            "rounds": rounds,
            "games": store.ladder_history()?.len(),
            "unplayed": store.unplayed()?.len(),
            "calibrated": store.note("calibrated")?.is_some(),
            "warning": store.note(crate::isolation::NOTE)?.map(|_| crate::isolation::WARNING),
            "audit": ladder::audit(&store)?.trim_end(),
            "players": ladder,
            "refused": refused,
            "final": final_round,
        }))
    }

    /// The page of the student `name` (or of the anchor so named when
    /// `anchor`): `None` if the league has no such player.
    pub fn student(&self, name: &str, anchor: bool) -> Result<Option<Value>, StoreError> {
        let store = self.store()?;
        let players = store.players()?;
        let mut theirs: Vec<&Player> = players
            .iter()
            .filter(|p| p.student == name && p.anchor == anchor)
            .collect();
        theirs.sort_by_key(|p| std::cmp::Reverse(p.version));
        let Some(latest) = theirs.first().copied() else {
            return Ok(None);
        };
        let label_of = |id: i64| {
            players
                .iter()
                .find(|p| p.id == id)
                .map_or_else(|| format!("player {id}"), label)
        };
        let ids: Vec<i64> = theirs.iter().map(|p| p.id).collect();
        let played = store.games_of(name, anchor, MOST_GAMES)?;
        let games: Vec<Value> = played.iter().map(|g| game(g, &ids, &label_of)).collect();
        let ladder = ladder::rows_among(&store, &players, GameKind::Ladder)?;
        let submissions: Vec<Value> = theirs.iter().map(|p| submission(p)).collect();
        Ok(Some(json!({
            "student": name,
            "anchor": anchor,
            "submissions": submissions,
            "latest": latest_record(&store, latest, &ladder, &played, &label_of)?,
            "games": games,
            "most_games": MOST_GAMES,
        })))
    }
}

/// A row of a table: the player, its rating and its record.
fn row(index: usize, p: &Player, t: &Tally) -> Value {
    let (low, high) = p.rating.interval();
    json!({
        "rank": index + 1, "name": label(p), "student": p.student, "version": p.version,
        "anchor": p.anchor, "rating": p.rating.ordinal(), "mu": p.rating.mu,
        "sigma": p.rating.sigma, "low": low, "high": high, "games": t.games,
        "points": t.points, "judged": t.judged, "kept": t.kept,
        "forfeits": ladder::forfeits(t),
    })
}

/// One of a student's submissions.
fn submission(p: &Player) -> Value {
    let (low, high) = p.rating.interval();
    json!({
        "name": label(p), "version": p.version, "state": p.state, "note": p.note,
        "rating": p.rating.ordinal(), "low": low, "high": high,
    })
}

/// The latest submission's record on the ladder (`rows`) and the moves
/// where it gave the value away, with the opponent of each found among
/// the student's `games`: their own move's number, and columns as they
/// number them (from 0 for Python code, from 1 for an engine).
fn latest_record(
    store: &Store,
    latest: &Player,
    rows: &[(Player, Tally)],
    games: &[PlayedGame],
    label_of: &dyn Fn(i64) -> String,
) -> Result<Value, StoreError> {
    let place = rows.iter().position(|(p, _)| p.id == latest.id);
    let tally = place.map(|i| rows[i].1.clone()).unwrap_or_default();
    // A Python student's columns count from 0, as their code returns them;
    // an engine's from 1, as the protocol does.
    let from = i64::from(
        !latest
            .spec
            .parse::<connect4_match::spec::EngineSpec>()
            .is_ok_and(|s| s.counts_columns_from_zero()),
    );
    let slips: Vec<Value> = store
        .slips_of(latest.id, MOST_SLIPS)?
        .iter()
        .map(|(game, s)| {
            let opponent = games.iter().find(|g| g.id == *game).map(|g| {
                label_of(if g.first == latest.id {
                    g.second
                } else {
                    g.first
                })
            });
            // Their own move's number in the game, from 1, as grading
            // numbers "your move N".
            json!({
                "game": game, "move": s.ply / 2 + 1, "played": s.played + from,
                "keeping": s.keeping.map(|k| k + from), "before": s.before, "after": s.after,
                "opponent": opponent, "columns_from": from,
            })
        })
        .collect();
    Ok(json!({
        "name": label(latest), "state": latest.state, "note": latest.note,
        "rank": place.map(|i| i + 1), "of": rows.len(),
        "rating": latest.rating.ordinal(), "games": tally.games, "points": tally.points,
        "judged": tally.judged, "kept": tally.kept, "forfeits": ladder::forfeits(&tally),
        "slips": slips,
    }))
}

/// A game of the student's, from their side (`ids`: their submissions).
fn game(g: &PlayedGame, ids: &[i64], label_of: &dyn Fn(i64) -> String) -> Value {
    let first = ids.contains(&g.first);
    let side = usize::from(!first);
    let points = match first {
        true => g.result.first_points(),
        false => 1.0 - g.result.first_points(),
    };
    json!({
        "game": g.id, "kind": g.kind, "first": label_of(g.first), "second": label_of(g.second),
        "result": g.result, "reason": g.reason, "opening": g.opening,
        "side": if first { "first" } else { "second" }, "points": points,
        "judged": g.accuracy[side].0, "kept": g.accuracy[side].1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rating::Rating;
    use crate::store::{GameRow, Played, Slip};

    fn player(student: &str, anchor: bool, version: i64, state: &str) -> Player {
        Player {
            id: 0,
            student: student.into(),
            anchor,
            version,
            fingerprint: format!("{student}{version}"),
            // alice writes Python (a course policy), the others engines.
            spec: if student == "alice" {
                "name=x,cmd=python3,arg=-m,arg=c4bridge.policy,arg=policy.py".into()
            } else {
                "name=x,cmd=self".into()
            },
            state: state.parse().unwrap(),
            note: (state == "rejected").then(|| "the validation game was lost".into()),
            rating: Rating::default(),
        }
    }

    /// A league of an anchor, alice (whose first submission was replaced
    /// by a second), and bob (refused), with two ladder games played.
    fn league(name: &str) -> (PathBuf, View) {
        let dir = std::env::temp_dir().join(format!("c4-view-{name}-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        let mut store = Store::open(&crate::database(&dir)).unwrap();
        let greedy = store
            .add_player(&player("greedy", true, 0, "active"))
            .unwrap();
        store
            .add_player(&player("alice", false, 1, "active"))
            .unwrap();
        let alice = store
            .add_player(&player("alice", false, 2, "active"))
            .unwrap();
        store
            .add_player(&player("bob", false, 1, "rejected"))
            .unwrap();
        let game = |first, second| GameRow {
            id: 0,
            first,
            second,
            kind: GameKind::Ladder,
            opening: "44".parse().unwrap(),
            seed: 1,
        };
        store
            .schedule(&[game(alice, greedy), game(greedy, alice)])
            .unwrap();
        let unplayed = store.unplayed().unwrap();
        let slip = Slip {
            ply: 7,
            played: 0,
            keeping: Some(3),
            before: "win".into(),
            after: "loss".into(),
        };
        let played = |result: &str, slips: Vec<Slip>| Played {
            result: result.parse().unwrap(),
            reason: connect4_match::ending::Reason::Line,
            line: "{}".into(),
            accuracy: [(10, 9), (10, 10)],
            slips,
        };
        let rated = (
            Rating {
                mu: 30.0,
                sigma: 7.0,
            },
            Rating::default(),
        );
        store
            .record(&unplayed[0], &played("1-0", vec![]), Some(rated))
            .unwrap();
        store
            .record(&unplayed[1], &played("1-0", vec![slip]), None)
            .unwrap();
        (dir.clone(), View::new(&dir))
    }

    #[test]
    fn the_ladder_marks_anchors_lists_the_refused_and_says_the_records() {
        let (dir, view) = league("ladder");
        let ladder = view.ladder().unwrap();
        let players = ladder["players"].as_array().unwrap();
        let names: Vec<&str> = players
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["alice v2", "greedy"], "{ladder}");
        assert_eq!(players[1]["anchor"], true);
        assert_eq!(players[0]["games"], 2);
        assert_eq!(players[0]["points"], 1.0);
        assert_eq!(players[0]["judged"], 20);
        assert_eq!(players[0]["kept"], 19);
        // The rating set by hand is not the games replayed: the audit says so.
        assert!(
            ladder["audit"].as_str().unwrap().starts_with("warning"),
            "{ladder}"
        );
        assert_eq!(ladder["refused"][0]["student"], "bob");
        assert_eq!(ladder["games"], 2);
        assert_eq!(ladder["unplayed"], 0);
        assert!(ladder["final"].as_array().unwrap().is_empty());
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_student_s_page_has_their_submissions_games_and_lost_values() {
        let (dir, view) = league("student");
        let page = view.student("alice", false).unwrap().unwrap();
        let versions: Vec<i64> = page["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["version"].as_i64().unwrap())
            .collect();
        assert_eq!(versions, [2, 1]);
        assert_eq!(page["submissions"][1]["state"], "replaced");
        let games = page["games"].as_array().unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0]["side"], "second");
        assert_eq!(games[0]["points"], 0.0);
        assert_eq!(games[1]["points"], 1.0);
        // Ply 7 is the second player's 4th move; a Python student's
        // columns count from 0.
        let slip = &page["latest"]["slips"][0];
        assert_eq!(slip["move"], 4);
        assert_eq!(slip["played"], 0);
        assert_eq!(slip["keeping"], 3);
        assert_eq!(slip["columns_from"], 0);
        assert_eq!(slip["opponent"], "greedy");
        assert_eq!(page["latest"]["rank"], 1);
        assert!(view.student("alice", true).unwrap().is_none());
        assert!(view.student("<script>", false).unwrap().is_none());
        let bob = view.student("bob", false).unwrap().unwrap();
        assert_eq!(bob["latest"]["state"], "rejected");
        assert_eq!(bob["latest"]["rank"], Value::Null);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_league_that_has_not_started_is_an_error_not_a_new_database() {
        let dir = std::env::temp_dir().join(format!("c4-view-none-{}", std::process::id()));
        let view = View::new(&dir);
        let error = view.ladder().unwrap_err().to_string();
        assert!(error.contains("league.db"), "{error}");
        assert!(!dir.exists());
    }
}
