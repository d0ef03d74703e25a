// The play view: a game on a board, played by clicks and keys or by the
// engines the server was given, with each column's exact score on demand
// ("show solution"), the position in the address. The page holds no rules
// of its own: the server says, for each position, which columns can be
// played, whether the game is over and how (/api/position). Columns are
// numbered from 1 as in the command line's move strings.

import { getJson } from "./api.js";
import { draw } from "./board.js";

// The boards offered besides one the address names (`?rules=7x7x4`).
const BOARDS = ["7x6x4", "4x4x4", "5x4x4", "6x5x4", "6x7x4", "7x7x4", "8x7x4", "9x6x4"];
const STANDARD = "7x6x4";
// Positions the server described, kept for undo and redo; at most this many.
const KNOWN_MOST = 512;

// `position`: the server's description of the position shown; `steps`:
// the moves asked for, one after the other (a key pressed while the
// server answers waits its turn).
const play = { position: null, redo: [], thinking: false, known: new Map(), steps: Promise.resolve() };

const $ = (id) => document.getElementById(id);

/** The server's description of `moves` on the board `rules` (kept). */
function describe(rules, moves) {
  const key = `${rules}/${moves}`;
  if (!play.known.has(key)) {
    if (play.known.size >= KNOWN_MOST) play.known.clear();
    const query = new URLSearchParams({ rules, moves });
    const asked = getJson(`/api/position?${query}`);
    asked.catch(() => play.known.delete(key));
    play.known.set(key, asked);
  }
  return play.known.get(key);
}

/** Shows `moves` on the board `rules`. */
async function show(rules, moves) {
  play.position = await describe(rules, moves);
  showPlay();
}

/** Takes `step` after the steps before it: given the position shown, it
 * says the board and moves to show next (`[rules, moves]`) or nothing. */
function act(step) {
  play.steps = play.steps.then(async () => {
    const next = step(play.position);
    if (next) await show(...next);
  }).catch((e) => { $("status").textContent = e.message; });
  return play.steps;
}

/** Plays `column` (from 1) if the server said it can be: by a click or
 * a key on a side no engine plays, or by that side's engine. */
export function playColumn(column, byEngine = false) {
  return act((p) => {
    if (!p.playable.includes(column) || (!byEngine && (play.thinking || engineToMove() !== null))) return null;
    play.redo = [];
    return [p.rules, p.moves + String(column)];
  });
}

export function undo() {
  return act((p) => {
    if (!p.moves) return null;
    play.redo.push(p.moves.slice(-1));
    return [p.rules, p.moves.slice(0, -1)];
  });
}

export function redo() {
  return act((p) => (play.redo.length ? [p.rules, p.moves + play.redo.pop()] : null));
}

/** A new game on the board `rules` (the one shown if not given). */
function newGame(rules = null) {
  return act((p) => {
    play.redo = [];
    return [rules || p.rules, ""];
  });
}

function showPlay() {
  const p = play.position;
  draw($("board"), p.moves, { columns: p.columns, rows: p.rows, onColumn: (c) => playColumn(c) });
  const side = (n) => (n === 1 ? "Red (first)" : "Yellow (second)");
  $("status").textContent = p.result === "draw" ? "Draw: the board is full."
    : p.result ? `${side(p.result === "first" ? 1 : 2)} wins.`
      : `${side(p.to_move)} to move` + (p.moves ? ` after ${p.moves}` : " on the empty board") + ".";
  $("keys").textContent = `1 to ${p.columns}`;
  // When the first board was drawn, for scripts/bench-web.py.
  if (!performance.getEntriesByName("board-drawn").length) performance.mark("board-drawn");
  address();
  showScores();
  engineMove();
}

/** The board, the position and whether the solution shows, in the address. */
export function address() {
  if ($("play").hidden || !play.position) return;
  const url = new URL(window.location);
  url.pathname = "/";
  for (const key of ["log", "game", "view"]) url.searchParams.delete(key);
  const set = (key, value) => (value ? url.searchParams.set(key, value) : url.searchParams.delete(key));
  set("rules", play.position.rules === STANDARD ? "" : play.position.rules);
  set("pos", play.position.moves);
  set("solution", $("solution").checked ? "1" : "");
  window.history.replaceState(null, "", url);
}

/** The position's query: the board unless standard, and the moves. */
function positionQuery(p) {
  const rules = p.rules === STANDARD ? "" : `rules=${p.rules}&`;
  return `${rules}moves=${encodeURIComponent(p.moves)}`;
}

/** The engine chosen for the side to move, if any (its index). */
function engineToMove() {
  const seat = $(`seat-${play.position.to_move}`);
  return seat.value === "" ? null : seat.value;
}

/** Lets the engine of the side to move play, one request at a time. */
async function engineMove() {
  const asked = play.position;
  const engine = engineToMove();
  if (engine === null || play.thinking || asked.over) return;
  play.thinking = true;
  $("status").textContent += " The engine is thinking...";
  try {
    const m = await getJson(`/api/move?engine=${engine}&${positionQuery(asked)}`);
    play.thinking = false;
    if (asked === play.position && engineToMove() === engine) playColumn(m.column, true);
  } catch (e) {
    play.thinking = false;
    $("status").textContent = e.message;
  }
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
export async function showScores() {
  const [scores, note, asked] = [$("scores"), $("proving"), play.position];
  scores.style.setProperty("--columns", asked.columns);
  scores.replaceChildren();
  note.textContent = "";
  address();
  if (!$("solution").checked || asked.over) return;
  const current = () => asked === play.position && $("solution").checked;
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

/** The board list, with the shown board if it is another. */
function setupBoards() {
  const select = $("rules");
  const shown = play.position.rules;
  const names = BOARDS.includes(shown) ? BOARDS : [...BOARDS, shown];
  select.replaceChildren(...names.map((r) => new Option(r === STANDARD ? `${r} (standard)` : r, r)));
  select.value = shown;
  select.onchange = () => newGame(select.value);
}

/** The keys of the play view: a column's digit, z undo, y redo, s the
 * solution. */
export function key(e) {
  if (/^[1-9]$/.test(e.key)) playColumn(Number(e.key));
  else if (e.key === "z") undo();
  else if (e.key === "y") redo();
  else if (e.key === "s") {
    $("solution").checked = !$("solution").checked;
    showScores();
  }
}

/** Opens the position of the address (`rules`, `pos`, `solution`); one the
 * server refuses opens the empty board instead, saying why. */
export async function setupPlay() {
  const params = new URL(window.location).searchParams;
  const [rules, pos] = [params.get("rules") || STANDARD, params.get("pos") || params.get("moves") || ""];
  $("solution").checked = params.get("solution") === "1";
  $("new").onclick = () => newGame();
  $("undo").onclick = undo;
  $("redo").onclick = redo;
  $("solution").onchange = showScores;
  getJson("/api/engines").then(({ engines }) => {
    for (const id of ["seat-1", "seat-2"]) {
      const select = $(id);
      engines.forEach((name, i) => select.append(new Option(name, String(i + 1))));
      select.onchange = engineMove;
    }
  });
  play.steps = show(rules, pos).catch(async (refused) => {
    await show(rules, "").catch(() => show(STANDARD, ""));
    $("status").textContent = `${refused.message}: the empty board instead.`;
  }).then(setupBoards);
  await play.steps;
}
