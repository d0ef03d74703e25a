//! One containment for student code wherever it plays outside a single
//! Gradescope grading: the league's validation, ladder and final games,
//! its Slurm tasks, and tournaments of student engines.
//!
//! Each student runs as a user of their own: uid (and gid) `base + slot`,
//! a number no account of the machine uses (root may run a process as any
//! uid; none needs a line in `/etc/passwd`). A student's copy of their
//! submission belongs to root and to the student's group, readable and
//! not writable by the student, closed to everyone else
//! ([`Containment::seal`]): a classmate's code, running as another user,
//! can neither read nor change it, nor signal its processes. Each game
//! enters a [`Cell`] per student: the student's user held for that game
//! alone (a file lock, so two games of one student never overlap and the
//! kill after one never ends the other), a home folder of its own, the
//! config's resource limits, a clean environment, and the total memory
//! watch; when the game ends every process of the user is killed (those
//! that left the game's process group with `setsid` or a double fork
//! too, since they keep the uid) and its shared memory removed.
//!
//! What is not contained: files every user may read (the machine's own,
//! and the instructor's if their folders are open to all: the league and
//! the class grading close the folders they are given, see
//! [`crate::sandbox::close_to_others`]), the network, and the
//! machine's CPU time beyond the clock.

use std::path::{Path, PathBuf};

use crate::group::ResourceLimits;
use crate::sandbox::{self, Account, Sandbox, UserLock};

use crate::memory_watch::MemoryWatch;

/// The first uid of the students' users unless told otherwise.
pub const DEFAULT_BASE_UID: u32 = 61_000;
/// The uids a containment uses from its base: students' (or engines'
/// groups) below [`ENGINE_USERS`], engines' users above.
pub const SLOTS: u32 = 4_000;
/// Engines (programs a run was given) that a containment holds: in a
/// tournament, engine `e` on the run's lane `l` of `lanes` (its games at
/// once) runs as uid `base + 1000 + e * lanes + l`, in group `base + e`,
/// which its copy belongs to.
pub const ENGINE_USERS: u32 = 1000;
/// Engines times games at once a containment holds.
const ENGINE_SLOTS: u32 = SLOTS - ENGINE_USERS;

/// Why student code cannot be contained here.
#[derive(Debug, thiserror::Error)]
pub enum ContainError {
    /// Not root: no other user can be had.
    #[error(
        "student code cannot be contained here: this program is not running as root, and only \
         root can run code as other users (run it as root; or, to run the students' code as \
         your own user, able to read and change your files and each other's, say \
         --no-isolation to a league or a class grading, and leave --isolate out of a match)"
    )]
    NotRoot(sandbox::NotRoot),
    /// A uid of the range belongs to an account of the machine.
    #[error(
        "uid {uid} (--uid-base {base} + a student's number) is the machine's user '{name}': \
         choose a --uid-base whose {SLOTS} uids no account uses"
    )]
    Taken {
        /// The uid.
        uid: u32,
        /// The range's first uid.
        base: u32,
        /// The account's name.
        name: String,
    },
    /// A student's (or an engine's) number is past the range.
    #[error(
        "number {0} is past what a containment holds ({ENGINE_USERS} students, or engines \
         times games at once up to {ENGINE_SLOTS})"
    )]
    Full(u32),
    /// A file could not be prepared.
    #[error(transparent)]
    Sandbox(#[from] sandbox::SandboxError),
}

/// How students' code is contained: the range of uids, the limits, and
/// the root-owned folder their homes are made in.
#[derive(Debug)]
pub struct Containment {
    base: u32,
    limits: ResourceLimits,
    total_memory_bytes: u64,
    homes: PathBuf,
}

impl Containment {
    /// A containment with `limits` for each process, `total_memory_bytes`
    /// for all of a student's together, and the uids from `base`; root
    /// only. The students' homes go in a new folder under the temporary
    /// folder, removed when this is dropped.
    pub fn new(
        limits: ResourceLimits,
        total_memory_bytes: u64,
        base: u32,
    ) -> Result<Containment, ContainError> {
        sandbox::isolation_available().map_err(ContainError::NotRoot)?;
        check_range_free(base)?;
        let homes = sandbox::private_folder(&std::env::temp_dir(), "connect4-homes")?;
        open_to_traverse(&homes)?;
        Ok(Containment {
            base,
            limits,
            total_memory_bytes,
            homes,
        })
    }

    /// The user of student number `slot` (from 0).
    pub fn account(&self, slot: u32) -> Result<Account, ContainError> {
        if slot >= ENGINE_USERS {
            return Err(ContainError::Full(slot));
        }
        let uid = self.base + slot;
        Ok(Account {
            name: format!("student #{slot} (uid {uid})"),
            uid,
            gid: uid,
        })
    }

    /// The user engine `engine` runs as on lane `lane` of `lanes`: a uid of
    /// its own for each game at once (so that ending one game's processes
    /// ends no other), and the engine's group (see [`ENGINE_USERS`]).
    pub fn engine_account(
        &self,
        engine: u32,
        lane: u32,
        lanes: u32,
    ) -> Result<Account, ContainError> {
        let slot = engine
            .checked_mul(lanes)
            .and_then(|s| s.checked_add(lane))
            .filter(|s| engine < ENGINE_USERS && *s < ENGINE_SLOTS)
            .ok_or(ContainError::Full(engine))?;
        let (uid, gid) = (self.base + ENGINE_USERS + slot, self.base + engine);
        Ok(Account {
            name: format!("engine #{engine} (uid {uid})"),
            uid,
            gid,
        })
    }

    /// The folder the engines' copies go in.
    pub fn copies(&self) -> &Path {
        &self.homes
    }

    /// Gives the copy in `dir` to root and `account`'s group: folders
    /// 0750, files 0640 (0750 when executable), so the student reads and
    /// runs it, writes nothing of it, and no other user enters it. The
    /// walk follows no link (a copy holds none).
    pub fn seal(&self, dir: &Path, account: &Account) -> Result<(), ContainError> {
        seal(dir, account)
    }

    /// Enters a cell for `account`, whose code is in `code` (its home when
    /// none): waits for the user's other game to end, then kills whatever
    /// of the user is left and makes the cell's home.
    pub fn enter(&self, account: &Account, code: Option<&Path>) -> Result<Cell, ContainError> {
        let lock = UserLock::hold(account, false)?;
        sandbox::kill_user(account.uid);
        crate::shared_memory::clear(account.uid);
        let home = self.homes.join(account.uid.to_string());
        sandbox::fresh_folder(&home, Some(account))?;
        // Whatever the umask: the home is the user's alone.
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).map_err(
                |error| sandbox::SandboxError::File {
                    what: "cannot set the mode of",
                    path: home.clone(),
                    error,
                },
            )?;
        }
        let watch = MemoryWatch::start(account.uid, self.total_memory_bytes);
        Ok(Cell {
            sandbox: Sandbox {
                account: account.clone(),
                limits: Some(self.limits),
                dir: code.map_or_else(|| home.clone(), Path::to_path_buf),
                home: Some(home),
                env: bridge_env(),
            },
            watch: Some(watch),
            _lock: lock,
        })
    }
}

impl Drop for Containment {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.homes).ok();
    }
}

/// One student's hold on their user for one game: see [`Containment`].
pub struct Cell {
    sandbox: Sandbox,
    watch: Option<MemoryWatch>,
    _lock: UserLock,
}

impl Cell {
    /// How the student's code starts in this cell.
    pub fn sandbox(&self) -> Sandbox {
        self.sandbox.clone()
    }
}

/// The cell ends with the game: the memory watch stopped, every process of
/// the user killed, its shared memory and home removed.
impl Drop for Cell {
    fn drop(&mut self) {
        if let Some(watch) = self.watch.take() {
            watch.finish();
        }
        let uid = self.sandbox.account.uid;
        sandbox::kill_user(uid);
        crate::shared_memory::clear(uid);
        if let Some(home) = &self.sandbox.home {
            std::fs::remove_dir_all(home).ok();
        }
    }
}

/// The environment the students' code gets besides the standard one (see
/// [`Sandbox::apply`]): no bytecode written into its copy, one thread for
/// numpy's libraries.
pub fn bridge_env() -> Vec<(String, String)> {
    [
        ("PYTHONDONTWRITEBYTECODE", "1"),
        ("OPENBLAS_NUM_THREADS", "1"),
        ("OMP_NUM_THREADS", "1"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// No account or group of `/etc/passwd` and `/etc/group` has a uid or gid
/// in `base..base + SLOTS`.
fn check_range_free(base: u32) -> Result<(), ContainError> {
    if base < 1000 || base.checked_add(SLOTS).is_none_or(|end| end > 0xFFFF_FFF0) {
        return Err(ContainError::Taken {
            uid: base,
            base,
            name: "(a system or reserved id)".into(),
        });
    }
    for file in ["/etc/passwd", "/etc/group"] {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for line in text.lines() {
            let fields: Vec<&str> = line.split(':').collect();
            let Some(id) = fields.get(2).and_then(|f| f.parse::<u32>().ok()) else {
                continue;
            };
            if (base..base + SLOTS).contains(&id) {
                return Err(ContainError::Taken {
                    uid: id,
                    base,
                    name: fields[0].to_string(),
                });
            }
        }
    }
    Ok(())
}

/// Lets every user pass through `dir` without listing it (mode 0711).
pub fn open_to_traverse(dir: &Path) -> Result<(), sandbox::SandboxError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o711)).map_err(|error| {
        sandbox::SandboxError::File {
            what: "cannot set the mode of",
            path: dir.to_path_buf(),
            error,
        }
    })
}

/// See [`Containment::seal`].
fn seal(path: &Path, account: &Account) -> Result<(), ContainError> {
    use std::os::unix::fs::PermissionsExt;
    let file_error = |what: &'static str| {
        let path = path.to_path_buf();
        move |error| sandbox::SandboxError::File { what, path, error }
    };
    let meta = std::fs::symlink_metadata(path).map_err(file_error("cannot read"))?;
    std::os::unix::fs::lchown(path, Some(0), Some(account.gid))
        .map_err(file_error("cannot give"))?;
    let mode = match meta.is_dir() || meta.permissions().mode() & 0o111 != 0 {
        true => 0o750,
        false => 0o640,
    };
    if !meta.file_type().is_symlink() {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
            .map_err(file_error("cannot set the mode of"))?;
    }
    if meta.is_dir() {
        for entry in std::fs::read_dir(path).map_err(file_error("cannot read"))? {
            let entry = entry.map_err(file_error("cannot read"))?;
            seal(&entry.path(), account)?;
        }
    }
    Ok(())
}
