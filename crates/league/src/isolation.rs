//! How the league runs its students' code: each student as a user of
//! their own, in a [`connect4_grade::contain::Cell`] per game (limits, a
//! clean environment, the memory watch, every process of the user killed
//! when the game ends), their copy readable and not writable by them and
//! closed to everyone else; or, when the instructor says `--no-isolation`
//! in words, as the league's own user, which the ladder and the page then
//! say. Anchors are the project's own engines and run as the league's
//! user, which no student's user can signal.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use connect4_grade::config::Config;
use connect4_grade::contain::{Cell, Containment};
use connect4_match::sandbox::Account;
use connect4_match::spec::EngineSpec;

use crate::store::{Player, Store};

/// The note the database keeps once a run played without isolation.
pub const NOTE: &str = "isolation off";

/// What the ladder and the page say of a league some of whose games ran
/// without isolation.
pub const WARNING: &str = "isolation was off (--no-isolation) for some of this league's games: \
    students' code ran as the league's own user and could have read or changed the league's \
    files, other students' code, and results";

/// Whether the league contains its students' code.
pub enum Isolation {
    /// Each student as a user of their own.
    On(Containment),
    /// As the league's own user (`--no-isolation`).
    Off,
}

/// One side of a game, with what containing it needs.
pub struct Entrant {
    /// How the side runs.
    pub spec: EngineSpec,
    /// A student's number and the folder of their copy; `None` for an
    /// anchor.
    pub student: Option<(u32, PathBuf)>,
}

impl Isolation {
    /// Containment with `config`'s limits and the uids from `base`, unless
    /// `off` (then the store keeps a note that it was off, for the ladder
    /// and the page); an error that says why when it cannot be had.
    pub fn new(off: bool, config: &Config, base: u32, store: Option<&Store>) -> Result<Isolation> {
        if off {
            eprintln!("league: {WARNING}");
            if let Some(store) = store {
                store.set_note(NOTE, "yes")?;
            }
            return Ok(Isolation::Off);
        }
        Ok(Isolation::On(connect4_grade::containment(config, base)?))
    }

    /// Seals the copy of student number `slot` in `dir` (see
    /// [`Containment::seal`]), the folders above it up to the league's
    /// passable; nothing without isolation.
    pub fn seal(&self, slot: u32, dir: &Path) -> Result<()> {
        if let Isolation::On(c) = self {
            c.seal(dir, &c.account(slot)?)?;
            for above in dir.ancestors().skip(1).take(2) {
                connect4_grade::contain::open_to_traverse(above)?;
            }
        }
        Ok(())
    }

    /// Whether the students' code is contained.
    pub fn is_on(&self) -> bool {
        matches!(self, Isolation::On(_))
    }

    /// The specs of `seats` ready to play one game, and the cells that
    /// hold their students' users until it ends (dropped, they kill
    /// everything of those users). A student on both sides has one cell;
    /// cells are entered in the order of their uids, so that two games
    /// waiting on each other's students never deadlock.
    pub fn seat<const N: usize>(
        &self,
        seats: [Entrant; N],
    ) -> Result<([EngineSpec; N], Vec<Cell>)> {
        let Isolation::On(contain) = self else {
            return Ok((seats.map(|s| s.spec), Vec::new()));
        };
        let mut students: Vec<(Account, PathBuf)> = Vec::new();
        for (slot, code) in seats.iter().filter_map(|s| s.student.as_ref()) {
            let account = contain.account(*slot)?;
            if !students.iter().any(|(a, _)| a.uid == account.uid) {
                students.push((account, code.clone()));
            }
        }
        students.sort_by_key(|(a, _)| a.uid);
        let mut cells = Vec::new();
        for (account, code) in &students {
            cells.push((account.uid, contain.enter(account, Some(code))?));
        }
        let specs = seats.map(|seat| {
            let mut spec = seat.spec;
            if let Some((slot, _)) = seat.student {
                let uid = contain.account(slot).map(|a| a.uid).ok();
                spec.sandbox = cells
                    .iter()
                    .find(|(u, _)| Some(*u) == uid)
                    .map(|(_, c)| c.sandbox());
            }
            spec
        });
        Ok((specs, cells.into_iter().map(|(_, c)| c).collect()))
    }
}

/// The folder of the league's copy of `player`'s submission.
pub fn copy_of(copies: &Path, player: &Player) -> PathBuf {
    copies
        .join(&player.student)
        .join(format!("v{}", player.version))
}

/// Closes the league's folder `dir` to the students' users: new files
/// only its user's (umask 077), the files already there too, and the
/// folder itself passable (0711) so that a student reaches their own
/// copy by its path and lists nothing.
pub fn close_league_folder(dir: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    private_umask();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            continue;
        }
        let path = entry.path();
        let mode = entry.metadata()?.permissions().mode() & 0o7777;
        let closed = match path.file_name().is_some_and(|n| n == "submissions") {
            true => 0o711,
            false => mode & 0o700,
        };
        if mode != closed {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(closed))
                .with_context(|| format!("closing {}", path.display()))?;
        }
    }
    connect4_grade::contain::open_to_traverse(dir)?;
    Ok(())
}

/// Every folder above `dir` lets other users pass (the students' users
/// must reach their copies in it); which one does not, if any.
pub fn check_passable(dir: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let absolute = dir
        .canonicalize()
        .with_context(|| format!("reading {}", dir.display()))?;
    for above in absolute.ancestors().skip(1) {
        let mode = std::fs::metadata(above)
            .with_context(|| format!("reading {}", above.display()))?
            .permissions()
            .mode();
        if mode & 0o001 == 0 {
            anyhow::bail!(
                "the league's folder {} lies in {}, which other users cannot pass (mode {:o}): \
                 the students' users could not reach their copies; put the league elsewhere, or \
                 chmod o+x {}",
                dir.display(),
                above.display(),
                mode & 0o7777,
                above.display()
            );
        }
    }
    Ok(())
}

/// From now on, files and folders this process makes are its user's
/// alone (umask 077).
#[allow(unsafe_code)]
fn private_umask() {
    // SAFETY: umask only sets this process's file creation mask.
    unsafe {
        libc::umask(0o077);
    }
}
