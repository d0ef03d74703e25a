//! The levels: players of graded strength to practise against, or to
//! measure against, weakest first. Each is bounded by depth, simulations
//! or nodes, never by time, so that a level is as strong on a slow
//! machine as on a fast one. Their scores against each other are in
//! docs/python.md (scripts/measure-levels.py measures them).

/// The levels' players, level 1 first: `LEVELS[n - 1]` is level `n`.
/// `perfect` is the solver without limits ([`agent_spec`]).
pub const LEVELS: [&str; 7] = [
    "random",
    "greedy",
    "alphabeta:depth=4",
    "mcts:simulations=20000",
    "solver:nodes=2000",
    "solver:nodes=20000",
    "perfect",
];

/// The agent spec a player's name stands for: `perfect` (with or without
/// parameters) is the solver; any other name is its own spec.
pub fn agent_spec(spec: &str) -> String {
    match spec.strip_prefix("perfect") {
        Some(rest) if rest.is_empty() || rest.starts_with(':') => format!("solver{rest}"),
        _ => spec.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_is_an_agent_and_perfect_is_the_solver() {
        for spec in LEVELS {
            super::super::from_spec(&agent_spec(spec)).unwrap();
        }
        assert_eq!(agent_spec("perfect"), "solver");
        assert_eq!(agent_spec("perfect:movetime=5"), "solver:movetime=5");
        assert_eq!(agent_spec("perfectionist"), "perfectionist");
    }
}
