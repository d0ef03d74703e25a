//! The API's handlers: each reads its query with axum's extractor into
//! [`Params`], checks it into the command line's types (a board, a move
//! string, numbers), and answers JSON. The work that may take a while (an
//! analysis, a game's verdicts, an engine's move, the standings) runs on
//! one of the answering threads; what costs nothing (a position's state,
//! the engines' names) is answered at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{Method, Uri};
use connect4::Rules;
use serde::Deserialize;
use serde_json::Value;

use crate::error::ApiResult;
use crate::error::{ApiError, shorten};
use crate::{Served, analysis, solve, standings};

/// A JSON answer or the error that says why not.
pub type Answer = Result<Json<Value>, ApiError>;

/// The query's parameters, as text; each handler reads the ones it needs.
#[derive(Debug, Default, Deserialize)]
pub struct Params {
    rules: Option<String>,
    moves: Option<String>,
    pos: Option<String>,
    column: Option<String>,
    deep: Option<String>,
    log: Option<String>,
    game: Option<String>,
    engine: Option<String>,
    name: Option<String>,
    anchor: Option<String>,
    level: Option<String>,
    seed: Option<String>,
}

/// The query as axum's extractor read it.
type Asked = Result<Query<Params>, QueryRejection>;

impl Params {
    /// The parameters of `asked`, or why they cannot be read.
    fn of(asked: Asked) -> Result<Params, ApiError> {
        asked
            .map(|Query(p)| p)
            .map_err(|e| ApiError::Query(e.body_text()))
    }

    /// The position: `moves` (the command line's move string), or `pos`
    /// as the page's address writes it.
    fn moves(&self) -> Result<String, ApiError> {
        self.moves
            .clone()
            .or_else(|| self.pos.clone())
            .ok_or(ApiError::Missing("moves"))
    }

    /// The board: `rules` (`7x6x4`, `7x7`), the standard one if not given.
    fn rules(&self) -> Result<Rules, ApiError> {
        match &self.rules {
            Some(text) => Ok(text.parse()?),
            None => Ok(Rules::STANDARD),
        }
    }

    /// The number `name` of the query, given as `text`, if given.
    fn number(name: &'static str, text: &Option<String>) -> Result<Option<u64>, ApiError> {
        text.as_deref()
            .map(|t| {
                t.parse().map_err(|_| ApiError::NotANumber {
                    name,
                    value: shorten(t),
                })
            })
            .transpose()
    }

    /// The number `name` of the query, given as `text`, which the request
    /// must give.
    fn required(name: &'static str, text: &Option<String>) -> Result<u64, ApiError> {
        Params::number(name, text)?.ok_or(ApiError::Missing(name))
    }

    /// What `/api/analyze` is asked: the board, the position, one column
    /// or all, and whether to prove.
    fn question(&self) -> Result<analysis::Question, ApiError> {
        let rules = self.rules()?;
        let column = match Params::number("column", &self.column)? {
            Some(n) if !(1..=u64::from(rules.columns())).contains(&n) => {
                return Err(ApiError::Column {
                    column: n,
                    columns: rules.columns(),
                });
            }
            n => n.map(|n| n as u32),
        };
        Ok(analysis::Question {
            rules,
            moves: self.moves()?,
            column,
            deep: self.deep.as_deref() == Some("1"),
            stop: None,
        })
    }
}

/// `/api/position`: the position's state, at once.
pub async fn position(asked: Asked) -> Answer {
    let p = Params::of(asked)?;
    analysis::describe(p.rules()?, &p.moves()?).map(Json)
}

/// `/api/analyze`: every column's score, or one column's proof.
pub async fn analyze(asked: Asked) -> Answer {
    let question = Params::of(asked)?.question()?;
    on_a_thread(move |left| {
        analysis::analyze(&analysis::Question {
            stop: Some(Arc::clone(left)),
            ..question
        })
    })
    .await
}

/// `/solve`: every column's exact score, in the shape of Pons' web
/// solver, and a level's move (see [`solve`]).
pub async fn solve(asked: Asked) -> Answer {
    let p = Params::of(asked)?;
    let question = solve::Question {
        rules: p.rules()?,
        // No position is the empty board, as Pons' solver takes it.
        pos: p.moves().unwrap_or_default(),
        level: Params::number("level", &p.level)?,
        seed: Params::number("seed", &p.seed)?,
    };
    on_a_thread(move |left| solve::solve(&question, left)).await
}

/// `/api/games`: the logs' games, and how far the judging is.
pub async fn games(State(served): State<Arc<Served>>) -> Answer {
    on_a_thread(move |_| Ok(served.library.list())).await
}

/// `/api/game`: one game with the solver's verdict on each move.
pub async fn game(State(served): State<Arc<Served>>, asked: Asked) -> Answer {
    let p = Params::of(asked)?;
    let log = Params::required("log", &p.log)? as usize;
    let game = Params::required("game", &p.game)?;
    on_a_thread(move |_| served.library.game(log, game)).await
}

/// `/api/live`: a log's standings (the first log's unless `log` says).
pub async fn live(State(served): State<Arc<Served>>, asked: Asked) -> Answer {
    let log = Params::number("log", &Params::of(asked)?.log)?.unwrap_or(1) as usize;
    on_a_thread(move |_| standings::standings(&served.library, served.run.as_ref(), log)).await
}

/// `/api/engines`: the engines' names, at once.
pub async fn engines(State(served): State<Arc<Served>>) -> Answer {
    Ok(Json(served.opponents.list()))
}

/// `/api/move`: an engine's move in a position.
pub async fn play(State(served): State<Arc<Served>>, asked: Asked) -> Answer {
    let p = Params::of(asked)?;
    let engine = Params::required("engine", &p.engine)? as usize;
    let (rules, moves) = (p.rules()?, p.moves()?);
    on_a_thread(move |_| served.opponents.play(engine, rules, &moves)).await
}

/// `/api/league`: the league's ladder, read from its database now.
pub async fn league(State(served): State<Arc<Served>>) -> Answer {
    on_a_thread(move |_| {
        let shown = served.league.as_ref().ok_or(ApiError::NoLeague)?;
        let mut ladder = shown
            .league
            .ladder()
            .map_err(|e| ApiError::League(e.to_string()))?;
        ladder["log"] = shown.log.into();
        Ok(ladder)
    })
    .await
}

/// `/api/league/student`: the page of the student `name` (of the anchor
/// so named with `anchor=1`).
pub async fn student(State(served): State<Arc<Served>>, asked: Asked) -> Answer {
    let p = Params::of(asked)?;
    let name = p.name.ok_or(ApiError::Missing("name"))?;
    let anchor = Params::number("anchor", &p.anchor)?.unwrap_or(0) == 1;
    on_a_thread(move |_| {
        let shown = served.league.as_ref().ok_or(ApiError::NoLeague)?;
        let page = shown
            .league
            .student(&name, anchor)
            .map_err(|e| ApiError::League(e.to_string()))?;
        let mut page = page.ok_or_else(|| ApiError::NoStudent {
            what: if anchor { "anchor" } else { "student" },
            name: shorten(&name),
        })?;
        page["log"] = shown.log.into();
        Ok(page)
    })
    .await
}

/// Any other path: 404, or 405 for another method than GET.
pub async fn elsewhere(method: Method, uri: Uri) -> ApiError {
    if method == Method::GET || method == Method::HEAD {
        ApiError::NoPage(shorten(uri.path()))
    } else {
        ApiError::Method
    }
}

/// Runs `work` on one of the answering threads. The flag it is given is
/// raised when the request's future is dropped (its client went away):
/// a long analysis stops, and work whose client left before it started
/// is not done at all.
async fn on_a_thread<F>(work: F) -> Answer
where
    F: FnOnce(&Arc<AtomicBool>) -> ApiResult + Send + 'static,
{
    let left = Arc::new(AtomicBool::new(false));
    let _departure = Departure(Arc::clone(&left));
    let task = tokio::task::spawn_blocking(move || {
        if left.load(Ordering::Relaxed) {
            return Ok(Value::Null);
        }
        work(&left)
    });
    match task.await {
        Ok(reply) => reply.map(Json),
        Err(_) => Err(ApiError::Failed),
    }
}

/// Raises its flag when dropped: when the request's future is dropped
/// (its client went away) or done.
struct Departure(Arc<AtomicBool>);

impl Drop for Departure {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
