//! A language model of the caller's at Connect 4 (behind `c4engine.llm`):
//! a Python function of the conversation plays the project's players
//! through connect4-llm's games, judge and log, as `connect4-arena llm
//! play` plays a server's model.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use connect4::Rules;
use connect4_llm::model::{ChatError, Message, Model, Reply};
use connect4_llm::prompt::{Format, Style};
use connect4_llm::{judge, run};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::interrupt;

/// A Python function as the games' model: called with the conversation
/// (a list of dicts of 'role' and 'content'), it answers the text, or a
/// dict of 'content' and, if it knows them, 'prompt_tokens' and
/// 'completion_tokens' (and 'requests', the HTTP requests it took). The
/// first exception it raises ends the run and is
/// raised again to the caller.
struct PyModel {
    function: Py<PyAny>,
    name: String,
    raised: Mutex<Option<PyErr>>,
}

impl PyModel {
    /// Keeps the first exception, for the caller; the games see it as the
    /// model failing.
    fn failed(&self, e: PyErr) -> ChatError {
        let text = e.to_string();
        self.raised
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert(e);
        ChatError::Failed(text)
    }

    /// The reply in `answer`, the function's return value.
    fn reply_of(answer: &Bound<'_, PyAny>) -> PyResult<Reply> {
        let mut reply = Reply {
            text: String::new(),
            prompt_tokens: 0,
            completion_tokens: 0,
            requests: 1,
            elapsed: Default::default(),
        };
        if let Ok(text) = answer.cast::<PyString>() {
            reply.text = text.to_string();
        } else if let Ok(dict) = answer.cast::<PyDict>() {
            let content = dict.get_item("content")?.ok_or_else(|| {
                PyTypeError::new_err("the model's dict has no 'content' (its answer's text)")
            })?;
            reply.text = content
                .extract()
                .map_err(|_| PyTypeError::new_err("the model's 'content' must be a str"))?;
            let mut requests = 1;
            for (key, field) in [
                ("prompt_tokens", &mut reply.prompt_tokens),
                ("completion_tokens", &mut reply.completion_tokens),
                ("requests", &mut requests),
            ] {
                if let Some(n) = dict.get_item(key)?.filter(|n| !n.is_none()) {
                    *field = n.extract().map_err(|_| {
                        PyTypeError::new_err(format!(
                            "the model's '{key}' must be a whole number of 0 or more"
                        ))
                    })?;
                }
            }
            reply.requests = u32::try_from(requests).unwrap_or(u32::MAX).max(1);
        } else {
            return Err(PyTypeError::new_err(format!(
                "the model answered a {}: it must answer a str (its text) or a dict with \
                 'content'",
                answer.get_type().name()?
            )));
        }
        Ok(reply)
    }
}

impl Model for PyModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn ask(&self, messages: &[Message]) -> Result<Reply, ChatError> {
        let start = Instant::now();
        Python::attach(|py| {
            let asked = messages.iter().map(|m| {
                let d = PyDict::new(py);
                d.set_item("role", &m.role)?;
                d.set_item("content", &m.content)?;
                Ok::<_, PyErr>(d)
            });
            let asked = PyList::new(py, asked.collect::<PyResult<Vec<_>>>()?)?;
            let answer = self.function.call1(py, (asked,))?;
            PyModel::reply_of(answer.bind(py))
        })
        .map(|reply| Reply {
            elapsed: start.elapsed(),
            ..reply
        })
        .map_err(|e| self.failed(e))
    }
}

/// What `c4engine.llm.play` asks (a dict), its defaults given there.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct Asked {
    name: String,
    against: Vec<String>,
    games: u32,
    log: PathBuf,
    prompt: String,
    legal_moves: bool,
    columns_from: u32,
    retries: u32,
    concurrency: usize,
    max_total_tokens: Option<u64>,
    opponent_movetime_ms: u64,
    seed: u64,
    rules: String,
}

impl Asked {
    /// The prompt's style, or why the arguments give none.
    fn style(&self) -> PyResult<Style> {
        let format = match self.prompt.as_str() {
            "board" => Format::Board,
            "moves" => Format::Moves,
            other => {
                return Err(PyValueError::new_err(format!(
                    "prompt {other:?}: expected 'board' or 'moves'"
                )));
            }
        };
        if self.columns_from > 1 {
            return Err(PyValueError::new_err(format!(
                "columns_from {}: expected 0 or 1",
                self.columns_from
            )));
        }
        Ok(Style {
            format,
            legal_moves: self.legal_moves,
            first_column: self.columns_from,
        })
    }

    /// The checks the command line makes of its arguments.
    fn check(&self) -> PyResult<Rules> {
        for spec in &self.against {
            connect4::agents::from_spec(spec)
                .map_err(|e| PyValueError::new_err(format!("against {spec:?}: {e}")))?;
        }
        if self.against.is_empty() {
            return Err(PyValueError::new_err("against: no opponent given"));
        }
        if !(1..=10_000).contains(&self.games) {
            return Err(PyValueError::new_err(format!(
                "games {}: expected 1 to 10000",
                self.games
            )));
        }
        if self.name.trim().is_empty() {
            return Err(PyValueError::new_err("name: the model needs a name"));
        }
        self.rules
            .parse()
            .map_err(|e| PyValueError::new_err(format!("rules {:?}: {e}", self.rules)))
    }
}

/// Plays `model` (a function, see [`PyModel`]) as `asked` says and judges
/// its moves; the summary (as `llm report --json` prints it) with 'left'
/// (games of the schedule not played) and 'why_left', as JSON.
#[pyfunction]
pub fn llm_play(py: Python<'_>, model: Py<PyAny>, asked: Asked) -> PyResult<String> {
    let rules = asked.check()?;
    let style = asked.style()?;
    let model = PyModel {
        function: model,
        name: asked.name.clone(),
        raised: Mutex::new(None),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let terms = run::Terms {
        model: &asked.name,
        against: &asked.against,
        games: asked.games,
        style,
        retries: asked.retries,
        seed: asked.seed,
        rules,
        opponent_movetime_ms: asked.opponent_movetime_ms,
        temperature: None,
    };
    let ended = interrupt::run(py, &stop, || {
        let plan = run::Plan::new(
            &terms,
            &model,
            asked.concurrency,
            asked.max_total_tokens,
            Some(&stop),
        );
        run::play(&plan, &asked.log).map_err(|e| format!("{e:#}"))
    })?;
    if let Some(e) = model.raised.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let ended = ended.map_err(PyValueError::new_err)?;
    let mut summary = serde_json::to_value(judge::summary(&ended.lines))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    summary["left"] = ended.left.into();
    summary["why_left"] = ended.why_left.into();
    Ok(summary.to_string())
}

/// The summary of a model's log `path`, as JSON (`llm report --json`).
#[pyfunction]
pub fn llm_report(path: PathBuf) -> PyResult<String> {
    let summary = judge::report_of(&path).map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
    serde_json::to_string(&summary).map_err(|e| PyValueError::new_err(e.to_string()))
}
