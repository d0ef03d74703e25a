//! `report LOG... --html OUT.html`: one self-contained file to post or
//! mail: for each log its results table, crosstable and rating list, its
//! picture (each pairing's Elo over the games, the players named), and
//! every game replayable with the solver's verdict on each move, the same
//! verdicts the served page shows. Nothing in it is fetched from
//! elsewhere: the style, the scripts, the picture and the games are all in
//! the file, and every text from a log is escaped.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use anyhow::{Context, Result};
use connect4::lab::progress::Progress;
use serde_json::{Value, json};

use super::replay::Library;
use crate::report_tables::escape;
use connect4_match::log::GameLine;
use connect4_match::page::script_safe;

/// Arguments of `report`.
#[derive(clap::Args)]
pub struct Args {
    /// The logs to report (match, tournament, grading or experiment logs).
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    /// The HTML file to write.
    #[arg(long)]
    pub html: PathBuf,
}

/// More about one log, shown under its name: a heading, lines of text,
/// and a table whose first row is its header (every text escaped here).
pub struct Extra {
    /// The heading.
    pub title: String,
    /// Lines of text, each a paragraph.
    pub lines: Vec<String>,
    /// The table's rows, the header first.
    pub table: Vec<Vec<String>>,
}

/// What finds the [`Extra`] of a log, if it has one (a language model's
/// log has its figures: `connect4-arena` passes the llm crate's).
pub type ExtraOf<'a> = &'a dyn Fn(&Path) -> Result<Option<Extra>>;

/// Writes the report.
pub fn run(args: &Args) -> Result<ExitCode> {
    run_with(args, None)
}

/// Writes the report, with each log's [`Extra`] that `extra` finds.
pub fn run_with(args: &Args, extra: Option<ExtraOf>) -> Result<ExitCode> {
    args.logs
        .iter()
        .fold(connect4_match::outputs::Files::new(), |f, log| {
            f.input("the log", Some(log))
        })
        .output("--html", Some(&args.html))
        .check()?;
    let library = Library::load(&args.logs)?;
    let logs = library.logs();
    let total: usize = logs.iter().map(|(_, games)| games.len()).sum();
    let progress = Mutex::new((Progress::new("report: judging every move", total as u64), 0));
    library.judge_once(&|| {
        let mut progress = progress.lock().unwrap_or_else(|e| e.into_inner());
        progress.1 += 1;
        let done = progress.1;
        progress.0.update(done, "");
    });
    progress
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .0
        .finish();
    let mut sections = String::new();
    let mut data = Vec::new();
    for (i, (path, games)) in logs.iter().enumerate() {
        let more = match extra {
            Some(find) => find(path)?,
            None => None,
        };
        sections.push_str(&section(path, games, more.as_ref()));
        let mut judged = Vec::new();
        let mut sorted: Vec<&GameLine> = games.iter().collect();
        sorted.sort_by_key(|g| g.game);
        for g in sorted {
            // Kept by judge_once, unless there were too many to keep.
            judged.push(library.game(i + 1, g.game)?);
        }
        data.push(json!({
            "log": i + 1, "name": path.display().to_string(),
            "games": judged,
        }));
    }
    let page = page(&sections, &json!({ "logs": data }));
    connect4::atomic_file::write(&args.html, &page)
        .with_context(|| format!("writing {}", args.html.display()))?;
    println!(
        "wrote {} ({} games from {} log(s))",
        args.html.display(),
        total,
        logs.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// A log's results: its tables in HTML and, for two engines whose Elo is
/// finite, the picture of the Elo over the games (with more engines the
/// rating bars stand for it).
fn section(path: &Path, games: &[GameLine], extra: Option<&Extra>) -> String {
    let (engines, pairings) = super::standings::players_of(games);
    let results = connect4_match::results::collect(&engines, &pairings, games, None);
    let name = path.display().to_string();
    let summary = results.summary();
    let finite = summary
        .pairings
        .first()
        .is_some_and(|p| p.elo.is_some_and(f64::is_finite));
    let picture = if engines.len() == 2 && finite {
        let figure = connect4_match::figures::run_figure(&name, &engines, &pairings, games, None);
        match figure.svg() {
            Ok(svg) => format!(
                "<img class=\"figure\" alt=\"the Elo over the games\" src=\"data:image/svg+xml;base64,{}\">",
                base64(svg.as_bytes())
            ),
            Err(e) => format!("<p>{}</p>", escape(&e.to_string())),
        }
    } else {
        String::new()
    };
    format!(
        "<section class=\"log-report\"><h2>{}</h2>{}{}{picture}</section>\n",
        escape(&name),
        extra.map(extra_html).unwrap_or_default(),
        crate::report_tables::tables(&results)
    )
}

/// A log's [`Extra`] in HTML.
fn extra_html(extra: &Extra) -> String {
    let mut html = format!("<div class=\"log-extra\"><h3>{}</h3>", escape(&extra.title));
    for line in &extra.lines {
        html.push_str(&format!("<p>{}</p>", escape(line)));
    }
    if let Some((header, rows)) = extra.table.split_first() {
        html.push_str("<table class=\"results\"><thead><tr>");
        for cell in header {
            html.push_str(&format!("<th>{}</th>", escape(cell)));
        }
        html.push_str("</tr></thead><tbody>");
        for row in rows {
            html.push_str("<tr>");
            for (i, cell) in row.iter().enumerate() {
                let class = if i == 0 { " class=\"name\"" } else { "" };
                html.push_str(&format!("<td{class}>{}</td>", escape(cell)));
            }
            html.push_str("</tr>");
        }
        html.push_str("</tbody></table>");
    }
    html.push_str("</div>");
    html
}

/// The whole file.
fn page(sections: &str, data: &Value) -> String {
    let index = include_str!("page/index.html");
    // The replay view's markup, as the served page has it.
    let start = index
        .find("<section id=\"replay\"")
        .expect("the page has a replay view");
    let end = start + index[start..].find("</section>").expect("closed") + "</section>".len();
    let replay = index[start..end].replacen(" hidden", "", 1);
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline' data:\">\n\
         <title>connect4 report</title>\n<style>\n{}\n{}{}</style>\n</head>\n<body>\n\
         <header><h1>connect4: report</h1></header>\n<main>\n{sections}<h2>Games</h2>\n{replay}\n</main>\n\
         <script type=\"application/json\" id=\"report-data\">{}</script>\n\
         <script type=\"module\">\n{}\n</script>\n</body>\n</html>\n",
        include_str!("page/style.css"),
        REPORT_STYLE,
        crate::report_tables::STYLE,
        script_safe(&data.to_string()),
        with_imports_inside(include_str!("page/report.js")),
    )
}

/// The page's modules a report uses, by the name they import each other by.
const MODULES: [(&str, &str); 2] = [
    ("./board.js", include_str!("page/board.js")),
    ("./replay.js", include_str!("page/replay.js")),
];

/// A module's source with each `from "./name.js"` made to import that
/// module from a `data:` address holding its source (and its imports,
/// likewise): the served page's modules, working in a file that loads
/// nothing from elsewhere.
fn with_imports_inside(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(at) = rest.find("from \"./") {
        let name_at = at + "from \"".len();
        let end = name_at + rest[name_at..].find('"').unwrap_or(0);
        let name = &rest[name_at..end];
        let module = MODULES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, m)| *m)
            .unwrap_or_else(|| panic!("the report has no module {name}"));
        out.push_str(&rest[..name_at]);
        out.push_str("data:text/javascript;base64,");
        out.push_str(&base64(with_imports_inside(module).as_bytes()));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The report's own style, beside the page's.
const REPORT_STYLE: &str = ".log-report pre { background: #fff; border: 1px solid #ddd; \
    padding: 0.6rem; overflow: auto; font-size: 0.85rem; }\n\
    .log-report .figure { max-width: 100%; background: #fff; }\n";

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_from_logs_cannot_become_markup_or_end_the_script() {
        assert_eq!(
            escape("<img src=x onerror=alert(1)>"),
            "&lt;img src=x onerror=alert(1)&gt;"
        );
        let data = json!({ "name": "</script><script>alert(1)</script>" }).to_string();
        let safe = script_safe(&data);
        assert!(!safe.contains("</script"));
        let back: Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["name"], "</script><script>alert(1)</script>");
    }

    #[test]
    fn the_report_s_script_holds_the_modules_it_imports() {
        let script = with_imports_inside(include_str!("page/report.js"));
        assert!(!script.contains("from \"./"), "{script}");
        use base64::Engine as _;
        let inside = |text: &str| -> String {
            let at = text.find("base64,").unwrap() + "base64,".len();
            let end = at + text[at..].find('"').unwrap();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(&text[at..end])
                .unwrap();
            String::from_utf8(bytes).unwrap()
        };
        // report.js imports replay.js, which imports board.js.
        let replay = inside(&script);
        assert!(replay.contains("export const Replay"));
        assert!(inside(&replay).contains("export function draw"));
    }
}
