//! Pictures of a run (`--plot FILE.svg`): for each pairing, the Elo
//! difference with its 95% interval after each completed pair of games,
//! and, under an SPRT, its log-likelihood ratio against the two bounds.

use connect4::lab::plot::{Figure, Panel, Point, Series};
use connect4::lab::stats::{PairedTally, Sprt};

use crate::log::GameLine;

/// Most points drawn per series; longer runs are thinned evenly.
const MAX_POINTS: usize = 300;

/// The figure of `games` (in any order) between `engines` in `pairings`.
pub fn run_figure(
    title: &str,
    engines: &[String],
    pairings: &[(usize, usize)],
    games: &[GameLine],
    sprt: Option<Sprt>,
) -> Figure {
    let mut sorted: Vec<&GameLine> = games.iter().collect();
    sorted.sort_by_key(|g| g.game);
    let mut elo_series = Vec::new();
    let mut llr_series = Vec::new();
    for &(a, b) in pairings {
        let (first, second) = (&engines[a], &engines[b]);
        let name = format!("{first} vs {second}");
        let (elo, llr) = pairing_curves(&sorted, first, second, sprt);
        elo_series.push(Series::new(&name, thin(elo, MAX_POINTS)));
        if sprt.is_some() {
            llr_series.push(Series::new(&name, thin(llr, MAX_POINTS)));
        }
    }
    let mut panels = vec![Panel {
        title: "Elo difference (first engine's view) with its 95% interval".into(),
        x_label: "games played".into(),
        y_label: "Elo".into(),
        guides: vec![("even (0)".into(), 0.0)],
        series: elo_series,
        ..Panel::default()
    }];
    if let Some(s) = sprt {
        let (lower, upper) = s.bounds();
        panels.push(Panel {
            title: "SPRT log-likelihood ratio".into(),
            x_label: "games played".into(),
            y_label: "LLR".into(),
            guides: vec![
                (format!("upper bound: accept H1 ({upper:.2})"), upper),
                (format!("lower bound: accept H0 ({lower:.2})"), lower),
            ],
            series: llr_series,
            ..Panel::default()
        });
    }
    let mut notes = vec![
        "Elo: the first-named engine's rating difference over the second, from colour-swapped \
         pairs of games (pentanomial model), a point after each pair; bars: 95% intervals."
            .to_string(),
    ];
    if let Some(s) = sprt {
        notes.push(format!(
            "SPRT: H0 says the difference is {} Elo, H1 that it is {} (error rates {} and {}); \
             the test is decided when the log-likelihood ratio first crosses a bound.",
            s.elo0, s.elo1, s.alpha, s.beta
        ));
    }
    Figure {
        title: title.to_string(),
        panels,
        notes,
    }
}

/// The Elo of `first` over `second` with its interval, and the SPRT's
/// log-likelihood ratio if there is one, after each completed pair of
/// their games in `sorted` (in order of game).
pub fn pairing_curves(
    sorted: &[&GameLine],
    first: &str,
    second: &str,
    sprt: Option<Sprt>,
) -> (Vec<Point>, Vec<Point>) {
    let mut tally = PairedTally::default();
    let (mut elo, mut llr) = (Vec::new(), Vec::new());
    let theirs = sorted.iter().filter(|g| {
        (g.first == first && g.second == second) || (g.first == second && g.second == first)
    });
    for g in theirs {
        let points = if g.first == first {
            g.first_points()
        } else {
            1.0 - g.first_points()
        };
        let pairs = tally.tally.pairs();
        tally.add(g.pair, points);
        // A point per completed pair, at the games played so far.
        if tally.tally.pairs() == pairs {
            continue;
        }
        let x = f64::from(tally.tally.games());
        let (e, lo, hi) = tally.tally.elo();
        if e.is_finite() {
            elo.push(if lo.is_finite() && hi.is_finite() {
                Point::with_interval(x, e, lo, hi)
            } else {
                Point::new(x, e)
            });
        }
        if let Some(s) = sprt {
            llr.push(Point::new(x, s.llr(&tally.tally.penta)));
        }
    }
    (elo, llr)
}

/// At most `most` of `points`, evenly spread, the last one kept.
pub fn thin(points: Vec<Point>, most: usize) -> Vec<Point> {
    if points.len() <= most {
        return points;
    }
    let step = points.len().div_ceil(most);
    let last = *points.last().expect("not empty");
    let mut kept: Vec<Point> = points.into_iter().step_by(step).collect();
    if kept.last() != Some(&last) {
        kept.push(last);
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ending::Reason;

    fn game(game: u64, first: &str, second: &str, result: &str) -> GameLine {
        GameLine {
            run: "r".into(),
            game,
            pair: game.div_ceil(2),
            first: first.into(),
            second: second.into(),
            rules: connect4::Rules::STANDARD,
            opening: "4".parse().unwrap(),
            moves: "4".parse().unwrap(),
            result: result.parse().unwrap(),
            reason: Reason::Line,
            detail: None,
            test: None,
            zero_based: Vec::new(),
            seed: 0,
            plies: Vec::new(),
        }
    }

    #[test]
    fn one_point_per_completed_pair_and_an_llr_panel_under_an_sprt() {
        let engines = vec!["a".to_string(), "b".to_string()];
        // a wins every game as first and draws as second: pairs WD.
        let games: Vec<GameLine> = (1..=20)
            .map(|n| {
                if n % 2 == 1 {
                    game(n, "a", "b", "1-0")
                } else {
                    game(n, "b", "a", "1/2-1/2")
                }
            })
            .collect();
        let sprt: Sprt = "elo0=0,elo1=10".parse().unwrap();
        let fig = run_figure("t", &engines, &[(0, 1)], &games, Some(sprt));
        assert_eq!(fig.panels.len(), 2);
        let elo = &fig.panels[0].series[0].points;
        assert_eq!(elo.len(), 10);
        assert_eq!(elo[9].x, 20.0);
        assert!(elo.iter().all(|p| p.y > 0.0), "a is ahead");
        let llr = &fig.panels[1].series[0].points;
        assert!(
            llr.windows(2).all(|w| w[1].y > w[0].y),
            "evidence for a grows"
        );
        assert!(fig.svg().is_ok());
    }

    #[test]
    fn long_runs_are_thinned_keeping_the_last_point() {
        let points: Vec<Point> = (0..1000).map(|i| Point::new(i as f64, 0.0)).collect();
        let kept = thin(points, MAX_POINTS);
        assert!(kept.len() <= MAX_POINTS + 1);
        assert_eq!(kept.last().unwrap().x, 999.0);
    }
}
