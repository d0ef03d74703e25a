// The page of `connect4-arena serve`: play and analyse a position, replay
// the games of the logs with the solver's verdict on every move, follow a
// run's standings. Columns are numbered from 1 as in the command line's
// move strings. board.js and replay.js are loaded before it.

async function getJson(url) {
  const reply = await fetch(url);
  const body = await reply.json();
  if (!reply.ok) throw new Error(body.error || reply.statusText);
  return body;
}

// ---- Play and analyse -------------------------------------------------

// The boards offered besides one the address names (`?rules=7x7x4`).
const BOARDS = ["7x6x4", "4x4x4", "5x4x4", "6x5x4", "6x7x4", "7x7x4", "8x7x4", "9x6x4"];
const STANDARD = "7x6x4";

const play = { moves: "", redo: [], thinking: false, rules: STANDARD, columns: 7, rows: 6, inarow: 4 };

/** Sets the board: `text` as `COLUMNSxROWSxINAROW` (`7x7` means four). */
function setRules(text) {
  const m = /^(\d)x(\d{1,2})(?:x(\d{1,2}))?$/.exec(text || "");
  const [columns, rows, inarow] = m ? [Number(m[1]), Number(m[2]), Number(m[3] || 4)] : [7, 6, 4];
  const fits = m && columns >= 4 && rows >= 4 && columns * (rows + 1) <= 64 && inarow >= 3 && inarow <= Math.max(columns, rows);
  Object.assign(play, fits ? { columns, rows, inarow } : { columns: 7, rows: 6, inarow: 4 });
  play.rules = `${play.columns}x${play.rows}x${play.inarow}`;
}

function playable(moves, column) {
  return column >= 1 && column <= play.columns && stones(moves, play.columns)[column - 1].length < play.rows && !over(moves);
}

/** Whether the game of `moves` has ended (a line of `inarow` or a full board). */
function over(moves) {
  const cells = stones(moves, play.columns);
  const at = (c, r) => (c >= 0 && c < play.columns && r >= 0 ? cells[c][r] : undefined);
  const line = [...Array(play.inarow - 1).keys()].map((k) => k + 1);
  for (let c = 0; c < play.columns; c++) {
    for (let r = 0; r < cells[c].length; r++) {
      const who = cells[c][r];
      for (const [dc, dr] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
        if (line.every((k) => at(c + k * dc, r + k * dr) === who)) return `${who}`;
      }
    }
  }
  return moves.length === play.columns * play.rows ? "draw" : null;
}

function showPlay() {
  draw(document.getElementById("board"), play.moves, { columns: play.columns, rows: play.rows, onColumn: playColumn });
  const ended = over(play.moves);
  const status = document.getElementById("status");
  if (ended === "draw") status.textContent = "Draw: the board is full.";
  else if (ended) status.textContent = `${ended === "1" ? "Red (first)" : "Yellow (second)"} wins.`;
  else status.textContent = `${play.moves.length % 2 === 0 ? "Red (first)" : "Yellow (second)"} to move` +
    (play.moves ? ` after ${play.moves}` : " on the empty board") + ".";
  document.getElementById("keys").textContent = `1 to ${play.columns}`;
  // When the first board was drawn, for scripts/bench-web.py.
  if (!performance.getEntriesByName("board-drawn").length) performance.mark("board-drawn");
  address();
  showScores();
  engineMove();
}

/** The board, the position and whether the solution shows, in the address. */
function address() {
  if (document.getElementById("play").hidden) return;
  const url = new URL(window.location);
  url.pathname = "/";
  for (const key of ["log", "game", "view"]) url.searchParams.delete(key);
  const set = (key, value) => (value ? url.searchParams.set(key, value) : url.searchParams.delete(key));
  set("rules", play.rules === STANDARD ? "" : play.rules);
  set("pos", play.moves);
  set("solution", document.getElementById("solution").checked ? "1" : "");
  window.history.replaceState(null, "", url);
}

/** The position's query: the board unless standard, and the moves. */
function positionQuery(moves) {
  const rules = play.rules === STANDARD ? "" : `rules=${play.rules}&`;
  return `${rules}moves=${encodeURIComponent(moves)}`;
}

/** The engine chosen for the side to move, if any (its index). */
function engineToMove() {
  const seat = document.getElementById(`seat-${play.moves.length % 2 === 0 ? 1 : 2}`);
  return seat.value === "" ? null : seat.value;
}

/** Lets the engine of the side to move play, one request at a time. */
async function engineMove() {
  const engine = engineToMove();
  if (engine === null || play.thinking || over(play.moves)) return;
  play.thinking = true;
  const [asked, rules] = [play.moves, play.rules];
  const status = document.getElementById("status");
  status.textContent += " The engine is thinking...";
  try {
    const m = await getJson(`/api/move?engine=${engine}&${positionQuery(asked)}`);
    play.thinking = false;
    if (asked === play.moves && rules === play.rules && engineToMove() === engine) playColumn(m.column, true);
  } catch (e) {
    play.thinking = false;
    status.textContent = e.message;
  }
}

function playColumn(column, byEngine = false) {
  if (!playable(play.moves, column) || (!byEngine && (play.thinking || engineToMove() !== null))) return;
  play.moves += String(column);
  play.redo = [];
  showPlay();
}

/** A column's score as shown: exact, or an estimate marked as such (and
 * as still being proven, with how long the proof has gone on, once the
 * prover works on it). */
function scoreSpan(c) {
  const span = document.createElement("span");
  span.dataset.scoreCol = String(c.column);
  if (!c.playable) return span;
  span.dataset.exact = String(c.exact);
  if (c.exact) {
    span.textContent = String(c.score);
    span.className = c.score > 0 ? "win" : c.score < 0 ? "loss" : "draw";
    return span;
  }
  const proving = c.proving_ms === undefined
    ? "solving on..."
    : `still proving (${Math.round(c.proving_ms / 1000)} s so far)...`;
  if (c.proving_ms !== undefined) span.dataset.proving = "true";
  if (c.outcome) {
    span.textContent = { win: "W", draw: "D", loss: "L" }[c.outcome];
    span.className = `unproven ${c.outcome}`;
    span.title = `a ${c.outcome}, proven; its distance is not yet: ${proving}`;
  } else {
    span.textContent = c.estimate > 0 ? "+?" : c.estimate < 0 ? "-?" : "?";
    span.className = "unproven";
    span.title = `not proven yet; the search's estimate is ${c.estimate} (of -99 to 99): ${proving}`;
  }
  if (c.proving_ms !== undefined) span.classList.add("proving");
  return span;
}

/** Every column's score: a first answer at once (exact where the book or
 * a short solve proves it, else an estimate), then the proof of each
 * unproven column, asked for again and again while the position stays
 * (the server's prover goes on between the asks), put in the estimate's
 * place when it comes. */
async function showScores() {
  const scores = document.getElementById("scores");
  const note = document.getElementById("proving");
  scores.style.setProperty("--columns", play.columns);
  scores.replaceChildren();
  note.textContent = "";
  address();
  if (!document.getElementById("solution").checked || over(play.moves)) return;
  const [asked, rules] = [play.moves, play.rules];
  const current = () => asked === play.moves && rules === play.rules && document.getElementById("solution").checked;
  scores.textContent = "solving...";
  const query = `/api/analyze?${positionQuery(asked)}`;
  try {
    const a = await getJson(query);
    if (!current()) return;
    scores.replaceChildren(...a.columns.map((c) => scoreSpan(c)));
    for (const c of a.columns.filter((c) => c.playable && !c.exact)) {
      let proof = c;
      while (!proof.exact) {
        [proof] = (await getJson(`${query}&column=${c.column}&deep=1`)).columns;
        if (!current()) return;
        scores.children[c.column - 1].replaceWith(scoreSpan(proof));
        note.textContent = proof.exact ? "" : `proving column ${c.column}: ` +
          `${Math.round((proof.proving_ms || 0) / 1000)} s so far...`;
      }
    }
    note.textContent = "";
  } catch (e) {
    if (current()) scores.textContent = e.message;
  }
}

/** The board list, with the address's board if it is another. */
function setupBoards() {
  const select = document.getElementById("rules");
  const names = BOARDS.includes(play.rules) ? BOARDS : [...BOARDS, play.rules];
  select.replaceChildren(...names.map((r) => new Option(r === STANDARD ? `${r} (standard)` : r, r)));
  select.value = play.rules;
  select.onchange = () => {
    setRules(select.value);
    play.moves = "";
    play.redo = [];
    showPlay();
  };
}

function setupPlay() {
  const params = new URL(window.location).searchParams;
  const pos = params.get("pos") || params.get("moves") || "";
  document.getElementById("solution").checked = params.get("solution") === "1";
  setRules(params.get("rules") || STANDARD);
  setupBoards();
  play.moves = "";
  for (const ch of /^[1-9]*$/.test(pos) ? pos : "") {
    if (!playable(play.moves, Number(ch))) break;
    play.moves += ch;
  }
  document.getElementById("new").onclick = () => { play.moves = ""; play.redo = []; showPlay(); };
  document.getElementById("undo").onclick = undo;
  document.getElementById("redo").onclick = redo;
  document.getElementById("solution").onchange = showScores;
  getJson("/api/engines").then(({ engines }) => {
    for (const id of ["seat-1", "seat-2"]) {
      const select = document.getElementById(id);
      engines.forEach((name, i) => select.append(new Option(name, String(i + 1))));
      select.onchange = engineMove;
    }
  });
  showPlay();
}

function undo() {
  if (!play.moves) return;
  play.redo.push(play.moves.slice(-1));
  play.moves = play.moves.slice(0, -1);
  showPlay();
}

function redo() {
  if (!play.redo.length) return;
  play.moves += play.redo.pop();
  showPlay();
}

// ---- Replay -------------------------------------------------------------

/** The server judges every game of the logs once, in the background:
 * how far it is, until it is done (or stops: a game not judged then is
 * judged when it is opened). */
async function showJudging(logs, still = 0) {
  const status = document.getElementById("judging");
  const total = logs.reduce((n, l) => n + l.games.length, 0);
  const judgedIn = (ls) => ls.reduce((n, l) => n + Math.min(l.judged, l.games.length), 0);
  const judged = judgedIn(logs);
  status.textContent = judged >= total ? "" : `the solver has judged ${judged} of ${total} games' moves...`;
  if (judged >= total || still > 10) return;
  await new Promise((done) => setTimeout(done, 1000));
  const next = (await getJson("/api/games")).logs;
  showJudging(next, judgedIn(next) > judged ? 0 : still + 1);
}

async function setupReplay() {
  const { logs } = await getJson("/api/games");
  showJudging(logs).catch(() => {});
  Replay.setup(logs, (log, game) => getJson(`/api/game?log=${log}&game=${game}`), (log, game) => {
    // The address follows the game shown, when the replay is the view.
    if (document.getElementById("replay").hidden) return;
    const url = new URL(window.location);
    url.pathname = "/replay";
    url.search = `?log=${log}&game=${game}`;
    window.history.replaceState(null, "", url);
  });
  const params = new URL(window.location).searchParams;
  if (window.location.pathname === "/replay" && params.has("log") && params.has("game")) {
    await Replay.open(params.get("log"), params.get("game"));
  } else {
    await Replay.openFirst();
  }
}

// ---- Standings, live -----------------------------------------------------

const live = { timer: null, log: 1 };
const SVG = "http://www.w3.org/2000/svg";

/** A table of `head` and `rows` (arrays of texts) put into `table`. */
function fillTable(table, head, rows) {
  const tr = (cells, tag) => {
    const row = document.createElement("tr");
    row.append(...cells.map((text) => {
      const cell = document.createElement(tag);
      cell.textContent = text;
      return cell;
    }));
    return row;
  };
  table.replaceChildren(tr(head, "th"), ...rows.map((r) => tr(r, "td")));
}

const signed = (x) => (x === null || x === undefined ? "" : (x >= 0 ? "+" : "") + x.toFixed(1));

/** A line chart of `series` ([{name, points: [[x, y, lo, hi]]}]) with guides. */
function chart(svg, series, guides) {
  const [w, h, left, bottom] = [520, Number(svg.getAttribute("viewBox").split(" ")[3]), 44, 22];
  const all = series.flatMap((s) => s.points);
  const xs = all.map((p) => p[0]);
  // The range holds every value, the guides and each series' last
  // interval; the early, wide intervals are cut at its edges.
  const lasts = series.map((s) => s.points[s.points.length - 1]).filter(Boolean);
  const ys = all.map((p) => p[1]).concat(lasts.flatMap((p) => [p[2], p[3]]), guides.map((g) => g.y))
    .filter((v) => v !== null && v !== undefined && isFinite(v));
  const [x0, x1] = [0, Math.max(1, ...xs)];
  const [y0, y1] = ys.length ? [Math.min(...ys), Math.max(...ys)] : [-1, 1];
  const pad = (y1 - y0) * 0.08 || 1;
  const X = (x) => left + ((x - x0) / (x1 - x0)) * (w - left - 8);
  const Y = (y) => 6 + ((y1 + pad - Math.max(y0 - pad, Math.min(y1 + pad, y))) / (y1 - y0 + 2 * pad)) * (h - bottom - 6);
  const el = (tag, attrs, text) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const parts = [el("line", { x1: left, y1: h - bottom, x2: w - 8, y2: h - bottom, class: "axis" }),
    el("text", { x: w - 8, y: h - 4, "text-anchor": "end" }, `games played (${x1})`),
    el("text", { x: 2, y: Y(y1 + pad) + 10 }, (y1 + pad).toFixed(1)),
    el("text", { x: 2, y: Y(y0 - pad) }, (y0 - pad).toFixed(1))];
  for (const g of guides) {
    parts.push(el("line", { x1: left, x2: w - 8, y1: Y(g.y), y2: Y(g.y), class: `guide ${g.kind}` }));
    parts.push(el("text", { x: w - 10, y: Y(g.y) - 3, "text-anchor": "end", class: "guide-label" }, g.label));
  }
  series.forEach((s, i) => {
    const points = s.points.filter((p) => isFinite(p[1]));
    for (const p of points) {
      if (p[2] !== null && p[2] !== undefined) parts.push(el("line", { x1: X(p[0]), x2: X(p[0]), y1: Y(p[2]), y2: Y(p[3]), class: `bar s${i % 4}` }));
    }
    if (points.length) parts.push(el("polyline", { points: points.map((p) => `${X(p[0])},${Y(p[1])}`).join(" "), class: `series s${i % 4}` }));
    parts.push(el("text", { x: left + 6, y: 16 + 14 * i, class: `legend s${i % 4}` }, s.name));
  });
  svg.replaceChildren(...parts);
}

/** An engine's forfeits as "crash 4, illegal move 8" (empty when none). */
function lostBy(forfeits) {
  return Object.entries(forfeits || {}).map(([why, n]) => `${why} ${n}`).join(", ");
}

/** Shows the note `id` with `text` when `count` is above zero, else hides it. */
function note(id, count, text) {
  const box = document.getElementById(id);
  box.hidden = !(count > 0);
  box.textContent = count > 0 ? text : "";
}

/** Draws a run's standings as the server computed them. */
function showStandings(data) {
  const { summary, crosstable, curves, sprt, running } = data;
  fillTable(document.getElementById("standings"), ["engine", "games", "points", "score", "ms/move", "lost by"],
    [...summary.engines].sort((a, b) => b.points - a.points).map((e) =>
      [e.name, String(e.games), String(e.points), e.games ? `${((100 * e.points) / e.games).toFixed(1)}%` : "", e.ms_per_move.toFixed(1),
        lostBy(e.forfeits)]));
  const names = crosstable.engines;
  fillTable(document.getElementById("crosstable"), ["", ...names.map((n, i) => `${i + 1}`)],
    names.map((n, i) => [`${i + 1} ${n}`, ...names.map((_, j) => (i === j ? "-" : crosstable.games[i][j] ? `${crosstable.points[i][j]}/${crosstable.games[i][j]}` : ""))]));
  note("crosstable-note", crosstable.left_out, `The ${names.length} best engines by score; ${crosstable.left_out} more are in the standings.`);
  note("curves-note", data.curves_left_out, `The ${curves.length} pairings with the most games; ${data.curves_left_out} more are not drawn.`);
  document.getElementById("ratings-box").hidden = !summary.ratings || !summary.ratings.length;
  if (summary.ratings && summary.ratings.length) {
    fillTable(document.getElementById("ratings"), ["#", "engine", "Elo", "95%", "games"],
      summary.ratings.map((r, i) => [String(i + 1), r.name, signed(r.elo), `[${signed(r.low)}, ${signed(r.high)}]`, String(r.games)]));
  } else {
    // Two engines: the pairing's Elo with its interval in the standings.
    const p = summary.pairings[0];
    if (p) document.getElementById("live-status").textContent +=
      ` ${p.a} vs ${p.b}: ${p.wins} wins, ${p.draws} draws, ${p.losses} losses; Elo ${signed(p.elo)} [95%: ${signed(p.elo_95[0])}, ${signed(p.elo_95[1])}]` +
      (p.sprt ? `, LLR ${p.sprt.llr.toFixed(2)}` : "");
  }
  chart(document.getElementById("elo-chart"), curves.map((c) => ({ name: `${c.a} vs ${c.b}`, points: c.elo })),
    [{ y: 0, label: "even", kind: "even" }]);
  document.getElementById("llr-box").hidden = !sprt;
  if (sprt) {
    chart(document.getElementById("llr-chart"), curves.map((c) => ({ name: `${c.a} vs ${c.b}`, points: c.llr })),
      [{ y: sprt.upper, label: `H1 (${sprt.elo1} Elo)`, kind: "h1" }, { y: sprt.lower, label: `H0 (${sprt.elo0} Elo)`, kind: "h0" }]);
  }
  const boards = running.map((g) => {
    const box = document.createElement("figure");
    box.className = "game-now";
    box.dataset.game = String(g.game);
    const board = document.createElement("div");
    board.className = "board small";
    draw(board, g.moves);
    const caption = document.createElement("figcaption");
    caption.textContent = `game ${g.game}: ${g.first} vs ${g.second}, move ${g.moves.length}`;
    box.append(board, caption);
    return box;
  });
  const none = document.createElement("p");
  none.textContent = data.live ? "none at this moment" : "(only a run's own page, --serve, shows them)";
  document.getElementById("running").replaceChildren(...(boards.length ? boards : [none]));
}

async function refreshLive() {
  clearTimeout(live.timer);
  if (document.getElementById("live").hidden) return;
  const status = document.getElementById("live-status");
  try {
    const data = await getJson(`/api/live?log=${live.log}`);
    const state = data.finished ? ", the run finished:" : data.live ? ", the run under way:" : ":";
    status.textContent = `${data.summary.games} games in ${data.name}${state}`;
    status.dataset.finished = String(Boolean(data.finished));
    showStandings(data);
  } catch (e) {
    status.textContent = `${e.message}: the run has ended or the server stopped (trying again)`;
  }
  live.timer = setTimeout(refreshLive, 2000);
}

async function setupLive() {
  const { logs } = await getJson("/api/games");
  const select = document.getElementById("live-log");
  select.replaceChildren(...logs.map((l) => new Option(l.name, String(l.log))));
  const asked = new URL(window.location).searchParams.get("log");
  if (asked && logs.some((l) => String(l.log) === asked)) select.value = asked;
  live.log = select.value || 1;
  select.onchange = () => { live.log = select.value; refreshLive(); };
  refreshLive();
}

// ---- Tabs and keys --------------------------------------------------------

function show(view) {
  for (const name of ["play", "replay", "live"]) {
    document.getElementById(name).hidden = name !== view;
    document.getElementById(`tab-${name}`).setAttribute("aria-pressed", String(name === view));
  }
  if (view === "play") address();
  else if (view === "replay" && replay.at) replay.opened(replay.at.log, replay.at.game);
  else if (window.location.pathname !== `/${view}`) window.history.replaceState(null, "", `/${view}`);
  if (view === "live") setupLive().catch((e) => { document.getElementById("live-status").textContent = e.message; });
}

document.addEventListener("keydown", (e) => {
  if (e.target instanceof HTMLInputElement && e.target.type !== "checkbox") return;
  if (!document.getElementById("live").hidden) return;
  if (!document.getElementById("play").hidden) {
    if (/^[1-9]$/.test(e.key)) playColumn(Number(e.key));
    else if (e.key === "z") undo();
    else if (e.key === "y") redo();
    else if (e.key === "s") { const box = document.getElementById("solution"); box.checked = !box.checked; showScores(); }
  } else {
    Replay.key(e);
  }
});

document.getElementById("tab-play").onclick = () => show("play");
document.getElementById("tab-replay").onclick = () => show("replay");
document.getElementById("tab-live").onclick = () => show("live");
const opening = new URL(window.location);
if (opening.pathname === "/replay" || opening.searchParams.get("view") === "replay") show("replay");
if (opening.pathname === "/live") show("live");
setupPlay();
setupReplay().catch((e) => { document.getElementById("game-title").textContent = e.message; });
