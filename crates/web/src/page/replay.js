// The replay view, shared by the served page and the report file: a list
// of games with filters, and one game stepped move by move with the
// solver's verdicts. `Replay.setup(logs, load, opened)` starts it: `logs`
// lists the games, `load(log, game)` gives a game with its verdicts (a
// promise), `opened(log, game)` hears which game is open.

import { draw, said, verdictClass } from "./board.js";

const replay = { game: null, at: null, ply: 0, list: [], load: null, opened: null };

export const Replay = {
  setup(logs, load, opened = () => {}) {
    replay.list = logs;
    replay.load = load;
    replay.opened = opened;
    for (const [id, step] of [["start", () => 0], ["back", (p) => p - 1], ["forward", (p) => p + 1], ["end", () => Infinity]]) {
      document.getElementById(id).onclick = () => goTo(step(replay.ply));
    }
    fillFilters();
    for (const id of ["filter", "filter-player", "filter-result"]) {
      document.getElementById(id).oninput = listGames;
    }
    listGames();
  },

  /** Opens game `game` of log `log` (both as the list numbers them). */
  open(log, game) {
    const item = document.querySelector(`#games li[data-log="${CSS.escape(String(log))}"][data-game="${CSS.escape(String(game))}"]`);
    return openGame(log, game, item);
  },

  /** Opens the first game of the first log that has one: it shows until
   * another is chosen. */
  openFirst() {
    const first = replay.list.find((log) => log.games.length);
    return first ? Replay.open(first.log, first.games[0].game) : Promise.resolve();
  },

  /** Tells `opened` again which game is open, if one is. */
  reopened() {
    if (replay.at) replay.opened(replay.at.log, replay.at.game);
  },

  /** The arrow keys, Home and End step the open game. */
  key(e) {
    const steps = { ArrowLeft: replay.ply - 1, ArrowRight: replay.ply + 1, Home: 0, End: Infinity };
    if (e.key in steps) { goTo(steps[e.key]); e.preventDefault(); }
  },
};

/** The players and results of the logs, as the filters' choices. */
function fillFilters() {
  const games = replay.list.flatMap((log) => log.games);
  const players = [...new Set(games.flatMap((g) => [g.first, g.second]))].sort();
  const results = [...new Set(games.map((g) => g.result))].sort();
  document.getElementById("filter-player").append(...players.map((p) => new Option(p, p)));
  document.getElementById("filter-result").append(...results.map((r) => new Option(r, r)));
}

function listGames() {
  const words = document.getElementById("filter").value.trim().toLowerCase();
  const player = document.getElementById("filter-player").value;
  const result = document.getElementById("filter-result").value;
  const list = document.getElementById("games");
  list.replaceChildren();
  for (const log of replay.list) {
    const head = document.createElement("li");
    head.className = "log";
    head.textContent = log.name;
    list.append(head);
    for (const g of log.games) {
      const test = g.test ? ` [${g.test}]` : "";
      const text = `game ${g.game}${test}: ${g.first} vs ${g.second}, ${g.result} (${g.reason})`;
      if (words && !text.toLowerCase().includes(words)) continue;
      if (player && g.first !== player && g.second !== player) continue;
      if (result && g.result !== result) continue;
      const item = document.createElement("li");
      item.textContent = text;
      item.dataset.log = log.log;
      item.dataset.game = g.game;
      item.onclick = () => openGame(log.log, g.game, item);
      list.append(item);
    }
  }
}

async function openGame(log, game, item) {
  document.querySelectorAll("#games li.chosen").forEach((li) => li.classList.remove("chosen"));
  if (item) item.classList.add("chosen");
  replay.at = { log, game };
  replay.opened(log, game);
  const title = document.getElementById("game-title");
  title.textContent = "judging every move...";
  try {
    replay.game = await replay.load(log, game);
  } catch (e) {
    title.textContent = e.message;
    return;
  }
  const g = replay.game;
  title.textContent = `Game ${g.game}${g.test ? ` of test "${g.test}"` : ""}: ${g.first} (red, first) vs ${g.second} (yellow, second): ${g.result}, ${g.reason}` +
    (g.detail ? ` (${g.detail})` : "");
  listMoves();
  goTo(Infinity);
}

/**
 * The first column's number for the player who made move `ply` (from 0):
 * 0 for a Python policy or Kaggle agent, whose code numbers columns from 0,
 * 1 otherwise (the protocol's numbers).
 */
function base(g, ply) {
  return g.zero_based && g.zero_based[ply % 2] ? 0 : 1;
}

/** What move `v` did: the opening's moves are the arena's, not judged. */
function told(g, v) {
  return v.ply < g.opening ? "the opening, set by the arena" : said(v, base(g, v.ply));
}

function listMoves() {
  const g = replay.game;
  const list = document.getElementById("moves");
  list.replaceChildren(...g.verdicts.map((v) => {
    const li = document.createElement("li");
    const who = v.ply % 2 === 0 ? g.first : g.second;
    li.textContent = `${who} plays ${v.column + base(g, v.ply)}: ${told(g, v)}`;
    li.className = v.ply < g.opening ? "opening" : verdictClass(v);
    if (g.first_lost.includes(v.ply)) li.classList.add("first-lost");
    // Hooks for outside tests: the move's number from 1, its verdict.
    li.dataset.ply = String(v.ply + 1);
    li.dataset.verdict = verdictClass(v);
    li.onclick = () => goTo(v.ply + 1);
    return li;
  }));
}

function goTo(ply) {
  const g = replay.game;
  if (!g) return;
  replay.ply = Math.max(0, Math.min(ply, g.moves.length));
  const moves = g.moves.slice(0, replay.ply).map((c) => String(c + 1)).join("");
  draw(document.getElementById("replay-board"), moves, { columns: g.columns, rows: g.rows });
  document.getElementById("ply").textContent = `move ${replay.ply} of ${g.moves.length}`;
  document.querySelectorAll("#moves li").forEach((li) =>
    li.classList.toggle("now", Number(li.dataset.ply) === replay.ply));
  const v = g.verdicts[replay.ply - 1];
  document.getElementById("verdict").textContent = v
    ? `Move ${replay.ply}, column ${v.column + base(g, v.ply)}: ${told(g, v)}.` : "The starting position.";
  strip();
}

/** The value for the first player after each move: red won, yellow won, draw. */
function strip() {
  const g = replay.game;
  const cells = g.verdicts.map((v, i) => {
    const span = document.createElement("span");
    const mover = v.after;
    const forFirst = !mover ? null : v.ply % 2 === 0 ? mover : { win: "loss", loss: "win", draw: "draw" }[mover];
    if (forFirst) span.className = forFirst;
    if (i === replay.ply - 1) span.classList.add("now");
    span.title = `after move ${i + 1}: ${forFirst ? `a ${forFirst} for red` : "not proven"}`;
    return span;
  });
  document.getElementById("strip").replaceChildren(...cells);
}
