// The league view (`serve --league DIR`, `league --serve PORT`): the
// ladder as the league's database holds it now (each player's rating and
// interval, games, points, accuracy and forfeits; the anchors marked; the
// refused submissions; the final round's table), refreshed every 3 s
// while the view is open, and one student's page (their record, the
// moves where their latest submission gave the value away, their
// submissions and games, each game replayed with the solver's verdicts).
// Every name comes from students: it is shown as text, never as markup.

import { getJson } from "./api.js";

const league = { timer: null, student: null, anchor: false };

/** An element `tag` with `text` and, if given, `className`. */
function element(tag, text = "", className = "") {
  const e = document.createElement(tag);
  e.textContent = text;
  if (className) e.className = className;
  return e;
}

/** The address of game `game` of log `log` on the replay view. */
function replayAddress(log, game) {
  return `/replay?log=${encodeURIComponent(log)}&game=${encodeURIComponent(game)}`;
}

/** The address of a player's page. */
function studentAddress(student, anchor) {
  const query = new URLSearchParams({ student });
  if (anchor) query.set("anchor", "1");
  return `/league?${query}`;
}

const percent = (kept, judged) => (judged ? `${((100 * kept) / judged).toFixed(1)}%` : "-");
const lostBy = (forfeits) => Object.entries(forfeits || {}).map(([why, n]) => `${why} ${n}`).join(", ");

/** A row's cell with the player's name, a link to their page, and the
 * anchor's badge. */
function nameCell(p) {
  const cell = element("td", "", "name");
  const link = element("a", p.name);
  link.href = studentAddress(p.student, p.anchor);
  link.dataset.student = p.student;
  link.onclick = async (e) => {
    e.preventDefault();
    await openStudent(p.student, p.anchor);
    document.getElementById("student").scrollIntoView({ block: "start" });
  };
  cell.append(link);
  if (p.anchor) cell.append(element("span", "anchor", "badge"));
  return cell;
}

/** The 95% interval of `p` as a bar on the scale `[low, high]`, the
 * conservative rating marked. */
function intervalCell(p, [low, high]) {
  const cell = element("td");
  const box = element("div", "", "interval");
  box.title = `95%: [${p.low.toFixed(1)}, ${p.high.toFixed(1)}]`;
  const at = (x) => `${(100 * (x - low)) / (high - low || 1)}%`;
  const bar = element("span");
  bar.style.left = at(p.low);
  bar.style.width = `${(100 * (p.high - p.low)) / (high - low || 1)}%`;
  const mark = element("i");
  mark.style.left = at(Math.max(low, p.rating));
  box.append(bar, mark);
  cell.append(box);
  return cell;
}

/** Fills the ladder table with `players`. */
function showLadder(players) {
  const scale = [Math.min(0, ...players.map((p) => p.low)), Math.max(50, ...players.map((p) => p.high))];
  const head = element("tr");
  for (const [text, cls] of [["#"], ["player", "name"], ["rating"], ["95% interval"], ["games"], ["points"],
    ["accuracy"], ["lost by", "name"]]) head.append(element("th", text, cls));
  const rows = players.map((p) => {
    const tr = element("tr", "", p.anchor ? "anchor" : "");
    tr.dataset.student = p.student;
    if (p.student === league.student && p.anchor === league.anchor) tr.classList.add("chosen");
    tr.append(element("td", String(p.rank)), nameCell(p), element("td", p.rating.toFixed(1)), intervalCell(p, scale),
      element("td", String(p.games)), element("td", String(p.points)), element("td", percent(p.kept, p.judged)),
      element("td", lostBy(p.forfeits), "text forfeits"));
    return tr;
  });
  document.getElementById("ladder").replaceChildren(head, ...rows);
}

/** The refused submissions and the final round, when there are any. */
function showRest(data) {
  const warning = document.getElementById("league-warning");
  warning.hidden = !data.warning;
  warning.textContent = data.warning || "";
  document.getElementById("refused-box").hidden = !data.refused.length;
  document.getElementById("refused").replaceChildren(...data.refused.map((r) => {
    const item = element("li");
    item.append(element("strong", `${r.student} v${r.version}`), document.createTextNode(`: ${r.note || ""}`));
    return item;
  }));
  document.getElementById("final-box").hidden = !data.final.length;
  const head = element("tr");
  for (const text of ["#", "player", "games", "points", "accuracy", "lost by"]) head.append(element("th", text));
  document.getElementById("final").replaceChildren(head, ...data.final.map((p) => {
    const tr = element("tr");
    tr.append(element("td", String(p.rank)), nameCell(p), element("td", String(p.games)),
      element("td", String(p.points)), element("td", percent(p.kept, p.judged)), element("td", lostBy(p.forfeits), "text forfeits"));
    return tr;
  }));
}

/** What the league is doing, in a line. */
function statusLine(data) {
  const students = data.players.filter((p) => !p.anchor).length;
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const parts = [`${plural(students, "student")}, round ${data.rounds}, ${plural(data.games, "ladder game")}`];
  if (!data.calibrated) parts.push("the anchors are being rated");
  if (data.unplayed) parts.push(`${data.unplayed} games to play`);
  return `${parts.join(", ")}. Audit: ${data.audit}.`;
}

/** A student's games, newest first, each a link to its replay. */
function showGames(page) {
  const head = element("tr");
  for (const [text, cls] of [["game"], ["kind", "name"], ["first", "name"], ["second", "name"], ["result"],
    ["reason", "name"], ["their accuracy"]]) head.append(element("th", text, cls));
  const rows = page.games.map((g) => {
    const tr = element("tr");
    const cell = element("td");
    const link = element("a", String(g.game));
    link.href = replayAddress(page.log, g.game);
    cell.append(link);
    tr.append(cell, element("td", g.kind, "text"), element("td", g.first, "text"), element("td", g.second, "text"),
      element("td", g.result), element("td", g.reason, "text"), element("td", percent(g.kept, g.judged)));
    return tr;
  });
  if (!rows.length) {
    const none = element("tr");
    const cell = element("td", "no game yet", "text");
    cell.colSpan = head.children.length;
    none.append(cell);
    rows.push(none);
  }
  document.getElementById("student-games").replaceChildren(head, ...rows);
}

/** The moves where the latest submission gave the value away. */
function showSlips(page) {
  const slips = page.latest.slips;
  const items = slips.map((s) => {
    const item = element("li");
    const link = element("a", `game ${s.game}`);
    link.href = replayAddress(page.log, s.game);
    const kept = s.keeping ? `; column ${s.keeping} kept the ${s.before}` : "";
    item.append(link, document.createTextNode(
      `${s.opponent ? ` against ${s.opponent}` : ""}, your move ${s.move}: column ${s.played} turned a ${s.before} into a ${s.after}${kept}`));
    return item;
  });
  if (!items.length) {
    const none = element("li", page.latest.judged ? "none: every judged move kept the value" : "no judged move yet");
    none.className = "none";
    items.push(none);
  }
  document.getElementById("student-slips").replaceChildren(...items);
}

/** Shows a student's page. */
function showStudent(page) {
  const l = page.latest;
  document.getElementById("student").hidden = false;
  document.getElementById("student-name").textContent = page.anchor ? `${page.student} (anchor)` : page.student;
  const place = l.rank ? `#${l.rank} of ${l.of} on the ladder, rating ${l.rating.toFixed(1)}` : `not on the ladder (${l.state})`;
  const lost = lostBy(l.forfeits);
  document.getElementById("student-record").textContent = `${l.name}: ${place}; ${l.games} games, ${l.points} points, ` +
    `accuracy ${percent(l.kept, l.judged)}${lost ? `; lost by forfeit: ${lost}` : ""}.`;
  const noteBox = document.getElementById("student-note");
  noteBox.hidden = !l.note;
  noteBox.textContent = l.note ? `${l.name} was refused: ${l.note}` : "";
  showSlips(page);
  document.getElementById("student-submissions").replaceChildren(...page.submissions.map((s) =>
    element("li", `${s.name}: ${s.state}${s.note ? ` (${s.note})` : ""}` +
      (s.state === "rejected" ? "" : `, rating ${s.rating.toFixed(1)}`))));
  showGames(page);
}

/** Opens the page of `student` (the anchor so named if `anchor`) and puts
 * it in the address. */
async function openStudent(student, anchor) {
  league.student = student;
  league.anchor = anchor;
  window.history.replaceState(null, "", studentAddress(student, anchor));
  await refresh();
}

/** Reads the ladder (and the student's page, if one is open) again, and
 * again in 3 s while the view is open. */
async function refresh() {
  clearTimeout(league.timer);
  if (document.getElementById("league").hidden) return;
  const status = document.getElementById("league-status");
  try {
    const data = await getJson("/api/league");
    status.textContent = statusLine(data);
    showLadder(data.players);
    showRest(data);
    if (league.student !== null) {
      const query = new URLSearchParams({ name: league.student, anchor: league.anchor ? "1" : "0" });
      showStudent(await getJson(`/api/league/student?${query}`));
    }
  } catch (e) {
    status.textContent = `${e.message} (trying again)`;
  }
  league.timer = setTimeout(refresh, 3000);
}

/** Whether the server shows a league: the view's tab appears if so. */
export async function hasLeague() {
  try {
    await getJson("/api/league");
    return true;
  } catch {
    return false;
  }
}

/** Opens the view: the ladder, and the student the address names. */
export function setupLeague() {
  const params = new URL(window.location).searchParams;
  if (window.location.pathname === "/league" && params.has("student")) {
    league.student = params.get("student");
    league.anchor = params.get("anchor") === "1";
  }
  refresh();
}
