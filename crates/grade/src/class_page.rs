//! The class's page (`index.html` beside `grades.csv`): one file that
//! loads nothing from elsewhere, with a row per student (each test's score,
//! the total, what kept a grading from finishing), sortable and filtered
//! by name, and each student's whole feedback a click away (the address
//! names the student shown: `#alice`). The results ride in the file as
//! JSON; its script puts every text from them on the page as text, never
//! as markup, and its policy runs no other script.

use serde_json::{Value, json};

use crate::report::GradescopeResults;
use connect4_match::page::script_safe;

/// One student's line of the class: their folder's name and what the
/// grading left (none when it left no results).
#[derive(Clone)]
pub struct Graded {
    /// The submission folder's name.
    pub name: String,
    /// The grading's results, if it wrote them.
    pub results: Option<GradescopeResults>,
    /// Why there are no results, or what went wrong reading them.
    pub trouble: Option<String>,
}

/// The page of `class`, graded from the folder `folder`; `warning`, when
/// given, heads it (a class graded without isolation says so).
pub fn page(class: &[Graded], folder: &str, warning: Option<&str>) -> String {
    let data = json!({
        "folder": folder,
        "warning": warning,
        "students": class.iter().map(student).collect::<Vec<_>>(),
    });
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n\
         <title>connect4: the class's grades</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         {BODY}\n<script type=\"application/json\" id=\"class-data\">{}</script>\n\
         <script type=\"module\">\n{SCRIPT}</script>\n</body>\n</html>\n",
        script_safe(&data.to_string())
    )
}

/// One student's row and feedback.
fn student(g: &Graded) -> Value {
    match &g.results {
        Some(r) => json!({
            "name": g.name,
            "score": r.score,
            "max": r.tests.iter().map(|t| t.max_score).sum::<f64>(),
            "output": r.output,
            "seconds": r.execution_time,
            "tests": r.tests.iter().map(|t| json!({
                "name": t.name, "score": t.score, "max": t.max_score,
                "status": t.status, "output": t.output,
            })).collect::<Vec<_>>(),
        }),
        None => json!({ "name": g.name, "trouble": g.trouble, "tests": [] }),
    }
}

/// The page's markup: the summary, the table, one student's feedback.
const BODY: &str = r#"<header><h1>connect4: the class's grades</h1><p id="summary" role="status"></p><p id="warning" role="alert" hidden></p></header>
<main>
  <div class="toolbar"><input id="filter" type="search" placeholder="filter students by name" aria-label="filter students by name">
    <span class="hint">Click a column's name to sort, a student to read their feedback.</span></div>
  <div class="scroll"><table id="grades"></table></div>
  <section id="student" hidden>
    <h2 id="student-name"></h2>
    <p id="student-total"></p>
    <div id="student-tests"></div>
  </section>
</main>"#;

/// The page's style.
const STYLE: &str =
    "body { font-family: system-ui, sans-serif; margin: 0; background: #fafafa; color: #222; }
header { padding: 0.8rem 1.2rem; background: #fff; border-bottom: 1px solid #ddd; }
h1 { font-size: 1.3rem; margin: 0; }
main { padding: 1rem 1.2rem; }
.toolbar { display: flex; gap: 1rem; align-items: center; margin-bottom: 0.8rem; }
.hint { color: #666; font-size: 0.9rem; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #ddd; padding: 0.3rem 0.6rem; text-align: right; }
td { white-space: nowrap; }
th { background: #f0f0f0; cursor: pointer; font-weight: 600; max-width: 12rem; }
td:first-child, th:first-child { text-align: left; }
tr.row { cursor: pointer; }
tr.row:hover, tr.row.chosen { background: #eef4ff; }
td.full { background: #e6f4ea; }
td.part { background: #fff6dd; }
td.none { background: #fde8e8; }
td.note { text-align: left; color: #a00; }
#warning { color: #a00; font-weight: 600; margin: 0.4rem 0 0; }
#student { margin-top: 1.2rem; }
.test { background: #fff; border: 1px solid #ddd; margin: 0.6rem 0; padding: 0.4rem 0.8rem; }
.test h3 { font-size: 1rem; margin: 0.2rem 0; }
.test pre { white-space: pre-wrap; font-size: 0.85rem; margin: 0.3rem 0; background: #f6f6f6; padding: 0.3rem; }
.test p, .test ul { margin: 0.3rem 0; }
";

/// The page's script: the table and the feedback from the JSON.
const SCRIPT: &str = r#"const data = JSON.parse(document.getElementById("class-data").textContent);
const students = data.students;
const testNames = [...new Set(students.flatMap((s) => s.tests.map((t) => t.name)))];
const view = { key: "name", down: false };
const el = (tag, text, className) => {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
};
const fmt = (x) => (x === undefined || x === null ? "" : String(Math.round(x * 100) / 100));
const share = (score, max) => (max > 0 ? score / max : 1);
const band = (score, max) => (share(score, max) >= 0.999 ? "full" : score > 0 ? "part" : "none");

function summary() {
  const totals = students.filter((s) => s.max !== undefined).map((s) => s.score).sort((a, b) => a - b);
  const median = totals.length ? totals[Math.floor((totals.length - 1) / 2)] : null;
  document.getElementById("summary").textContent = `${students.length} submission(s) in ${data.folder}; ` +
    `${totals.length} graded` + (median === null ? "" : `, median total ${fmt(median)}`) + ".";
  if (data.warning) {
    const warning = document.getElementById("warning");
    warning.textContent = data.warning;
    warning.hidden = false;
  }
}

function sortKey(s) {
  if (view.key === "name") return s.name.toLowerCase();
  if (view.key === "total") return s.score ?? -1;
  const t = s.tests.find((t) => t.name === view.key);
  return t ? t.score : -1;
}

function table() {
  const words = document.getElementById("filter").value.trim().toLowerCase();
  const head = el("tr");
  for (const [key, label] of [["name", "student"], ...testNames.map((n) => [n, n]), ["total", "total"], ["note", "note"]]) {
    const th = el("th", label + (view.key === key ? (view.down ? " \u25bc" : " \u25b2") : ""));
    th.dataset.key = key;
    th.onclick = () => { view.down = view.key === key ? !view.down : key !== "name"; view.key = key; table(); };
    head.append(th);
  }
  const shown = students.filter((s) => s.name.toLowerCase().includes(words));
  shown.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0) * (view.down ? -1 : 1));
  const rows = shown.map((s) => {
    const tr = el("tr", undefined, "row");
    tr.dataset.student = s.name;
    tr.append(el("td", s.name));
    for (const name of testNames) {
      const t = s.tests.find((t) => t.name === name);
      tr.append(t ? el("td", `${fmt(t.score)} / ${fmt(t.max)}`, band(t.score, t.max)) : el("td", ""));
    }
    tr.append(s.max === undefined ? el("td", "") : el("td", `${fmt(s.score)} / ${fmt(s.max)}`, band(s.score, s.max)));
    tr.append(el("td", noteOf(s), "note"));
    tr.onclick = () => { window.location.hash = encodeURIComponent(s.name); };
    if (decodeURIComponent(window.location.hash.slice(1)) === s.name) tr.classList.add("chosen");
    return tr;
  });
  document.getElementById("grades").replaceChildren(head, ...rows);
}

const firstLine = (text) => (text || "").split("\n").find((l) => l.trim()) || "";
// What kept a grading from finishing, or what its output says first after
// its total (a submission that never loaded says so there).
const noteOf = (s) => s.trouble || firstLine((s.output || "").split("\n").slice(1).join("\n"))
  || (s.tests.length ? "" : firstLine(s.output));

/** The grader's markdown (crates/grade/src/report.rs: fenced blocks, "- "
 * lists, backslash escapes) as elements, every text put in as text. */
function rendered(text) {
  const out = document.createDocumentFragment();
  const lines = (text || "").split("\n");
  let list = null;
  for (let i = 0; i < lines.length; i++) {
    const fence = lines[i].match(/^`{3,}/);
    if (fence) {
      const code = [];
      for (i++; i < lines.length && lines[i] !== fence[0]; i++) code.push(lines[i]);
      out.append(el("pre", code.join("\n")));
      list = null;
      continue;
    }
    if (!lines[i].trim()) { list = null; continue; }
    const item = lines[i].match(/^- (.*)$/);
    if (item && !list) list = out.appendChild(el("ul"));
    if (!item) list = null;
    inline(item ? list.appendChild(el("li")) : out.appendChild(el("p")), item ? item[1] : lines[i]);
  }
  return out;
}

/** `text` into `into`, each escaped character as itself (the grader
 * escapes every character markdown would read as formatting). */
function inline(into, text) {
  into.append(document.createTextNode(text.replace(/\\([\\`*_\[\]<>#|~+=-])/g, "$1")));
}

function showStudent() {
  const name = decodeURIComponent(window.location.hash.slice(1));
  const s = students.find((s) => s.name === name);
  const box = document.getElementById("student");
  box.hidden = !s;
  table();
  if (!s) return;
  document.getElementById("student-name").textContent = s.name;
  document.getElementById("student-total").textContent = s.max === undefined ? s.trouble || ""
    : `total ${fmt(s.score)} / ${fmt(s.max)}` + (s.seconds ? `, graded in ${fmt(s.seconds)} s` : "");
  const blocks = (s.output && s.output.trim() ? [{ name: "the grading", output: s.output }] : []).concat(s.tests);
  document.getElementById("student-tests").replaceChildren(...blocks.map((t) => {
    const div = el("div", undefined, "test");
    div.dataset.test = t.name;
    const title = t.max === undefined ? t.name : `${t.name}: ${fmt(t.score)} / ${fmt(t.max)} (${t.status})`;
    const body = el("div", undefined, "feedback");
    body.append(rendered(t.output));
    div.append(el("h3", title), body);
    return div;
  }));
  box.scrollIntoView({ block: "nearest" });
}

document.getElementById("filter").oninput = table;
window.addEventListener("hashchange", showStudent);
summary();
showStudent();
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_feedback_ride_as_data_never_as_markup() {
        let hostile = "</script><script>alert(1)</script>";
        let class = [Graded {
            name: hostile.into(),
            results: Some(GradescopeResults {
                score: 1.0,
                output: hostile.into(),
                output_format: None,
                test_output_format: None,
                execution_time: None,
                stdout_visibility: None,
                tests: Vec::new(),
                leaderboard: Vec::new(),
            }),
            trouble: None,
        }];
        let html = page(&class, "subs", None);
        assert_eq!(html.matches("</script>").count(), 2, "{html}");
        let at = html.find("id=\"class-data\">").unwrap() + "id=\"class-data\">".len();
        let end = at + html[at..].find("</script>").unwrap();
        let data: Value = serde_json::from_str(&html[at..end]).unwrap();
        assert_eq!(data["students"][0]["name"], hostile);
    }
}
