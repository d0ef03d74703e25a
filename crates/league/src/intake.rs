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
use connect4_match::play::{GameSetup, Seat, play_game};
use connect4_match::spec::EngineSpec;
use sha2::{Digest, Sha256};

use crate::rating::Rating;
use crate::store::{Player, Store};

/// A submission's files may weigh this much at most (room for an engine
/// built on connect4, with its 58 MiB book).
const MOST_BYTES: u64 = 256 << 20;
/// And number this many.
const MOST_FILES: usize = 10_000;

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
            let fingerprint = match fingerprint(&folder) {
                Ok(f) => f,
                Err(why) => {
                    eprintln!("league: {student}: {why:#}");
                    continue;
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
            entries.push(self.take_in(store, &student, version, fingerprint)?);
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
        std::fs::create_dir_all(copy.parent().expect("a student's folder"))
            .with_context(|| format!("creating {}", copy.display()))?;
        if copy.exists() {
            std::fs::remove_dir_all(&copy)
                .with_context(|| format!("clearing {}", copy.display()))?;
        }
        connect4_match::sandbox::copy_for(&self.drop.join(student), &copy, None)
            .with_context(|| format!("copying {student}'s submission"))?;
        let checked = connect4_grade::submission::spec(self.config, &copy, self.python, None)
            .map_err(|r| r.0)
            .and_then(|mut spec| {
                spec.name = student.to_string();
                validate(&spec, self.config).map(|()| spec)
            });
        let (state, note, spec) = match &checked {
            Ok(spec) => ("active", None, spec.text.clone()),
            Err(why) => ("rejected", Some(why.clone()), String::new()),
        };
        store.add_player(&Player {
            id: 0,
            student: student.to_string(),
            anchor: false,
            version,
            fingerprint,
            spec,
            state: state.to_string(),
            note,
            rating: Rating::default(),
        })?;
        Ok(match checked {
            Ok(_) => Entry::Entered(student.to_string()),
            Err(why) => Entry::Rejected(student.to_string(), why),
        })
    }
}

/// Whether `spec` starts, answers, and plays a whole game against itself
/// with no forfeit; why not.
fn validate(spec: &EngineSpec, config: &Config) -> Result<(), String> {
    let terms = connect4_grade::terms::Terms::of(config.submission.kind);
    connect4_grade::submission::starts(spec, terms).map_err(|r| r.0)?;
    let margin = Duration::from_millis(config.margin_ms);
    let mut first = Seat::new(spec.clone(), margin);
    let mut second = Seat::new(spec.clone(), margin);
    let abort = AtomicBool::new(false);
    let setup = GameSetup {
        rules: Rules::STANDARD,
        opening: "",
        seed: 1,
        adjudicator: None,
        abort: &abort,
        on_move: None,
    };
    let game = play_game(setup, &mut first, &mut second)
        .ok_or_else(|| "the validation game was abandoned".to_string())?;
    match game.end.reason.is_forfeit() {
        false => Ok(()),
        true => Err(format!(
            "the validation game against itself was lost: {}",
            terms.failure(game.end.reason, game.end.detail.as_deref().unwrap_or(""))
        )),
    }
}

/// A hash of a folder's files: their paths and contents, so that any
/// change (and only a change) makes a new submission.
fn fingerprint(folder: &Path) -> Result<String> {
    let mut files = Vec::new();
    collect(folder, folder, &mut files)?;
    files.sort();
    let mut hash = Sha256::new();
    let mut bytes = 0;
    for (relative, path) in &files {
        let content = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        bytes += content.len() as u64;
        if bytes > MOST_BYTES {
            anyhow::bail!(
                "{}: over {} MB of files",
                folder.display(),
                MOST_BYTES >> 20
            );
        }
        hash.update(relative.as_bytes());
        hash.update([0]);
        hash.update((content.len() as u64).to_le_bytes());
        hash.update(&content);
    }
    Ok(hash.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The regular files under `folder` (links not followed), with their paths
/// relative to `root`.
fn collect(root: &Path, folder: &Path, files: &mut Vec<(String, PathBuf)>) -> Result<()> {
    for entry in
        std::fs::read_dir(folder).with_context(|| format!("reading {}", folder.display()))?
    {
        let entry = entry.with_context(|| format!("reading {}", folder.display()))?;
        let kind = entry.file_type()?;
        let path = entry.path();
        if kind.is_dir() {
            collect(root, &path, files)?;
        } else if kind.is_file() {
            let relative = path.strip_prefix(root).unwrap_or(&path);
            files.push((relative.to_string_lossy().into_owned(), path));
        }
        if files.len() > MOST_FILES {
            anyhow::bail!("{}: over {MOST_FILES} files", root.display());
        }
    }
    Ok(())
}
