//! `c4engine.Player`: every agent of the project (random, greedy, minimax,
//! alphabeta with its evaluators and weights, expectimax, mcts, a
//! Q-learning model, the solver as the perfect player) choosing moves
//! in-process; and `c4engine.verdicts`, the solver's verdict on each move
//! of a game (the grader's and the replay's own function).

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use connect4::agents::{self, Agent, agent_spec};
use connect4::book::Book;
use connect4::score::Outcome;
use connect4::search::Limits;
use connect4::search::verdict::Judge;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::interrupt;
use crate::position::{PyPosition, open_position};
use crate::solver::outcome_name;

/// Agents whose move costs microseconds: chosen on the caller's thread,
/// with no thread of their own to stop (a Ctrl-C waits for the move).
const QUICK: [&str; 2] = ["random", "greedy"];

/// One of the project's agents as a player.
#[pyclass(module = "c4engine", name = "Player")]
pub struct PyPlayer {
    /// The agent (locked while it chooses: a Python object may be shared
    /// between threads).
    agent: Mutex<Box<dyn Agent>>,
    quick: bool,
    stop: Arc<AtomicBool>,
}

#[pymethods]
impl PyPlayer {
    /// The agent `spec` names, as the command line names it: 'random',
    /// 'greedy', 'alphabeta:depth=4,eval=windows', 'mcts:simulations=500',
    /// 'qlearning:model=FILE', 'perfect' (the solver), ...; `seed` makes a
    /// random agent repeat its games.
    #[new]
    #[pyo3(signature = (spec, *, seed = None))]
    fn new(spec: &str, seed: Option<u64>) -> PyResult<PyPlayer> {
        let spec = agent_spec(spec);
        let mut agent =
            agents::from_spec(&spec).map_err(|e| PyValueError::new_err(e.to_string()))?;
        agent.new_game(seed);
        let name = spec.split(':').next().unwrap_or("");
        Ok(PyPlayer {
            agent: Mutex::new(agent),
            quick: QUICK.contains(&name),
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Pickles as its spec: the copy is a fresh player of the same spec
    /// (so `copy.deepcopy` of an environment holding one works).
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let spec = slf.borrow().spec(py);
        Ok((slf.get_type().into_any(), (spec,)))
    }

    /// The spec that makes this player again.
    #[getter]
    fn spec(&self, py: Python<'_>) -> String {
        py.detach(|| self.agent().spec())
    }

    /// The player's column (from 0) in `position` (a Position or a move
    /// string), within `ms` milliseconds if given (the agents that search
    /// to a depth or a number of simulations take their own time).
    #[pyo3(signature = (position, ms = None))]
    fn choose(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        ms: Option<u64>,
    ) -> PyResult<u32> {
        let p = open_position(position, "there is no move to choose")?;
        let limits = ms.map_or_else(Limits::none, |ms| Limits::time(Duration::from_millis(ms)));
        // The agent is locked without the GIL, where the move is chosen:
        // a call of another thread waits for it without holding Python up.
        let stop = Arc::clone(&self.stop);
        let choose = || {
            let mut agent = self.agent();
            agent.check_rules(p.rules()).map_err(|e| e.to_string())?;
            let stop = (!self.quick).then_some(stop);
            Ok::<_, String>(agent.choose(&p, &limits, stop).column)
        };
        let chosen = match self.quick {
            true => py.detach(choose),
            false => interrupt::run(py, &self.stop, choose)?,
        };
        chosen.map_err(PyValueError::new_err)
    }

    /// A new game: the agent forgets the last one, and reseeds from `seed`
    /// if given.
    #[pyo3(signature = (seed = None))]
    fn new_game(&self, py: Python<'_>, seed: Option<u64>) {
        py.detach(|| self.agent().new_game(seed));
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Player('{}')", py.detach(|| self.agent().spec()))
    }
}

impl PyPlayer {
    /// The agent, locked (a panic in another thread's move leaves it as
    /// it was).
    fn agent(&self) -> MutexGuard<'_, Box<dyn Agent>> {
        self.agent.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// How long the judge may prove one position, and one game.
const POSITION_CAP: Duration = Duration::from_secs(5);
const GAME_CAP: Duration = Duration::from_secs(60);

/// The solver's verdict on each move of `position`'s game (its moves from
/// the empty board): a list of dicts with 'ply' (from 0), 'column', the
/// value for the mover 'before' and 'after' it ('win', 'draw', 'loss', or
/// None when not proven in time), 'lost' (whether the move gave the
/// value away) and 'keeping' (a column that would have kept it).
#[pyfunction]
pub fn verdicts<'py>(
    py: Python<'py>,
    position: &Bound<'py, PyAny>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let position = PyPosition::from_argument(position)?;
    let rules = position.position().rules();
    let moves = position.moves_from_zero();
    let stop = Arc::new(AtomicBool::new(false));
    let judged = interrupt::run(py, &stop, || {
        Judge::new(16, Some(Book::shipped()), POSITION_CAP, GAME_CAP).game(rules, &moves)
    })?;
    let name = |o: Option<Outcome>| o.map(outcome_name);
    judged
        .iter()
        .map(|v| {
            let d = PyDict::new(py);
            d.set_item("ply", v.ply)?;
            d.set_item("column", v.column)?;
            d.set_item("before", name(v.before))?;
            d.set_item("after", name(v.after))?;
            d.set_item("lost", v.lost_value())?;
            d.set_item("keeping", v.keeping)?;
            Ok(d)
        })
        .collect()
}
