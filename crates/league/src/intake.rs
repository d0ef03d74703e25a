//! New submissions into the league: the drop folder holds one folder per
//! student (as `grade --submissions` reads it); a folder whose files
//! changed since the student's last entry is a new submission. It is
//! copied into the league's own folder (so later changes to the drop
//! folder touch nothing the league runs), then checked: it must start and
//! answer, and play a whole game against itself without a forfeit. A
//! submission that passes replaces the student's last one, with a new
//! rating (a resubmission starts afresh); one that fails is kept as
//! rejected, with why, and not checked again until it changes.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, Result};
use connect4::Rules;
use connect4_grade::class::student_folders;
use connect4_grade::config::Config;
use connect4_grade::submission::Refusal;
use connect4_match::play::{GameSetup, Seat, play_game};
use connect4_match::spec::EngineSpec;
use sha2::{Digest, Sha256};

use crate::isolation::{Entrant, Isolation};
use crate::kinds::State;
use crate::rating::Rating;
use crate::store::{Player, Store};

/// What the intake needs: where submissions are dropped, where the league
/// keeps its copies, how they run.
pub struct Intake<'a> {
    /// The drop folder: one folder per student.
    pub drop: &'a Path,
    /// The league's copies of the submissions.
    pub copies: PathBuf,
    /// The grading config: the kind of submission, its file, the clock.
    pub config: &'a Config,
    /// The Python that runs policies and Kaggle agents.
    pub python: &'a str,
    /// How the students' code runs.
    pub isolation: &'a Isolation,
}

/// What the intake did with one folder.
#[derive(Debug, PartialEq)]
pub enum Entry {
    /// A new submission entered the ladder.
    Entered(String),
    /// A new submission was refused, and why.
    Rejected(String, String),
}

impl Intake<'_> {
    /// Checks every student folder of the drop folder against the league's
    /// players and takes in the new submissions.
    pub fn scan(&self, store: &mut Store) -> Result<Vec<Entry>> {
        let players = store.players()?;
        let mut entries = Vec::new();
        for student in student_folders(self.drop)? {
            let folder = self.drop.join(&student);
            // A folder that cannot be read as a submission (a FIFO, a link,
            // too large) is refused with why; its "fingerprint" is the
            // reason, so that it is told once, and again when it changes.
            let (fingerprint, unreadable) = match fingerprint(&folder) {
                Ok(f) => (f, None),
                Err(why) => {
                    let why = format!("{why:#}");
                    (format!("refused: {why}"), Some(why))
                }
            };
            let latest = players
                .iter()
                .filter(|p| !p.anchor && p.student == student)
                .max_by_key(|p| p.version);
            if latest.is_some_and(|p| p.fingerprint == fingerprint) {
                continue;
            }
            let version = latest.map_or(1, |p| p.version + 1);
            entries.push(match unreadable {
                None => self.take_in(store, &student, version, fingerprint)?,
                Some(why) => record(store, &student, version, fingerprint, Err(Refusal(why)))?,
            });
        }
        Ok(entries)
    }

    /// Copies, checks and records submission `version` of `student`.
    fn take_in(
        &self,
        store: &mut Store,
        student: &str,
        version: i64,
        fingerprint: String,
    ) -> Result<Entry> {
        let copy = self.copies.join(student).join(format!("v{version}"));
        let folder = copy.parent().expect("a student's folder");
        std::fs::create_dir_all(folder).with_context(|| format!("creating {}", copy.display()))?;
        let slot = store.slot_of(student)?;
        // One copy a student: the one in play. Earlier versions' copies
        // go (their games are over or dropped), so that the disk holds
        // what the league runs and no more.
        for entry in
            std::fs::read_dir(folder).with_context(|| format!("reading {}", folder.display()))?
        {
            let path = entry?.path();
            std::fs::remove_dir_all(&path)
                .with_context(|| format!("clearing {}", path.display()))?;
        }
        let checked = connect4_match::sandbox::copy_for(&self.drop.join(student), &copy, None)
            .map_err(|e| Refusal(e.to_string()))
            .and_then(|()| connect4_grade::submission::spec(self.config, &copy, self.python, None))
            .and_then(|mut spec| {
                spec.name = student.to_string();
                self.isolation
                    .seal(slot, &copy)
                    .map_err(|e| Refusal(format!("{e:#}")))?;
                let seat = Entrant {
                    spec,
                    student: Some((slot, copy.clone())),
                };
                let ([spec], cells) = self
                    .isolation
                    .seat([seat])
                    .map_err(|e| Refusal(format!("{e:#}")))?;
                let validated = validate(&spec, self.config);
                drop(cells);
                validated.map(|()| spec)
            });
        let checked = checked.map_err(|why| Refusal(for_the_page(&why.0, &copy)));
        if checked.is_err() {
            std::fs::remove_dir_all(&copy).ok();
        }
        record(store, student, version, fingerprint, checked)
    }
}

/// Records submission `version` of `student` as it was checked: active
/// with its spec, or refused with why.
fn record(
    store: &mut Store,
    student: &str,
    version: i64,
    fingerprint: String,
    checked: Result<EngineSpec, Refusal>,
) -> Result<Entry> {
    let (state, spec, note) = match &checked {
        Ok(spec) => (State::Active, spec.text.clone(), None),
        Err(why) => (State::Rejected, String::new(), Some(why.0.clone())),
    };
    store.add_player(&Player {
        id: 0,
        student: student.to_string(),
        anchor: false,
        version,
        fingerprint,
        spec,
        state,
        note,
        rating: Rating::default(),
    })?;
    Ok(match checked {
        Ok(_) => Entry::Entered(student.to_string()),
        Err(why) => Entry::Rejected(student.to_string(), why.0),
    })
}

/// Why a submission was refused, as the league's pages show it: plain
/// text (the grader's code fences left out; the page keeps the lines), and
/// its files named as the student named them (`policy.py`, not the
/// league's copy of it at `copy`).
fn for_the_page(why: &str, copy: &Path) -> String {
    let folder = format!("{}/", copy.display());
    why.lines()
        .filter(|l| !l.trim_start().starts_with("```"))
        .map(|l| l.replace(&folder, ""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `spec` starts, answers, and plays a whole game against itself
/// with no forfeit; why not.
fn validate(spec: &EngineSpec, config: &Config) -> Result<(), Refusal> {
    let terms = connect4_grade::terms::Terms::of(config.submission.kind);
    connect4_grade::submission::starts(spec, terms)?;
    let margin = Duration::from_millis(config.margin_ms);
    let mut first = Seat::new(spec.clone(), margin);
    let mut second = Seat::new(spec.clone(), margin);
    let abort = AtomicBool::new(false);
    let setup = GameSetup {
        rules: Rules::STANDARD,
        opening: &connect4::MoveList::new(),
        seed: 1,
        adjudicator: None,
        abort: &abort,
        on_move: None,
    };
    let game = play_game(setup, &mut first, &mut second)
        .ok_or_else(|| Refusal("the validation game was abandoned".into()))?;
    match game.end.reason.is_forfeit() {
        false => Ok(()),
        true => Err(Refusal(format!(
            "the validation game against itself was lost: {}",
            terms.failure(game.end.reason, game.end.detail.as_deref().unwrap_or(""))
        ))),
    }
}

/// A hash of a folder's files: their paths and contents, so that any
/// change (and only a change) makes a new submission. The folder is
/// refused as its copy would be ([`connect4_match::sandbox::submission_files`]).
fn fingerprint(folder: &Path) -> Result<String> {
    let mut files: Vec<(String, PathBuf, u64)> = connect4_match::sandbox::submission_files(folder)?
        .into_iter()
        .map(|(path, len)| {
            let relative = path.strip_prefix(folder).unwrap_or(&path);
            (relative.to_string_lossy().into_owned(), path.clone(), len)
        })
        .collect();
    files.sort();
    let mut hash = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    for (relative, path, len) in &files {
        let file = connect4_match::sandbox::open_regular(path)?;
        hash.update(relative.as_bytes());
        hash.update([0]);
        hash.update(len.to_le_bytes());
        let mut reader = std::io::Read::take(file, *len);
        loop {
            let n = std::io::Read::read(&mut reader, &mut buffer)
                .with_context(|| format!("reading {}", path.display()))?;
            if n == 0 {
                break;
            }
            hash.update(&buffer[..n]);
        }
    }
    Ok(hash.finalize().iter().map(|b| format!("{b:02x}")).collect())
}
