//! Running untrusted programs apart from the arena: as another,
//! unprivileged user, in a session of their own, under resource limits,
//! with a clean environment and a working folder of their own.
//!
//! A course grader runs as root and starts the student's code as one user
//! and the reference engines as another, so the student's processes can
//! neither signal the references nor the grader, nor write the grader's
//! files; at the end every process of the student's user is killed. None of
//! this is possible without root: then [`isolation_available`] says why and
//! programs run as the arena's own user.

use std::path::{Path, PathBuf};

use crate::group::ResourceLimits;

/// What is wrong when a sandbox cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// No such user on this machine.
    #[error(
        "there is no user '{0}' on this machine (the autograder's setup.sh creates it: \
         useradd --system --no-create-home {0})"
    )]
    NoUser(String),
    /// A submission holds something that is neither a regular file nor a
    /// folder.
    #[error(
        "{path} is {kind}: a submission may hold only regular files and folders \
         (remove it, or put the file it stands for in its place)"
    )]
    NotCopied {
        /// The entry.
        path: PathBuf,
        /// What it is, in words.
        kind: &'static str,
    },
    /// A submission passes the limits of a copy.
    #[error("{folder} holds {over} (at {at}): a submission may not be so large")]
    TooBig {
        /// The submission's folder.
        folder: PathBuf,
        /// Which limit, in words.
        over: String,
        /// The entry that passed it.
        at: PathBuf,
    },
    /// A file operation failed.
    #[error("{what} {path}: {error}")]
    File {
        /// What was being done.
        what: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
}

/// One grading's hold on its student user: a grading kills every process
/// of that user when it starts and when it ends, so two gradings with the
/// same user at once would kill each other's student mid-game (a crash
/// with no traceback, charged to the student). The second waits for the
/// first; the hold ends when this is dropped (or the grader dies).
pub struct UserLock {
    _file: std::fs::File,
}

impl UserLock {
    /// Holds user `account` for this grading, waiting (and saying so) while
    /// another grading holds it. The lock file is root's, in `/run` (or the
    /// temporary folder), opened without following a link.
    pub fn take(account: &Account) -> Result<UserLock, SandboxError> {
        UserLock::hold(account, true)
    }

    /// Holds user `account` as [`UserLock::take`] does, waiting without a
    /// word when `say` is false (a league's games of one student take
    /// turns as a matter of course).
    pub fn hold(account: &Account, say: bool) -> Result<UserLock, SandboxError> {
        use std::os::unix::fs::OpenOptionsExt;
        let folder = if Path::new("/run").is_dir() {
            PathBuf::from("/run")
        } else {
            std::env::temp_dir()
        };
        let path = folder.join(format!("connect4-grade-{}.lock", account.uid));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(file_error("cannot open the grading lock", &path))?;
        if file.try_lock().is_err() {
            if say {
                eprintln!(
                    "grade: waiting for another grading that runs student code as user {} (each \
                 grading ends every process of that user)",
                    account.name
                );
            }
            file.lock()
                .map_err(file_error("cannot lock the grading lock", &path))?;
        }
        Ok(UserLock { _file: file })
    }
}

/// A user of this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    /// Login name.
    pub name: String,
    /// User id.
    pub uid: u32,
    /// Primary group id.
    pub gid: u32,
}

impl Account {
    /// Looks `name` up in /etc/passwd.
    pub fn lookup(name: &str) -> Result<Account, SandboxError> {
        let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
        passwd
            .lines()
            .filter_map(|line| {
                let f: Vec<&str> = line.split(':').collect();
                (f.len() >= 4 && f[0] == name).then(|| {
                    Some(Account {
                        name: name.to_string(),
                        uid: f[2].parse().ok()?,
                        gid: f[3].parse().ok()?,
                    })
                })?
            })
            .next()
            .ok_or_else(|| SandboxError::NoUser(name.to_string()))
    }
}

/// How to start a program apart from the arena.
#[derive(Clone, Debug, PartialEq)]
pub struct Sandbox {
    /// The user it runs as.
    pub account: Account,
    /// Limits, if any.
    pub limits: Option<ResourceLimits>,
    /// Its working folder.
    pub dir: PathBuf,
    /// Its home and temporary folder, when not `dir` (a working folder the
    /// program may not write).
    pub home: Option<PathBuf>,
    /// Extra environment (the rest is cleared but for a standard `PATH`,
    /// `HOME` and `TMPDIR` set to `home` or `dir`, and `LANG`).
    pub env: Vec<(String, String)>,
}

/// Prepares `command` to run in `sandbox`, or without one in a process
/// group of its own (see [`crate::group::own_group`]).
pub fn apply_or_group(command: &mut std::process::Command, sandbox: Option<&Sandbox>) {
    match sandbox {
        Some(s) => s.apply(command),
        None => crate::group::own_group(command),
    }
}

impl Sandbox {
    /// Prepares `command` to run in this sandbox: its user, a session of its
    /// own (not only a process group: no controlling terminal of the
    /// arena's), its limits, its folder and its environment.
    pub fn apply(&self, command: &mut std::process::Command) {
        use std::os::unix::process::CommandExt;
        command
            .uid(self.account.uid)
            .gid(self.account.gid)
            .current_dir(&self.dir)
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", self.home.as_ref().unwrap_or(&self.dir))
            .env("TMPDIR", self.home.as_ref().unwrap_or(&self.dir))
            .env("LANG", "C.UTF-8")
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        crate::group::own_session(command, self.limits);
    }
}

/// Programs cannot be run as other users: the arena is not root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "isolation is off: the grader is not running as root, so the submission \
     runs as the grader's own user and could change the result (fine for local \
     runs; on Gradescope run_autograder runs as root)"
)]
pub struct NotRoot;

/// Whether programs can be run as other users (the arena runs as root).
pub fn isolation_available() -> Result<(), NotRoot> {
    if effective_uid() == Some(0) {
        Ok(())
    } else {
        Err(NotRoot)
    }
}

/// A user id of the process whose /proc folder is `proc` (`self` or a
/// pid): `which` 1 the real one, 2 the effective one.
fn uid(proc: &str, which: usize) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{proc}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(which)?.parse().ok()
}

/// The arena's effective user id.
fn effective_uid() -> Option<u32> {
    uid("self", 2)
}

/// The real user id of process `pid`.
fn owner(pid: i32) -> Option<u32> {
    uid(&pid.to_string(), 1)
}

/// The state letter and parent of process `pid` (from /proc/PID/stat,
/// where they follow the command's closing parenthesis).
fn state_and_parent(pid: i32) -> Option<(char, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    Some((state, parent))
}

/// Whether process `pid` is a zombie: dead already, waiting for its parent
/// to read its status (signals cannot touch it).
fn is_zombie(pid: i32) -> bool {
    state_and_parent(pid).is_some_and(|(state, _)| state == 'Z')
}

/// Kills the processes of user `uid` (never uid 0) that process `parent`
/// (the arena) started and that are stopped. A student's program can stop
/// every process of its user, the arena's children included; one stopped
/// between fork and exec would keep the arena waiting for it to start, for
/// ever. Killed, it is an engine that did not start. Returns how many.
pub fn kill_stopped_children(uid: u32, parent: u32) -> usize {
    if uid == 0 {
        return 0;
    }
    let parent = i32::try_from(parent).unwrap_or(-1);
    let stuck: Vec<i32> = processes_of(uid)
        .into_iter()
        .filter(|&pid| {
            state_and_parent(pid)
                .is_some_and(|(state, p)| p == parent && matches!(state, 'T' | 't'))
        })
        .collect();
    for &pid in &stuck {
        crate::group::signal(pid, crate::group::Signal::Kill);
    }
    stuck.len()
}

/// Every live process of user `uid` (zombies left out).
pub fn processes_of(uid: u32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| owner(pid) == Some(uid) && !is_zombie(pid))
        .collect()
}

/// Kills every process of user `uid` (never uid 0): each round stops them
/// all (a stopped process cannot fork) and then kills them, until a round
/// finds none. Returns how many processes were killed, each counted once.
pub fn kill_user(uid: u32) -> usize {
    if uid == 0 {
        return 0;
    }
    let mut killed = std::collections::HashSet::new();
    for _ in 0..1000 {
        let pids = processes_of(uid);
        if pids.is_empty() {
            break;
        }
        for &pid in &pids {
            crate::group::signal(pid, crate::group::Signal::Stop);
        }
        for &pid in &pids {
            crate::group::signal(pid, crate::group::Signal::Kill);
        }
        killed.extend(pids);
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    killed.len()
}

/// Space held on a file system so that the results can be written even if
/// a submission fills the disk: a file of zeros, removed just before the
/// results are written.
pub struct Reserve {
    path: PathBuf,
}

impl Reserve {
    /// Bytes held.
    pub const BYTES: usize = 4 << 20;

    /// Holds [`Reserve::BYTES`] in folder `dir`.
    pub fn hold(dir: &Path) -> Result<Reserve, SandboxError> {
        let path = dir.join(".results-reserve");
        let file_error = |error| SandboxError::File {
            what: "cannot hold space for the results in",
            path: path.clone(),
            error,
        };
        std::fs::write(&path, vec![0u8; Reserve::BYTES]).map_err(file_error)?;
        std::fs::File::open(&path)
            .and_then(|f| f.sync_all())
            .map_err(file_error)?;
        Ok(Reserve { path })
    }

    /// Gives the space back.
    pub fn release(self) {
        std::fs::remove_file(&self.path).ok();
    }
}

/// What went wrong doing `what` to `path`, for `map_err`.
fn file_error(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> SandboxError {
    let path = path.to_path_buf();
    move |error| SandboxError::File { what, path, error }
}

/// Creates a new folder under `parent` that only this user can enter,
/// named `prefix-PID-RANDOM`. It is never one that already exists: another
/// local user who made one in advance (a shared /tmp) would otherwise own
/// the folder root grades in.
pub fn private_folder(parent: &Path, prefix: &str) -> Result<PathBuf, SandboxError> {
    use std::os::unix::fs::DirBuilderExt;
    let mut last = None;
    for _ in 0..100 {
        let name = format!(
            "{prefix}-{}-{:016x}",
            std::process::id(),
            rand::random::<u64>()
        );
        let dir = parent.join(name);
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(file_error("cannot create", &dir)(e)),
        }
    }
    Err(file_error("cannot create a new folder in", parent)(
        last.unwrap_or_else(|| std::io::Error::other("no free name")),
    ))
}

/// Makes `dir` an empty folder of `account`'s: whatever it held (an earlier
/// run's files) is removed.
pub fn fresh_folder(dir: &Path, account: Option<&Account>) -> Result<(), SandboxError> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(file_error("cannot clear", dir))?;
    }
    std::fs::create_dir_all(dir).map_err(file_error("cannot create", dir))?;
    give(dir, account)
}

/// The most a submission may hold: bytes (room for an engine built on
/// connect4, its 58 MiB book inside) and entries (files and folders).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyLimits {
    /// Bytes of files in all, as their metadata says.
    pub bytes: u64,
    /// Files and folders in all.
    pub entries: usize,
}

impl CopyLimits {
    /// The limits of a submission's copy.
    pub const SUBMISSION: CopyLimits = CopyLimits {
        bytes: 256 << 20,
        entries: 10_000,
    };
}

/// What a copy of a submission took so far, against its limits.
struct Budget {
    limits: CopyLimits,
    bytes: u64,
    entries: usize,
    root: PathBuf,
}

impl Budget {
    /// Nothing taken yet of the copy of `root`.
    fn new(root: &Path) -> Budget {
        Budget {
            limits: CopyLimits::SUBMISSION,
            bytes: 0,
            entries: 0,
            root: root.to_path_buf(),
        }
    }

    /// Counts one more entry of `len` bytes, or says which limit it passes.
    fn take(&mut self, path: &Path, len: u64) -> Result<(), SandboxError> {
        self.entries += 1;
        self.bytes = self.bytes.saturating_add(len);
        let over = if self.entries > self.limits.entries {
            format!("more than {} files and folders", self.limits.entries)
        } else if self.bytes > self.limits.bytes {
            format!("more than {} MB of files", self.limits.bytes >> 20)
        } else {
            return Ok(());
        };
        Err(SandboxError::TooBig {
            folder: self.root.clone(),
            over,
            at: path.to_path_buf(),
        })
    }
}

/// The kind of a file that is neither a regular file nor a folder, as
/// `lstat` gives it, in words.
pub fn kind_in_words(kind: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else if kind.is_dir() {
        "a folder"
    } else if kind.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// Copies folder `from` to `to`, replacing whatever `to` held, and gives
/// everything in it to `account`. Only regular files and folders are
/// copied, by the type `lstat` gives (a link is never followed); anything
/// else (a link, a FIFO, a device, a socket) refuses the copy with its
/// name, and so does passing [`CopyLimits::SUBMISSION`] (sizes come from
/// the metadata, before a byte is read).
pub fn copy_for(from: &Path, to: &Path, account: Option<&Account>) -> Result<(), SandboxError> {
    check_folder(from)?;
    fresh_folder(to, account)?;
    walk(from, &mut Budget::new(from), &mut |source, len| {
        let target = to.join(
            source
                .strip_prefix(from)
                .expect("the walk stays under its folder"),
        );
        match len {
            None => fresh_folder(&target, account),
            Some(len) => {
                copy_file(source, &target, len)?;
                give(&target, account)
            }
        }
    })
}

/// The regular files of the submission in `folder`, with their sizes,
/// refused as [`copy_for`] would refuse them (an entry that is neither a
/// regular file nor a folder, or past [`CopyLimits::SUBMISSION`]); read
/// with [`open_regular`].
pub fn submission_files(folder: &Path) -> Result<Vec<(PathBuf, u64)>, SandboxError> {
    check_folder(folder)?;
    let mut files = Vec::new();
    walk(folder, &mut Budget::new(folder), &mut |path, len| {
        if let Some(len) = len {
            files.push((path.to_path_buf(), len));
        }
        Ok(())
    })?;
    Ok(files)
}

/// Refuses `path` unless it is a folder (by `lstat`: a link to one is
/// refused).
fn check_folder(path: &Path) -> Result<(), SandboxError> {
    let meta = std::fs::symlink_metadata(path).map_err(file_error("cannot read", path))?;
    match meta.is_dir() {
        true => Ok(()),
        false => Err(SandboxError::NotCopied {
            path: path.to_path_buf(),
            kind: kind_in_words(meta.file_type()),
        }),
    }
}

/// What [`walk`] calls on each entry: its path, and a regular file's size
/// (`None` for a folder).
type Visit<'a> = dyn FnMut(&Path, Option<u64>) -> Result<(), SandboxError> + 'a;

/// Visits every entry under `folder`, a folder before what it holds:
/// `visit(path, None)` for a folder, `visit(path, Some(size))` for a
/// regular file (its size from `lstat`), each counted against `budget`;
/// anything else refuses the walk by name.
fn walk(folder: &Path, budget: &mut Budget, visit: &mut Visit<'_>) -> Result<(), SandboxError> {
    let entries = std::fs::read_dir(folder).map_err(file_error("cannot read", folder))?;
    for entry in entries {
        let entry = entry.map_err(file_error("cannot read", folder))?;
        let path = entry.path();
        // DirEntry::file_type and ::metadata do not follow links.
        let kind = entry
            .file_type()
            .map_err(file_error("cannot read", &path))?;
        if kind.is_dir() {
            budget.take(&path, 0)?;
            visit(&path, None)?;
            walk(&path, budget, visit)?;
        } else if kind.is_file() {
            let len = entry
                .metadata()
                .map_err(file_error("cannot read", &path))?
                .len();
            budget.take(&path, len)?;
            visit(&path, Some(len))?;
        } else {
            return Err(SandboxError::NotCopied {
                path,
                kind: kind_in_words(kind),
            });
        }
    }
    Ok(())
}

/// Opens the regular file `path` of a submission without following a
/// link and without waiting (a FIFO put in its place since its folder was
/// listed opens at once, and is refused as not regular).
pub fn open_regular(path: &Path) -> Result<std::fs::File, SandboxError> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(file_error("cannot open", path))?;
    let meta = file.metadata().map_err(file_error("cannot read", path))?;
    match meta.is_file() {
        true => Ok(file),
        false => Err(SandboxError::NotCopied {
            path: path.to_path_buf(),
            kind: kind_in_words(meta.file_type()),
        }),
    }
}

/// Copies the regular file `from` (see [`open_regular`]) to the new file
/// `to`, no more than the `len` bytes its listing gave (a file that grows
/// meanwhile is cut there), with its permission bits but for set-id and
/// group or others' write.
fn copy_file(from: &Path, to: &Path, len: u64) -> Result<(), SandboxError> {
    use std::io::Read;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let source = open_regular(from)?;
    let mode = source
        .metadata()
        .map_err(file_error("cannot read", from))?
        .permissions()
        .mode();
    let mut target = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode & 0o755)
        .open(to)
        .map_err(file_error("cannot create", to))?;
    std::io::copy(&mut source.take(len), &mut target).map_err(file_error("cannot copy", from))?;
    Ok(())
}

/// Closes `path` (a folder or file the instructor gave, `what` in the
/// user's words: "--submissions") to every user but its owner and group,
/// so that student code, which runs as other users, cannot read it; says
/// so when it changed the mode. Whether it had to.
pub fn close_to_others(path: &Path, what: &str) -> Result<bool, SandboxError> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).map_err(file_error("cannot read", path))?;
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o007 == 0 {
        return Ok(false);
    }
    let closed = mode & !0o007;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(closed))
        .map_err(file_error("cannot close to other users", path))?;
    eprintln!(
        "connect4-arena: {what} {}: closed to other users (mode {mode:o} -> {closed:o}), so \
         that the students' code cannot read it",
        path.display()
    );
    Ok(true)
}

/// Gives `path` to `account` (nothing without one).
pub fn give(path: &Path, account: Option<&Account>) -> Result<(), SandboxError> {
    match account {
        None => Ok(()),
        Some(a) => std::os::unix::fs::chown(path, Some(a.uid), Some(a.gid))
            .map_err(file_error("cannot give", path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_found_and_a_missing_user_is_named() {
        assert_eq!(Account::lookup("root").unwrap().uid, 0);
        let e = Account::lookup("no-such-user-here")
            .unwrap_err()
            .to_string();
        assert!(e.contains("'no-such-user-here'"), "{e}");
    }

    #[test]
    fn private_folders_are_new_and_closed_to_others() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let parent = std::env::temp_dir().join(format!("c4-private-{}", std::process::id()));
        std::fs::create_dir_all(&parent).unwrap();
        let a = private_folder(&parent, "connect4-grade").unwrap();
        let b = private_folder(&parent, "connect4-grade").unwrap();
        assert_ne!(a, b);
        for dir in [&a, &b] {
            let meta = std::fs::symlink_metadata(dir).unwrap();
            assert!(meta.is_dir());
            assert_eq!(meta.permissions().mode() & 0o777, 0o700);
            assert_eq!(Some(meta.uid()), uid("self", 2));
            assert_eq!(std::fs::read_dir(dir).unwrap().count(), 0);
        }
        std::fs::remove_dir_all(&parent).ok();
    }

    /// A zombie is not a process to kill: a child that exited and was not
    /// yet waited for is left out, so kill counts are true.
    #[test]
    fn zombies_are_not_counted_as_processes() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as i32;
        let start = std::time::Instant::now();
        while !is_zombie(pid) && start.elapsed().as_secs() < 10 {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(is_zombie(pid));
        assert!(!processes_of(uid("self", 1).unwrap()).contains(&pid));
        child.wait().unwrap();
        assert!(!is_zombie(std::process::id() as i32));
    }

    fn copy_scratch(name: &str) -> (PathBuf, PathBuf) {
        let dir = std::env::temp_dir().join(format!("c4-copy-{name}-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(dir.join("from/sub")).unwrap();
        std::fs::write(dir.join("from/sub/policy.py"), "x = 1\n").unwrap();
        (dir.join("from"), dir.join("to"))
    }

    /// Issue #69, item 4: a FIFO in a submission hung the copy for ever
    /// (std::fs::copy opens it and waits for a writer); now it is refused
    /// at once, by name, and so are links, which are never followed.
    #[test]
    fn a_fifo_or_a_link_in_a_submission_is_refused_by_name_without_waiting() {
        let (from, to) = copy_scratch("special");
        let fifo = from.join("sub/pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let e = copy_for(&from, &to, None).unwrap_err().to_string();
        assert!(e.contains("sub/pipe is a named pipe (FIFO)"), "{e}");
        std::fs::remove_file(&fifo).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", from.join("sub/secret")).unwrap();
        let e = copy_for(&from, &to, None).unwrap_err().to_string();
        assert!(e.contains("sub/secret is a symbolic link"), "{e}");
        std::fs::remove_file(from.join("sub/secret")).unwrap();
        std::os::unix::fs::symlink(&from, from.parent().unwrap().join("link")).unwrap();
        let e = copy_for(&from.parent().unwrap().join("link"), &to, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("link is a symbolic link"), "{e}");
        copy_for(&from, &to, None).unwrap();
        assert_eq!(
            std::fs::read_to_string(to.join("sub/policy.py")).unwrap(),
            "x = 1\n"
        );
        std::fs::remove_dir_all(from.parent().unwrap()).ok();
    }

    /// Issue #69, item 4: a 2 GB sparse file was read whole (2.1 GB at the
    /// peak); its size now refuses it from its metadata, before a read.
    #[test]
    fn a_submission_over_the_size_limit_is_refused_from_its_metadata() {
        let (from, to) = copy_scratch("sparse");
        let big = std::fs::File::create(from.join("sub/weights.bin")).unwrap();
        big.set_len(2 << 30).unwrap();
        let e = copy_for(&from, &to, None).unwrap_err().to_string();
        assert!(e.contains("more than 256 MB of files"), "{e}");
        assert!(e.contains("weights.bin"), "{e}");
        std::fs::remove_dir_all(from.parent().unwrap()).ok();
    }

    #[test]
    fn root_is_never_killed_and_an_unused_user_has_no_processes() {
        assert_eq!(kill_user(0), 0);
        assert_eq!(kill_user(4_000_000_000), 0);
    }
}
