//! The schedule of a run: openings, the games between each pairing, their
//! order, the share of a shard, and the run's fingerprint.
//!
//! The schedule is a pure function of the engines, the openings, the
//! number of pairs and the tournament mode, so that a resumed run and every
//! shard of a job array see the same games with the same numbers.

use std::path::Path;

use anyhow::{Context, Result, bail};
use connect4::openings::{all_openings, random_openings};
use connect4::score::Outcome;
use connect4::search::{MIN_HASH_MB, Solver};
use connect4::{Game, Rules};

/// Where openings come from.
#[derive(Clone, Debug)]
pub struct OpeningSource {
    /// A file of move strings, one per line (`#` comments, blank lines
    /// skipped; anything after the first word ignored).
    pub file: Option<std::path::PathBuf>,
    /// Plies of generated openings.
    pub plies: u32,
    /// Every opening of `plies` plies (distinct positions, mirror images
    /// counted once) instead of random ones.
    pub all: bool,
    /// Keep only openings the solver cannot decide within this many nodes
    /// or proves drawn.
    pub undecided: Option<u64>,
    /// Seed of random openings.
    pub seed: u64,
}

/// The openings for `count` pairs (fewer distinct ones are cycled).
pub fn openings(
    rules: Rules,
    source: &OpeningSource,
    count: usize,
) -> Result<Vec<connect4::MoveList>> {
    let mut list = match &source.file {
        Some(path) => read_openings(rules, path)?,
        None if source.all => strings(all_openings(rules, source.plies)),
        // Filtering drops some: draw more candidates.
        None => {
            let extra = if source.undecided.is_some() { 4 } else { 1 };
            strings(random_openings(
                rules,
                source.plies,
                count * extra,
                source.seed,
            ))
        }
    };
    if let Some(nodes) = source.undecided {
        let mut solver = Solver::new(MIN_HASH_MB);
        list.retain(|moves| {
            let game = Game::from_moves(rules, moves).expect("checked");
            matches!(
                solver.prove_outcome(game.position(), nodes),
                None | Some(Outcome::Draw)
            )
        });
        if list.is_empty() {
            bail!(
                "--undecided {nodes}: the solver decides every opening; try fewer nodes or plies"
            );
        }
        if source.file.is_none() && !source.all {
            list.truncate(count);
        }
    }
    if list.is_empty() {
        bail!("no openings");
    }
    let distinct = list.len();
    while list.len() < count {
        list.push(list[list.len() % distinct].clone());
    }
    Ok(list)
}

/// The move strings of `games`.
fn strings(games: Vec<Game>) -> Vec<connect4::MoveList> {
    games.iter().map(Game::move_list).collect()
}

fn read_openings(rules: Rules, path: &Path) -> Result<Vec<connect4::MoveList>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let moves = line.split_whitespace().next().unwrap_or("");
        let game = Game::from_move_string(rules, moves)
            .with_context(|| format!("{}:{}: opening '{moves}'", path.display(), i + 1))?;
        if game.position().is_over() {
            bail!(
                "{}:{}: opening '{moves}' already ends the game",
                path.display(),
                i + 1
            );
        }
        out.push(game.move_list());
    }
    if out.is_empty() {
        bail!("{}: no openings", path.display());
    }
    Ok(out)
}

/// Who plays whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every engine against every other.
    RoundRobin,
    /// The first engine against each of the others.
    Gauntlet,
}

/// One game of the schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The game's number, from 1.
    pub game: u64,
    /// Its pair's number, from 1 (the pair's two games share the opening).
    pub pair: u64,
    /// The engine moving first (index into the engines).
    pub first: usize,
    /// The engine moving second.
    pub second: usize,
    /// The opening's moves.
    pub opening: connect4::MoveList,
}

/// The pairings of `engines` engines, in a fixed order.
pub fn pairings(engines: usize, mode: Mode) -> Vec<(usize, usize)> {
    match mode {
        Mode::Gauntlet => (1..engines).map(|j| (0, j)).collect(),
        Mode::RoundRobin => (0..engines)
            .flat_map(|i| (i + 1..engines).map(move |j| (i, j)))
            .collect(),
    }
}

/// The whole schedule: for each round, a pair of games per pairing from the
/// round's opening, the pairing's first engine moving first in the odd
/// game. Rounds come one after the other, so a run stopped early still
/// has every pairing about equally played.
pub fn schedule(
    pairings: &[(usize, usize)],
    rounds: usize,
    openings: &[connect4::MoveList],
) -> Vec<Job> {
    let mut jobs = Vec::with_capacity(rounds * pairings.len() * 2);
    let mut pair = 0;
    for round in 0..rounds {
        for &(a, b) in pairings {
            pair += 1;
            let opening = &openings[round % openings.len()];
            for (first, second) in [(a, b), (b, a)] {
                jobs.push(Job {
                    game: jobs.len() as u64 + 1,
                    pair,
                    first,
                    second,
                    opening: opening.clone(),
                });
            }
        }
    }
    jobs
}

/// A shard `I/N`: this copy plays pairs `I, I + N, I + 2N, ...`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based index.
    pub index: u64,
    /// Number of shards.
    pub count: u64,
}

/// A `--shard` that is not `I/N` with `1 <= I <= N`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}': expected I/N with 1 <= I <= N, such as 2/8")]
pub struct BadShard(pub String);

impl std::str::FromStr for Shard {
    type Err = BadShard;

    fn from_str(s: &str) -> Result<Shard, BadShard> {
        let bad = || BadShard(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u64, u64) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Whether this shard plays `job`.
    pub fn owns(&self, job: &Job) -> bool {
        (job.pair - 1) % self.count == self.index - 1
    }
}

/// A short hash of everything that defines a run's games: a resumed run
/// or a merged shard must have the same.
pub fn fingerprint(rules: Rules, engines: &[String], jobs: &[Job]) -> String {
    let mut parts = vec![rules.to_string()];
    parts.extend(engines.iter().cloned());
    parts.extend(jobs.iter().map(|j| {
        format!(
            "{} {} {} {} {}",
            j.game, j.pair, j.first, j.second, j.opening
        )
    }));
    fingerprint_of(&parts)
}

/// A short, stable name of `parts`: FNV-1a, 64 bits, over each part and a
/// zero byte after it (stable across builds and platforms).
pub fn fingerprint_of(parts: &[String]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in parts.iter().flat_map(|p| p.bytes().chain([0u8])) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_share_openings_and_shards_split_them() {
        let openings: Vec<connect4::MoveList> =
            ["4", "3", "5"].iter().map(|s| s.parse().unwrap()).collect();
        let jobs = schedule(&pairings(3, Mode::RoundRobin), 2, &openings);
        assert_eq!(jobs.len(), 2 * 3 * 2);
        assert_eq!(
            (jobs[0].first, jobs[0].second, jobs[1].first, jobs[1].second),
            (0, 1, 1, 0)
        );
        assert_eq!(jobs[0].opening, jobs[1].opening);
        assert_eq!(jobs[6].opening, "3", "round 2 takes the next opening");
        let shards: Vec<Shard> = (1..=3).map(|i| format!("{i}/3").parse().unwrap()).collect();
        for job in &jobs {
            assert_eq!(shards.iter().filter(|s| s.owns(job)).count(), 1);
        }
        assert!(shards[0].owns(&jobs[0]) && shards[0].owns(&jobs[1]));
        assert!("0/3".parse::<Shard>().is_err() && "4/3".parse::<Shard>().is_err());
        assert_eq!(pairings(4, Mode::Gauntlet), vec![(0, 1), (0, 2), (0, 3)]);
        let a = fingerprint(Rules::STANDARD, &["x".into(), "y".into()], &jobs);
        let b = fingerprint(Rules::STANDARD, &["x".into(), "z".into()], &jobs);
        assert_ne!(a, b);
    }

    #[test]
    fn generated_openings() {
        // Mirror images count once: 7 first moves give 4 positions; 49
        // two-ply strings give 24 mirror pairs and "44": 25.
        assert_eq!(all_openings(Rules::STANDARD, 1).len(), 4);
        assert_eq!(all_openings(Rules::STANDARD, 2).len(), 25);
        let source = OpeningSource {
            file: None,
            plies: 4,
            all: false,
            undecided: None,
            seed: 3,
        };
        let a = openings(Rules::STANDARD, &source, 50).unwrap();
        assert_eq!(a, openings(Rules::STANDARD, &source, 50).unwrap());
        assert!(a.iter().all(|m| m.len() == 4));
        // Ten plies, where the solver decides many openings quickly.
        let decided = OpeningSource {
            plies: 10,
            undecided: Some(2_000),
            ..source
        };
        let kept = openings(Rules::STANDARD, &decided, 40).unwrap();
        let mut solver = Solver::new(MIN_HASH_MB);
        for m in kept.iter().take(5) {
            let g = Game::from_moves(Rules::STANDARD, m).unwrap();
            assert!(matches!(
                solver.prove_outcome(g.position(), 2_000),
                None | Some(Outcome::Draw)
            ));
        }
    }
}
