//! The memory a user holds outside its processes' resident pages: files
//! in memory (memfds and `/dev/shm`, which stay when nothing maps them and,
//! for `/dev/shm`, when their processes are gone) and System V shared
//! memory segments (which outlive their processes too). The grader's
//! [`crate::memory_watch`] counts them, and clears what the student's user
//! left when its processes are killed.
//!
//! Every walk is bounded ([`MAX_ENTRIES`]), so that a user with millions of
//! files cannot hold the watch up.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The folder of POSIX shared memory.
const SHM_DIR: &str = "/dev/shm";
/// The kernel's list of System V shared memory segments.
const SYSV_LIST: &str = "/proc/sysvipc/shm";
/// Most entries looked at in one walk of `/dev/shm` or of a process's
/// open files.
pub const MAX_ENTRIES: usize = 100_000;

/// A file by its device and inode, counted once.
type FileId = (u64, u64);

/// The bytes user `uid` holds in shared memory: the memfds and `/dev/shm`
/// files its processes hold open (deleted or not), the `/dev/shm` files it
/// owns, and its System V segments. A file counts once, by the space it
/// takes (a sparse file only for its written pages).
pub fn held_bytes(uid: u32, pids: &[i32]) -> u64 {
    let mut seen = HashSet::new();
    let open: u64 = pids
        .iter()
        .map(|&pid| open_files_bytes(pid, &mut seen))
        .sum();
    open + shm_files(uid)
        .into_iter()
        .filter_map(|path| std::fs::symlink_metadata(path).ok())
        .filter(|m| seen.insert((m.dev(), m.ino())))
        .map(|m| m.blocks() * 512)
        .sum::<u64>()
        + segments(uid).iter().map(|s| s.bytes).sum::<u64>()
}

/// The memfds and `/dev/shm` files process `pid` holds open, not yet in
/// `seen`.
fn open_files_bytes(pid: i32, seen: &mut HashSet<FileId>) -> u64 {
    let Ok(entries) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return 0;
    };
    let mut bytes = 0;
    for entry in entries.flatten().take(MAX_ENTRIES) {
        let Ok(target) = std::fs::read_link(entry.path()) else {
            continue;
        };
        let target = target.to_string_lossy();
        if !(target.starts_with("/memfd:") || target.starts_with("/dev/shm/")) {
            continue;
        }
        // The link in /proc leads to the open file itself, deleted or not.
        if let Ok(m) = std::fs::metadata(entry.path())
            && seen.insert((m.dev(), m.ino()))
        {
            bytes += m.blocks() * 512;
        }
    }
    bytes
}

/// The files (not folders) under `/dev/shm` that user `uid` owns.
fn shm_files(uid: u32) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![Path::new(SHM_DIR).to_path_buf()];
    let mut looked = 0;
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            looked += 1;
            if looked > MAX_ENTRIES {
                return files;
            }
            let Ok(m) = entry.path().symlink_metadata() else {
                continue;
            };
            if m.is_dir() {
                folders.push(entry.path());
            } else if m.uid() == uid {
                files.push(entry.path());
            }
        }
    }
    files
}

/// A System V shared memory segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Its id, for `shmctl`.
    pub id: i32,
    /// Its size in bytes.
    pub bytes: u64,
}

/// The System V segments user `uid` owns or made.
pub fn segments(uid: u32) -> Vec<Segment> {
    std::fs::read_to_string(SYSV_LIST)
        .map(|text| parse_segments(&text, uid))
        .unwrap_or_default()
}

/// The segments of `uid` in the text of `/proc/sysvipc/shm` (a header,
/// then `key shmid perms size cpid lpid nattch uid gid cuid ...`).
fn parse_segments(text: &str, uid: u32) -> Vec<Segment> {
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let id = f.get(1)?.parse().ok()?;
            let bytes = f.get(3)?.parse().ok()?;
            let owner: u32 = f.get(7)?.parse().ok()?;
            let creator: u32 = f.get(9)?.parse().ok()?;
            (owner == uid || creator == uid).then_some(Segment { id, bytes })
        })
        .collect()
}

/// What [`clear`] removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cleared {
    /// `/dev/shm` files removed.
    pub files: usize,
    /// System V segments removed.
    pub segments: usize,
}

/// Removes user `uid`'s `/dev/shm` files and System V segments (never for
/// uid 0): what its killed processes left holding memory.
pub fn clear(uid: u32) -> Cleared {
    if uid == 0 {
        return Cleared::default();
    }
    let files = shm_files(uid)
        .into_iter()
        .filter(|path| std::fs::remove_file(path).is_ok())
        .count();
    let segments = segments(uid)
        .into_iter()
        .filter(|s| remove_segment(s.id))
        .count();
    Cleared { files, segments }
}

/// Marks System V segment `id` for removal (it goes once nothing maps it,
/// and nothing of the killed user's does).
#[allow(unsafe_code)]
fn remove_segment(id: i32) -> bool {
    // SAFETY: IPC_RMID takes no buffer; a null pointer is what it expects.
    unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_read_by_owner_or_creator() {
        let text = "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap\n\
                             0         7   600               1048576  100   100      0  1001  1001  1001  1001          0          0          0                     0                     0\n\
                             0         8   600                  4096  100   100      0     0     0  1001     0          0          0          0                     0                     0\n\
                             0         9   600                  8192  100   100      0     0     0     0     0          0          0          0                     0                     0\n";
        assert_eq!(
            parse_segments(text, 1001),
            vec![
                Segment {
                    id: 7,
                    bytes: 1 << 20
                },
                Segment { id: 8, bytes: 4096 }
            ]
        );
        assert!(parse_segments(text, 5).is_empty());
    }

    /// A memfd written and never mapped is in no process's resident pages,
    /// but in what the user holds.
    #[test]
    #[allow(unsafe_code)]
    fn a_memfd_held_open_is_counted() {
        use std::io::Write;
        use std::os::fd::FromRawFd;
        let me = std::process::id() as i32;
        // SAFETY: the uid of the running process, read from the kernel.
        let uid = unsafe { libc::getuid() };
        let before = held_bytes(uid, &[me]);
        // SAFETY: a valid C string; the fd returned is owned by `file`.
        let fd = unsafe { libc::memfd_create(c"c4-test".as_ptr(), 0) };
        assert!(fd >= 0);
        // SAFETY: `fd` is a fresh descriptor that nothing else owns.
        let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
        file.write_all(&vec![1u8; 32 << 20]).unwrap();
        let after = held_bytes(uid, &[me]);
        assert!(after >= before + (32 << 20), "{before} -> {after}");
        drop(file);
    }
}
