//! `match` and `tournament` under `--isolate`: every engine the run was
//! given as a program (not `cmd=self`, the arena's own) runs contained,
//! as the league runs students' code ([`crate::contain`]): a user of its
//! own for each of its games at once, in a group of the engine's, with
//! the students' resource limits, a clean environment and a home of its
//! own; its folder (`dir=` in its spec) copied for it alone, readable by
//! its group and by no other engine; and when each game ends, its
//! processes and every process of its users killed, its shared memory
//! removed. The next game starts it afresh.

use std::path::{Path, PathBuf};

use crate::contain::{Cell, ContainError, Containment};
use crate::group::ResourceLimits;
use crate::spec::EngineSpec;

/// The limits of each process of a contained engine, and the defaults of
/// a grading config's `[limits]`.
pub const LIMITS: ResourceLimits = ResourceLimits {
    memory_bytes: 2048 << 20,
    processes: 256,
    file_bytes: 256 << 20,
};

/// A run's engines, contained.
pub struct Confinement {
    contain: Containment,
    lanes: u32,
    /// Each engine's spec pointing into its copy, or `None` for the
    /// arena's own engines, which run as they are.
    engines: Vec<Option<EngineSpec>>,
}

impl Confinement {
    /// Contains `specs` for a run of `lanes` games at once, the uids from
    /// `base`; copies each engine's `dir=` folder for it alone.
    pub fn new(specs: &[EngineSpec], lanes: usize, base: u32) -> Result<Confinement, ContainError> {
        let total = crate::memory_watch::half_the_machine_mb() << 20;
        let contain = Containment::new(LIMITS, total, base)?;
        let lanes = u32::try_from(lanes.max(1)).unwrap_or(u32::MAX);
        let mut engines = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let engine = u32::try_from(i).map_err(|_| ContainError::Full(u32::MAX))?;
            engines.push(match spec.cmd == "self" {
                true => None,
                false => Some(copied(&contain, engine, lanes, spec)?),
            });
        }
        Ok(Confinement {
            contain,
            lanes,
            engines,
        })
    }

    /// Engine `engine`'s spec for one game on lane `lane`, and the cell
    /// that holds its user until the game ends (dropped, it kills every
    /// process of that user); `None` for an engine that runs as it is.
    pub fn enter(
        &self,
        engine: usize,
        lane: usize,
    ) -> Result<Option<(EngineSpec, Cell)>, ContainError> {
        let Some(Some(spec)) = self.engines.get(engine) else {
            return Ok(None);
        };
        let number = |n: usize| u32::try_from(n).map_err(|_| ContainError::Full(u32::MAX));
        let account = self
            .contain
            .engine_account(number(engine)?, number(lane)?, self.lanes)?;
        let cell = self.contain.enter(&account, spec.dir.as_deref())?;
        let mut spec = spec.clone();
        spec.sandbox = Some(cell.sandbox());
        Ok(Some((spec, cell)))
    }
}

/// `spec` with its `dir=` folder copied for engine `engine` alone (sealed
/// to its group) and its `cmd` and `arg`s inside that folder pointing
/// into the copy; as it is when it has no folder.
fn copied(
    contain: &Containment,
    engine: u32,
    lanes: u32,
    spec: &EngineSpec,
) -> Result<EngineSpec, ContainError> {
    let mut spec = spec.clone();
    let Some(dir) = spec.dir.clone() else {
        return Ok(spec);
    };
    // The original is the instructor's: closed to the engines' users too.
    crate::sandbox::close_to_others(&dir, "dir=")?;
    let copy = contain.copies().join(format!("engine-{engine}"));
    crate::sandbox::copy_for(&dir, &copy, None)?;
    contain.seal(&copy, &contain.engine_account(engine, 0, lanes)?)?;
    let inside = |value: &str| -> String {
        let (Ok(from), Ok(path)) = (std::path::absolute(&dir), std::path::absolute(value)) else {
            return value.to_string();
        };
        match path.strip_prefix(&from) {
            Ok(rest) if Path::new(value).components().count() > 0 => {
                copy.join(rest).display().to_string()
            }
            _ => value.to_string(),
        }
    };
    spec.cmd = inside(&spec.cmd);
    spec.args = spec.args.iter().map(|a| inside(a)).collect();
    spec.dir = Some(PathBuf::from(&copy));
    Ok(spec)
}
