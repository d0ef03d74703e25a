//! The players a test plays against, and how the arena starts them: the
//! reference opponents of `opponent = "..."` and the specs of the student's
//! own program or Python player.

use std::path::{Path, PathBuf};

use super::kind::SubmissionKind;
use connect4_match::spec::{EngineSpec, quote};

/// An `opponent = "..."` the grader cannot use; the message quotes it.
#[derive(Debug, thiserror::Error)]
pub enum OpponentError {
    /// `engine:` with nothing after it.
    #[error("'{0}': engine: needs a program")]
    NoProgram(String),
    /// `perfect:` with something other than `movetime=MS`.
    #[error("'{0}': expected perfect or perfect:movetime=MS (MS at least 1)")]
    Perfect(String),
    /// Not an agent this program has.
    #[error(
        "'{text}': {reason} (opponents: an agent such as random, greedy, \
         alphabeta:depth=4, mcts:simulations=1000; perfect:movetime=MS; \
         engine:PROGRAM; policy:FILE; kaggle:FILE)"
    )]
    Agent {
        /// The text as written.
        text: String,
        /// What the engine said of it.
        reason: connect4::engine::AgentError,
    },
}

/// A reference opponent.
#[derive(Clone, Debug, PartialEq)]
pub enum Opponent {
    /// One of this program's agents (`random`, `greedy`,
    /// `alphabeta:depth=4`, `mcts:simulations=1000`, ...).
    Agent(String),
    /// The perfect player (solver and book) at a time per move.
    Perfect {
        /// Milliseconds per move.
        movetime_ms: u64,
    },
    /// The instructor's own engine: a program and its arguments.
    Engine(PathBuf, Vec<String>),
    /// The instructor's own course policy.
    Policy(PathBuf),
    /// The instructor's own Kaggle agent.
    Kaggle(PathBuf),
}

/// The parameters of an agent's spec that name a file.
pub const FILE_PARAMS: [&str; 2] = ["weights", "model"];

/// An agent's spec with each relative file parameter (`weights=`,
/// `model=`) resolved against `base`, as the other opponents' files are.
fn files_from(text: &str, base: &Path) -> String {
    map_files(text, |value| {
        let path = Path::new(value);
        if path.is_absolute() {
            value.to_string()
        } else {
            base.join(path).display().to_string()
        }
    })
}

/// An agent's spec (`name:key=value,...`) with `f` applied to the value
/// of each file parameter.
pub fn map_files(text: &str, mut f: impl FnMut(&str) -> String) -> String {
    let Some((name, params)) = text.split_once(':') else {
        return text.to_string();
    };
    let params: Vec<String> = params
        .split(',')
        .map(|param| match param.split_once('=') {
            Some((key, value)) if FILE_PARAMS.contains(&key.trim()) => {
                format!("{key}={}", f(value.trim()))
            }
            _ => param.to_string(),
        })
        .collect();
    format!("{name}:{}", params.join(","))
}

impl Opponent {
    /// Whether it is one of the instructor's files (an engine, a policy, an
    /// agent), not a player this program has.
    pub fn is_a_file(&self) -> bool {
        matches!(
            self,
            Opponent::Engine(..) | Opponent::Policy(_) | Opponent::Kaggle(_)
        )
    }

    /// Reads `text` (see docs/grading.md); paths are relative to `base`.
    pub fn parse(text: &str, base: &Path) -> Result<Opponent, OpponentError> {
        let text = text.trim();
        let path = |rest: &str| {
            let p = Path::new(rest);
            if p.is_absolute() {
                p.to_path_buf()
            } else {
                base.join(p)
            }
        };
        if let Some(rest) = text.strip_prefix("engine:") {
            let mut words = rest.split_whitespace();
            let program = words
                .next()
                .ok_or_else(|| OpponentError::NoProgram(text.to_string()))?;
            return Ok(Opponent::Engine(
                path(program),
                words.map(str::to_string).collect(),
            ));
        }
        if let Some(rest) = text.strip_prefix("policy:") {
            return Ok(Opponent::Policy(path(rest)));
        }
        if let Some(rest) = text.strip_prefix("kaggle:") {
            return Ok(Opponent::Kaggle(path(rest)));
        }
        if text == "perfect" {
            return Ok(Opponent::Perfect { movetime_ms: 100 });
        }
        if let Some(rest) = text.strip_prefix("perfect:") {
            let ms = rest
                .strip_prefix("movetime=")
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|&ms| ms > 0)
                .ok_or_else(|| OpponentError::Perfect(text.to_string()))?;
            return Ok(Opponent::Perfect { movetime_ms: ms });
        }
        let text = files_from(text, base);
        connect4::engine::check_player_spec(&text).map_err(|reason| OpponentError::Agent {
            text: text.clone(),
            reason,
        })?;
        Ok(Opponent::Agent(text))
    }

    /// The instructor's file it runs, if it is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Opponent::Engine(p, _) | Opponent::Policy(p) | Opponent::Kaggle(p) => Some(p),
            Opponent::Agent(_) | Opponent::Perfect { .. } => None,
        }
    }

    /// A short name for test names and messages.
    pub fn label(&self) -> String {
        match self {
            // A file by its name only: the student sees no path of the
            // grader's machine.
            Opponent::Agent(a) => map_files(a, |file| {
                Path::new(file)
                    .file_name()
                    .map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned())
            }),
            Opponent::Perfect { movetime_ms } => format!("perfect:movetime={movetime_ms}"),
            Opponent::Engine(p, _) | Opponent::Policy(p) | Opponent::Kaggle(p) => p
                .file_name()
                .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into()),
        }
    }

    /// How the arena starts it; `python` runs the Python bridges, with the
    /// folders of `python_path` on the import path.
    pub fn spec(&self, python: &str, python_path: &[PathBuf]) -> EngineSpec {
        let name = self.label();
        let text = match self {
            Opponent::Agent(agent) => format!(
                "name={},cmd=self,movetime=2000,option.agent={}",
                quote(agent),
                quote(agent)
            ),
            Opponent::Perfect { movetime_ms } => {
                format!("name=perfect,cmd=self,movetime={movetime_ms}")
            }
            Opponent::Engine(program, args) => {
                program_spec(&name, &program.display().to_string(), args) + ",movetime=2000"
            }
            Opponent::Policy(file) | Opponent::Kaggle(file) => {
                let kind = if matches!(self, Opponent::Policy(_)) {
                    SubmissionKind::Policy
                } else {
                    SubmissionKind::Kaggle
                };
                let file = file.display().to_string();
                bridge_spec(&name, kind, python, &file, python_path) + ",movetime=2000"
            }
        };
        text.parse().expect("a valid built-in spec")
    }
}

/// The start of a spec (no limit yet) for `name` running `program` with
/// `args`.
pub fn program_spec(name: &str, program: &str, args: &[String]) -> String {
    let mut text = format!("name={},cmd={}", quote(name), quote(program));
    for a in args {
        text.push_str(&format!(",arg={}", quote(a)));
    }
    text
}

/// The start of a spec (no limit yet) for `name`, a Python player of
/// `kind` in `file` served by its bridge module under `python`, with the
/// folders of `python_path` on the import path.
pub fn bridge_spec(
    name: &str,
    kind: SubmissionKind,
    python: &str,
    file: &str,
    python_path: &[PathBuf],
) -> String {
    let module = kind.bridge_module().expect("a Python kind");
    let mut args = vec!["-m".to_string(), module.to_string(), file.to_string()];
    for folder in python_path {
        args.push("--path".into());
        args.push(folder.display().to_string());
    }
    program_spec(name, python, &args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_become_specs_with_their_arguments_in_order() {
        let engine: EngineSpec = (program_spec("me", "/sub/engine", &["a,b".into()])
            + ",movetime=5")
            .parse()
            .unwrap();
        assert_eq!(
            (engine.name.as_str(), engine.cmd.as_str()),
            ("me", "/sub/engine")
        );
        assert_eq!(engine.args, vec!["a,b".to_string()]);
        let policy = Opponent::Policy(PathBuf::from("/course/ref.py"))
            .spec("/venv/python3", &[PathBuf::from("/course/include")]);
        assert_eq!(policy.name, "ref.py");
        assert_eq!(policy.cmd, "/venv/python3");
        assert_eq!(
            policy.args,
            [
                "-m",
                "c4bridge.policy",
                "/course/ref.py",
                "--path",
                "/course/include"
            ]
        );
        assert_eq!(policy.movetime_ms, Some(2000));
    }
}
