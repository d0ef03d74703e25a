//! Games between in-process agents: one move of an agent, one game from an
//! opening, and colour-swapped pairs over a set of openings, as `tune`,
//! the experiments and the tests play them.

use super::stats::Tally;
use crate::agents::{Agent, AgentError, from_spec};
use crate::position::{Player, Position, Status};
use crate::rules::Rules;
use crate::search::Limits;

/// The move the agent `spec` names would play in `p` with no limit, with
/// the nodes it visited: a fresh agent each time, so that nothing learned
/// on earlier positions counts.
pub fn one_move(spec: &str, p: &Position) -> Result<crate::agents::AgentMove, AgentError> {
    Ok(from_spec(spec)?.choose(p, &Limits::none(), None))
}

/// Plays one game from `opening` (0-based columns, all legal); returns the
/// final status.
pub fn play_game(
    rules: Rules,
    opening: &[u32],
    first: &mut dyn Agent,
    second: &mut dyn Agent,
    limits: &Limits,
) -> Status {
    let mut p = Position::new(rules);
    for &c in opening {
        p.play(c);
    }
    loop {
        let status = p.status();
        if status != Status::Ongoing {
            return status;
        }
        let agent: &mut dyn Agent = if p.side_to_move() == Player::First {
            first
        } else {
            second
        };
        p.play(agent.choose(&p, limits, None).column);
    }
}

/// Plays a game pair from each opening, `a` first then second; the score is
/// `a`'s. Agents are built once from their specs.
pub fn play_pairs(
    rules: Rules,
    a: &str,
    b: &str,
    openings: &[Vec<u32>],
    limits: &Limits,
) -> Result<Tally, AgentError> {
    let (mut x, mut y) = (from_spec(a)?, from_spec(b)?);
    let mut s = Tally::default();
    for opening in openings {
        let mut points = 0.0;
        for a_first in [true, false] {
            let status = if a_first {
                play_game(rules, opening, x.as_mut(), y.as_mut(), limits)
            } else {
                play_game(rules, opening, y.as_mut(), x.as_mut(), limits)
            };
            let a_side = if a_first {
                Player::First
            } else {
                Player::Second
            };
            let game_points = match status {
                Status::Won(w) if w == a_side => 1.0,
                Status::Won(_) => 0.0,
                _ => 0.5,
            };
            s.add_game(game_points);
            points += game_points;
        }
        s.add_pair(points);
    }
    Ok(s)
}

/// `count` random openings of `plies` plies from a seed as column lists,
/// none over and none where the side to move can win at once; distinct
/// ones cycled if there are fewer than `count`.
pub fn random_openings(rules: Rules, plies: u32, count: usize, seed: u64) -> Vec<Vec<u32>> {
    let distinct = crate::openings::random_openings(rules, plies, count, seed);
    distinct
        .iter()
        .cycle()
        .take(count)
        .map(|g| g.moves().to_vec())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_scores_add_up_and_their_error_shrinks() {
        let openings = random_openings(Rules::STANDARD, 2, 10, 1);
        assert_eq!(openings.len(), 10);
        assert!(openings.iter().all(|o| o.len() == 2));
        let s = play_pairs(
            Rules::STANDARD,
            "greedy",
            "random:seed=1",
            &openings,
            &Limits::none(),
        )
        .unwrap();
        assert_eq!((s.games(), s.pairs()), (20, 10));
        assert!(s.score() > 0.8, "{s:?}");
        let mut all = Tally::default();
        all.add(&s);
        all.add(&s);
        assert_eq!(all.pairs(), 20);
        assert!(all.std_error() <= s.std_error());
        // Equal agents from equal openings: every pair is 1-1 for the same
        // deterministic player.
        let s = play_pairs(
            Rules::STANDARD,
            "greedy",
            "greedy",
            &openings,
            &Limits::none(),
        )
        .unwrap();
        assert!(
            (s.score() - 0.5).abs() < 1e-9 && s.std_error() < 1e-9,
            "{s:?}"
        );
    }
}
