//! The games of a batch and their step.

use connect4::agents::{self, Agent};
use connect4::search::Limits;
use connect4::{Player, Position};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::observe::{self, Buffers, Layout};
use crate::{Autoreset, BatchError, Config, Opponent, Seat};

/// How a game ended at a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    /// This player made a line.
    Won(Player),
    /// The board is full.
    Draw,
    /// This player chose a full column.
    Forfeit(Player),
}

/// `N` games stepped together (see the crate's documentation).
pub struct Batch {
    config: Config,
    layout: Layout,
    empty: Position,
    games: Vec<Position>,
    /// Games that ended and wait for their reset.
    over: Vec<bool>,
    /// Each game's episodes started since its seed.
    episodes: Vec<u64>,
    rngs: Vec<SmallRng>,
    /// The opponent's player, when it is one of the project's agents.
    agent: Option<Box<dyn Agent>>,
    /// The generator of [`Batch::random_actions`], apart from the games'
    /// own (the random opponent's), so that sampling changes no game.
    sampler: SmallRng,
}

/// Game `game`'s seed in a batch seeded `seed`: SplitMix64's mix, so that
/// neighbouring games' generators share nothing.
pub fn game_seed(seed: u64, game: usize) -> u64 {
    let mut z = seed.wrapping_add(
        (game as u64)
            .wrapping_add(1)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15),
    );
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Batch {
    /// A batch as `config` says, each game seeded from `seed` (see
    /// [`game_seed`]) and reset.
    pub fn new(config: Config, seed: u64) -> Result<Batch, BatchError> {
        if config.games == 0 {
            return Err(BatchError::NoGames);
        }
        let agent = match &config.opponent {
            Opponent::Agent(spec) => {
                let refused = |e: agents::AgentError| BatchError::Opponent {
                    spec: spec.clone(),
                    why: e.to_string(),
                };
                let agent = agents::from_spec(spec).map_err(refused)?;
                agent.check_rules(config.rules).map_err(refused)?;
                Some(agent)
            }
            _ => None,
        };
        let empty = Position::new(config.rules);
        let layout = Layout {
            rows: config.rules.rows() as usize,
            columns: config.rules.columns() as usize,
            rewards: if config.opponent == Opponent::SelfPlay {
                2
            } else {
                1
            },
        };
        let n = config.games;
        let mut batch = Batch {
            config,
            layout,
            empty,
            games: vec![empty; n],
            over: vec![false; n],
            episodes: vec![0; n],
            rngs: (0..n).map(|_| SmallRng::seed_from_u64(0)).collect(),
            agent,
            sampler: SmallRng::seed_from_u64(game_seed(seed, usize::MAX)),
        };
        let seeds: Vec<u64> = (0..n).map(|g| game_seed(seed, g)).collect();
        batch.seed(&seeds)?;
        Ok(batch)
    }

    /// A copy of the batch that steps on its own, where its opponent is no
    /// agent (an agent's state cannot be copied): `None` otherwise.
    pub fn try_clone(&self) -> Option<Batch> {
        if self.agent.is_some() {
            return None;
        }
        Some(Batch {
            config: self.config.clone(),
            layout: self.layout,
            empty: self.empty,
            games: self.games.clone(),
            over: self.over.clone(),
            episodes: self.episodes.clone(),
            rngs: self.rngs.clone(),
            agent: None,
            sampler: self.sampler.clone(),
        })
    }

    /// What the batch plays.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The games' positions now.
    pub fn positions(&self) -> &[Position] {
        &self.games
    }

    /// The values of one game's observation (rows x columns x 2).
    pub fn planes(&self) -> usize {
        self.layout.planes()
    }

    /// The rewards a game: 2 in self-play, 1 against an opponent.
    pub fn rewards_per_game(&self) -> usize {
        self.layout.rewards
    }

    /// The side the learner plays in game `game` now: against an opponent,
    /// as the seat and the episode say; in self-play, the player to move.
    pub fn learner(&self, game: usize) -> Player {
        let first = match self.config.seat {
            Seat::First => true,
            Seat::Second => false,
            Seat::Alternate => (game as u64)
                .wrapping_add(self.episodes[game])
                .is_multiple_of(2),
        };
        match (&self.config.opponent, first) {
            (Opponent::SelfPlay, _) => self.games[game].side_to_move(),
            (_, true) => Player::First,
            (_, false) => Player::Second,
        }
    }

    /// Seeds every game afresh (`seeds`, one a game) and starts each anew,
    /// as if the batch were new; writes nothing.
    pub fn seed(&mut self, seeds: &[u64]) -> Result<(), BatchError> {
        if seeds.len() != self.games.len() {
            return Err(BatchError::Seeds {
                expected: self.games.len(),
                got: seeds.len(),
            });
        }
        if let Some(agent) = self.agent.as_mut() {
            agent.new_game(Some(game_seed(seeds[0], seeds.len())));
        }
        self.sampler = SmallRng::seed_from_u64(game_seed(seeds[0], usize::MAX));
        for (g, &seed) in seeds.iter().enumerate() {
            self.rngs[g] = SmallRng::seed_from_u64(seed);
            self.episodes[g] = 0;
            self.start(g);
        }
        Ok(())
    }

    /// Seeds every game afresh (`seeds`, one a game), starts each anew and
    /// writes every game's observation, mask and player to move (rewards
    /// and terminations 0): Gymnasium's `reset(seed=...)`.
    pub fn reset_seeded(&mut self, seeds: &[u64], out: &mut Buffers) -> Result<(), BatchError> {
        self.layout.check(out, self.games.len(), false)?;
        self.seed(seeds)?;
        for g in 0..self.games.len() {
            self.write(g, out);
        }
        Ok(())
    }

    /// Starts again the games where `which` is true (all of them when it
    /// is `None`), each from its own generator, and writes every game's
    /// observation, mask and player to move (rewards and terminations 0).
    pub fn reset(&mut self, which: Option<&[bool]>, out: &mut Buffers) -> Result<(), BatchError> {
        let n = self.games.len();
        if let Some(which) = which
            && which.len() != n
        {
            return Err(BatchError::Buffer {
                name: "reset mask",
                expected: n,
                got: which.len(),
            });
        }
        self.layout.check(out, n, false)?;
        for g in 0..n {
            if which.is_none_or(|w| w[g]) {
                self.episodes[g] += 1;
                self.start(g);
            }
            self.write(g, out);
        }
        Ok(())
    }

    /// Plays `actions` (one column from 0 a game, for the player to move in
    /// self-play, for the learner against an opponent), the opponent's
    /// replies, and the resets autoreset calls for; writes every game's
    /// part of `out`. Nothing changes when the actions or buffers are
    /// wrong.
    pub fn step(&mut self, actions: &[i64], out: &mut Buffers) -> Result<(), BatchError> {
        let n = self.games.len();
        if actions.len() != n {
            return Err(BatchError::Actions {
                expected: n,
                got: actions.len(),
            });
        }
        let same_step = self.config.autoreset == Autoreset::SameStep;
        self.layout.check(out, n, same_step)?;
        let last = self.empty.columns() - 1;
        for (g, &action) in actions.iter().enumerate() {
            if !(0..=i64::from(last)).contains(&action) {
                return Err(BatchError::NoSuchColumn {
                    game: g,
                    action,
                    last,
                });
            }
            if self.over[g] && self.config.autoreset == Autoreset::Disabled {
                return Err(BatchError::Over { game: g });
            }
        }
        for (g, &action) in actions.iter().enumerate() {
            self.step_game(g, action as u32, out);
        }
        Ok(())
    }

    /// A uniformly random legal column for the player to move in each game
    /// (0 in a game that ended on a full board), from the batch's own
    /// sampler: a random agent's actions at native speed.
    pub fn random_actions(&mut self, out: &mut [i64]) -> Result<(), BatchError> {
        if out.len() != self.games.len() {
            return Err(BatchError::Buffer {
                name: "actions",
                expected: self.games.len(),
                got: out.len(),
            });
        }
        for (p, action) in self.games.iter().zip(out.iter_mut()) {
            *action = if p.possible() == 0 {
                0
            } else {
                i64::from(p.column_of(random_cell(p, &mut self.sampler)))
            };
        }
        Ok(())
    }

    /// One game's step (the action checked).
    fn step_game(&mut self, g: usize, column: u32, out: &mut Buffers) {
        let width = self.layout.rewards;
        out.rewards[g * width..(g + 1) * width].fill(0.0);
        out.terminated[g] = 0;
        out.truncated[g] = 0;
        if self.over[g] {
            // NextStep: this step starts the next game; the action is unused.
            self.episodes[g] += 1;
            self.start(g);
            self.write(g, out);
            return;
        }
        let ending = self.play(g, column).or_else(|| self.reply(g));
        let Some(ending) = ending else {
            self.write(g, out);
            return;
        };
        self.reward(g, ending, out);
        out.terminated[g] = 1;
        if self.config.autoreset == Autoreset::SameStep {
            let planes = self.layout.planes();
            let viewer = self.learner(g);
            observe::planes(
                &self.games[g],
                viewer,
                &mut out.final_observation[g * planes..(g + 1) * planes],
            );
            self.episodes[g] += 1;
            self.start(g);
            self.write(g, out);
        } else {
            self.over[g] = true;
            self.write(g, out);
        }
    }

    /// Plays `column` for the player to move in game `g`; how the game
    /// ended, if it did.
    fn play(&mut self, g: usize, column: u32) -> Option<Ending> {
        let p = &mut self.games[g];
        let mover = p.side_to_move();
        if !p.can_play(column) {
            return Some(Ending::Forfeit(mover));
        }
        p.play(column);
        ending_after(p, mover)
    }

    /// The opponent's reply in game `g`, if it has an opponent; how the
    /// game ended, if it did.
    fn reply(&mut self, g: usize) -> Option<Ending> {
        let p = &mut self.games[g];
        let mover = p.side_to_move();
        match &self.config.opponent {
            Opponent::SelfPlay => return None,
            Opponent::Random => {
                let cell = random_cell(p, &mut self.rngs[g]);
                p.play_cell(cell);
            }
            Opponent::Agent(_) => {
                let agent = self
                    .agent
                    .as_mut()
                    .expect("an agent opponent has its agent");
                let column = agent.choose(p, &Limits::none(), None).column;
                p.play(column);
            }
        }
        ending_after(p, mover)
    }

    /// Game `g`'s rewards for `ending`.
    fn reward(&self, g: usize, ending: Ending, out: &mut Buffers) {
        let (won, lost) = match ending {
            Ending::Won(p) => (Some(p), Some(p.other())),
            Ending::Forfeit(p) => (None, Some(p)),
            Ending::Draw => (None, None),
        };
        match self.config.opponent {
            Opponent::SelfPlay => {
                let rewards = &mut out.rewards[g * 2..g * 2 + 2];
                if let Some(p) = won {
                    rewards[observe::index(p)] = 1.0;
                }
                if let Some(p) = lost {
                    rewards[observe::index(p)] = -1.0;
                }
            }
            _ => {
                let me = self.learner(g);
                out.rewards[g] = if won == Some(me) {
                    1.0
                } else if lost == Some(me) {
                    -1.0
                } else {
                    0.0
                };
            }
        }
    }

    /// Game `g` from the empty board: the opponent moves first where the
    /// learner plays second.
    fn start(&mut self, g: usize) {
        self.games[g] = self.empty;
        self.over[g] = false;
        if self.config.opponent != Opponent::SelfPlay && self.learner(g) == Player::Second {
            self.reply(g);
        }
    }

    /// Writes game `g`'s observation, mask and player to move.
    fn write(&self, g: usize, out: &mut Buffers) {
        let (planes, columns) = (self.layout.planes(), self.layout.columns);
        let p = &self.games[g];
        observe::planes(
            p,
            self.learner(g),
            &mut out.observation[g * planes..(g + 1) * planes],
        );
        observe::mask(p, &mut out.action_mask[g * columns..(g + 1) * columns]);
        out.to_move[g] = observe::index(p.side_to_move()) as u8;
    }
}

/// How the game stands after `mover`'s move in `p`, if it ended.
fn ending_after(p: &Position, mover: Player) -> Option<Ending> {
    if p.last_move_won() {
        Some(Ending::Won(mover))
    } else if p.is_full() {
        Some(Ending::Draw)
    } else {
        None
    }
}

/// A uniformly random cell where a stone may drop in `p` (not over).
fn random_cell(p: &Position, rng: &mut SmallRng) -> u64 {
    let mut cells = p.possible();
    for _ in 0..rng.random_range(0..cells.count_ones()) {
        cells &= cells - 1;
    }
    cells & cells.wrapping_neg()
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect4::Rules;

    /// The buffers of a batch of `n` games of the standard board.
    struct Owned {
        observation: Vec<u8>,
        action_mask: Vec<u8>,
        rewards: Vec<f32>,
        terminated: Vec<u8>,
        truncated: Vec<u8>,
        to_move: Vec<u8>,
        final_observation: Vec<u8>,
    }

    impl Owned {
        fn new(batch: &Batch) -> Owned {
            let n = batch.positions().len();
            Owned {
                observation: vec![9; n * batch.planes()],
                action_mask: vec![9; n * 7],
                rewards: vec![9.0; n * batch.rewards_per_game()],
                terminated: vec![9; n],
                truncated: vec![9; n],
                to_move: vec![9; n],
                final_observation: vec![9; n * batch.planes()],
            }
        }

        fn buffers(&mut self) -> Buffers<'_> {
            Buffers {
                observation: &mut self.observation,
                action_mask: &mut self.action_mask,
                rewards: &mut self.rewards,
                terminated: &mut self.terminated,
                truncated: &mut self.truncated,
                to_move: &mut self.to_move,
                final_observation: &mut self.final_observation,
            }
        }
    }

    fn batch(games: usize, opponent: Opponent, seat: Seat, autoreset: Autoreset) -> Batch {
        let config = Config {
            rules: Rules::STANDARD,
            games,
            opponent,
            seat,
            autoreset,
        };
        Batch::new(config, 7).unwrap()
    }

    fn self_play(games: usize, autoreset: Autoreset) -> Batch {
        batch(games, Opponent::SelfPlay, Seat::First, autoreset)
    }

    #[test]
    fn a_line_wins_for_its_player_and_the_next_step_starts_a_new_game() {
        let mut b = self_play(2, Autoreset::NextStep);
        let mut out = Owned::new(&b);
        b.reset(None, &mut out.buffers()).unwrap();
        // Game 0: the first player fills column 0; game 1 plays column 3 and 4.
        for (ply, (a, c)) in [(0, 3), (1, 4), (0, 3), (1, 4), (0, 3), (1, 4)]
            .iter()
            .enumerate()
        {
            b.step(&[*a, *c], &mut out.buffers()).unwrap();
            assert_eq!(out.terminated, [0, 0], "ply {ply}");
            assert_eq!(out.rewards, [0.0; 4]);
        }
        assert_eq!(out.to_move, [0, 0]);
        b.step(&[0, 3], &mut out.buffers()).unwrap();
        assert_eq!(out.terminated, [1, 1]);
        assert_eq!(out.truncated, [0, 0]);
        assert_eq!(out.rewards, [1.0, -1.0, 1.0, -1.0]);
        assert_eq!(
            out.action_mask, [1; 14],
            "the final positions' columns with room"
        );
        assert_eq!(b.positions()[0].moves_played(), 7);
        b.step(&[5, 5], &mut out.buffers()).unwrap();
        assert_eq!(out.terminated, [0, 0]);
        assert_eq!(out.rewards, [0.0; 4]);
        assert_eq!(
            b.positions()[0].moves_played(),
            0,
            "the action was not played"
        );
        assert!(out.observation.iter().all(|&v| v == 0));
        assert_eq!(out.action_mask, [1; 14]);
    }

    #[test]
    fn a_full_column_ends_the_game_with_minus_one_for_who_chose_it() {
        let mut b = self_play(1, Autoreset::NextStep);
        let mut out = Owned::new(&b);
        for _ in 0..6 {
            b.step(&[2], &mut out.buffers()).unwrap();
        }
        assert_eq!(out.action_mask, [1, 1, 0, 1, 1, 1, 1]);
        b.step(&[2], &mut out.buffers()).unwrap();
        assert_eq!(out.terminated, [1]);
        assert_eq!(
            out.rewards,
            [-1.0, 0.0],
            "the first player chose the full column"
        );
    }

    #[test]
    fn the_observation_is_the_viewer_s_stones_then_the_opponent_s_row_0_on_top() {
        let mut b = self_play(1, Autoreset::NextStep);
        let mut out = Owned::new(&b);
        b.step(&[3], &mut out.buffers()).unwrap();
        b.step(&[3], &mut out.buffers()).unwrap();
        b.step(&[0], &mut out.buffers()).unwrap();
        // The second player to move: its stone on top of the centre, the
        // first player's at the bottom of the centre and of column 0.
        let cell = |row: usize, column: usize, plane: usize| {
            out.observation[(row * 7 + column) * 2 + plane]
        };
        assert_eq!(out.to_move, [1]);
        assert_eq!((cell(4, 3, 0), cell(4, 3, 1)), (1, 0));
        assert_eq!((cell(5, 3, 0), cell(5, 3, 1)), (0, 1));
        assert_eq!((cell(5, 0, 0), cell(5, 0, 1)), (0, 1));
        assert_eq!(
            out.observation.iter().map(|&v| u32::from(v)).sum::<u32>(),
            3
        );
    }

    #[test]
    fn same_step_autoreset_keeps_the_last_observation_apart() {
        let mut b = self_play(1, Autoreset::SameStep);
        let mut out = Owned::new(&b);
        for a in [0, 1, 0, 1, 0, 1] {
            b.step(&[a], &mut out.buffers()).unwrap();
        }
        b.step(&[0], &mut out.buffers()).unwrap();
        assert_eq!((out.terminated[0], out.rewards[0]), (1, 1.0));
        assert!(
            out.observation.iter().all(|&v| v == 0),
            "the next game shows"
        );
        assert_eq!(b.positions()[0].moves_played(), 0);
        let stones: u32 = out.final_observation.iter().map(|&v| u32::from(v)).sum();
        assert_eq!(stones, 7, "the game that ended, whole");
    }

    #[test]
    fn with_autoreset_disabled_an_ended_game_waits_for_its_reset() {
        let mut b = self_play(2, Autoreset::Disabled);
        let mut out = Owned::new(&b);
        for (a, c) in [(0, 3), (1, 4), (0, 5), (1, 3), (0, 4), (1, 5), (0, 6)] {
            b.step(&[a, c], &mut out.buffers()).unwrap();
        }
        assert_eq!(out.terminated, [1, 0]);
        let e = b.step(&[0, 3], &mut out.buffers()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "game 0 is over: reset it before stepping it (autoreset is disabled)"
        );
        assert_eq!(b.positions()[1].moves_played(), 7, "nothing moved");
        b.reset(Some(&[true, false]), &mut out.buffers()).unwrap();
        assert_eq!(b.positions()[0].moves_played(), 0);
        assert_eq!(b.positions()[1].moves_played(), 7);
        b.step(&[0, 3], &mut out.buffers()).unwrap();
    }

    #[test]
    fn bad_actions_and_buffers_are_refused_by_name_and_change_nothing() {
        let mut b = self_play(3, Autoreset::NextStep);
        let mut out = Owned::new(&b);
        let e = b.step(&[0, 1], &mut out.buffers()).unwrap_err();
        assert_eq!(e.to_string(), "actions: expected 3, one a game, got 2");
        let e = b.step(&[0, 1, 7], &mut out.buffers()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "actions[2] = 7: expected a column from 0 to 6"
        );
        let e = b.step(&[-1, 1, 2], &mut out.buffers()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "actions[0] = -1: expected a column from 0 to 6"
        );
        assert!(b.positions().iter().all(|p| p.moves_played() == 0));
        let mut short = Owned::new(&b);
        short.action_mask.pop();
        let e = b.step(&[0, 1, 2], &mut short.buffers()).unwrap_err();
        assert_eq!(e.to_string(), "action_mask: expected 21 values, got 20");
        let config = Config {
            games: 0,
            ..b.config().clone()
        };
        assert_eq!(Batch::new(config, 1).err(), Some(BatchError::NoGames));
        let config = Config {
            opponent: Opponent::Agent("nobody".into()),
            ..b.config().clone()
        };
        let e = Batch::new(config, 1).err().unwrap().to_string();
        assert!(
            e.starts_with("opponent 'nobody': unknown agent 'nobody'"),
            "{e}"
        );
    }

    /// Plays `steps` steps of random legal learner moves; every output.
    fn random_run(b: &mut Batch, steps: usize, seed: u64) -> Vec<(Vec<u8>, Vec<f32>, Vec<u8>)> {
        let mut out = Owned::new(b);
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut seen = Vec::new();
        b.reset(None, &mut out.buffers()).unwrap();
        for _ in 0..steps {
            let actions: Vec<i64> = out
                .action_mask
                .chunks(7)
                .map(|m| {
                    // A full board that ended shows no room: any action starts the next game.
                    let legal: Vec<usize> = (0..7).filter(|&c| m[c] == 1).collect();
                    match legal.len() {
                        0 => 0,
                        n => legal[rng.random_range(0..n)] as i64,
                    }
                })
                .collect();
            b.step(&actions, &mut out.buffers()).unwrap();
            seen.push((
                out.observation.clone(),
                out.rewards.clone(),
                out.terminated.clone(),
            ));
        }
        seen
    }

    #[test]
    fn a_random_opponent_plays_legal_moves_and_a_seed_repeats_every_game() {
        let mut b = batch(16, Opponent::Random, Seat::Alternate, Autoreset::NextStep);
        let run = random_run(&mut b, 200, 3);
        let ended: usize = run
            .iter()
            .map(|(_, _, t)| t.iter().filter(|&&t| t == 1).count())
            .sum();
        assert!(ended > 50, "{ended} games ended");
        let rewards: Vec<f32> = run.iter().flat_map(|(_, r, _)| r.clone()).collect();
        assert!(rewards.iter().all(|r| [-1.0, 0.0, 1.0].contains(r)));
        assert!(rewards.contains(&1.0) && rewards.contains(&-1.0));
        let mut again = batch(16, Opponent::Random, Seat::Alternate, Autoreset::NextStep);
        assert!(
            run == random_run(&mut again, 200, 3),
            "the same seeds, the same games"
        );
        let config = again.config().clone();
        let mut other = Batch::new(config, 8).unwrap();
        assert!(
            run != random_run(&mut other, 200, 3),
            "another seed, other games"
        );
    }

    #[test]
    fn the_learner_second_finds_the_opponent_s_stone_and_alternate_seats_mix() {
        let mut b = batch(
            4,
            Opponent::Agent("greedy".into()),
            Seat::Second,
            Autoreset::NextStep,
        );
        let mut out = Owned::new(&b);
        b.reset(None, &mut out.buffers()).unwrap();
        assert!(b.positions().iter().all(|p| p.moves_played() == 1));
        assert_eq!(out.to_move, [1; 4]);
        // The learner's plane is empty, the opponent's holds the stone.
        let theirs: u32 = out
            .observation
            .iter()
            .skip(1)
            .step_by(2)
            .map(|&v| u32::from(v))
            .sum();
        assert_eq!(theirs, 4);
        let alternate = batch(4, Opponent::Random, Seat::Alternate, Autoreset::NextStep);
        let firsts: Vec<u32> = alternate
            .positions()
            .iter()
            .map(|p| p.moves_played())
            .collect();
        assert_eq!(firsts, [0, 1, 0, 1]);
    }
}
