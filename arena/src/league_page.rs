//! The league's page: the web's server showing the league's view. The
//! two crates know nothing of each other; this adapter joins them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;
use connect4_league::view::View;
use connect4_web::{League, LeagueError};
use serde_json::Value;

/// The league of a folder, as the web's page reads it.
struct Page(View);

impl League for Page {
    fn log(&self) -> PathBuf {
        self.0.log()
    }

    fn ladder(&self) -> Result<Value, LeagueError> {
        Ok(self.0.ladder()?)
    }

    fn student(&self, name: &str, anchor: bool) -> Result<Option<Value>, LeagueError> {
        Ok(self.0.student(name, anchor)?)
    }
}

/// The league in `dir`, for `serve --league DIR`.
pub fn shown(dir: &Path) -> Arc<dyn League> {
    Arc::new(Page(View::new(dir)))
}

/// Serves the page of the league in `dir` on `port` while it runs
/// (`league --serve PORT`); the page's address.
pub fn follow(port: u16, dir: &Path) -> Result<String> {
    connect4_web::follow_league(port, shown(dir))
}
