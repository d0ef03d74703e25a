//! What students submit: the kind of submission, the file graded, the
//! bridge that serves a Python player, and the time per move by default.
//! Below both the sections (which name it) and the opponents' specs
//! (which serve a Python opponent as a submission of its kind is served).

use serde::Deserialize;

/// What students submit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubmissionKind {
    /// A program speaking the connect4 protocol.
    #[default]
    Engine,
    /// A course `Policy` class (`mount()`, `act(board)`) in Python.
    Policy,
    /// A Kaggle ConnectX `agent(obs, config)` in Python.
    Kaggle,
}

impl SubmissionKind {
    /// The kind's name in configs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SubmissionKind::Engine => "engine",
            SubmissionKind::Policy => "policy",
            SubmissionKind::Kaggle => "kaggle",
        }
    }

    /// The file in the submission graded when the config names none.
    pub fn default_executable(self) -> &'static str {
        match self {
            SubmissionKind::Engine => "engine",
            SubmissionKind::Policy => "policy.py",
            SubmissionKind::Kaggle => "main.py",
        }
    }

    /// The bridge module that serves a Python player of this kind (none
    /// for engines).
    pub(super) fn bridge_module(self) -> Option<&'static str> {
        match self {
            SubmissionKind::Engine => None,
            SubmissionKind::Policy => Some("c4bridge.policy"),
            SubmissionKind::Kaggle => Some("c4bridge.kaggle"),
        }
    }

    /// Time per move when the config gives none: Python starts slower and
    /// course policies are not tuned for speed.
    pub(super) fn default_move_ms(self) -> u64 {
        match self {
            SubmissionKind::Engine => 100,
            SubmissionKind::Policy | SubmissionKind::Kaggle => 1000,
        }
    }
}
