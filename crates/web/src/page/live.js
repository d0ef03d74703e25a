// The standings view: a log's standings as the server computes them
// (points, forfeits, crosstable, ratings, the Elo and SPRT curves) and,
// on a run's own page, its games under way; refreshed every 2 s while
// the view is open.

import { getJson } from "./api.js";
import { draw } from "./board.js";
import { chart } from "./chart.js";

const live = { timer: null, log: 1 };

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

/** A pairing's Elo with its interval, or why it has none. */
function eloWords(p) {
  if (typeof p.elo === "number" && Number.isFinite(p.elo)) {
    // A bound the games cannot bound (every game of a side won) is infinite.
    const [low, high] = p.elo_95;
    return `Elo ${signed(p.elo)} [95%: ${signed(low) || "-inf"}, ${signed(high) || "+inf"}]`;
  }
  if (p.games && p.wins === p.games) return `no finite Elo: ${p.a} won every game`;
  if (p.games && p.losses === p.games) return `no finite Elo: ${p.b} won every game`;
  return "no Elo yet";
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

  document.getElementById("ratings-box").hidden = !summary.ratings || !summary.ratings.length;
  if (summary.ratings && summary.ratings.length) {
    fillTable(document.getElementById("ratings"), ["#", "engine", "Elo", "95%", "games"],
      summary.ratings.map((r, i) => [String(i + 1), r.name, signed(r.elo), `[${signed(r.low)}, ${signed(r.high)}]`, String(r.games)]));
  } else {
    // Two engines: the pairing's Elo with its interval in the standings.
    const p = summary.pairings[0];
    if (p) document.getElementById("live-status").textContent +=
      ` ${p.a} vs ${p.b}: ${p.wins} wins, ${p.draws} draws, ${p.losses} losses; ${eloWords(p)}` +
      (p.sprt ? `, LLR ${p.sprt.llr.toFixed(2)}` : "");
  }
  const undrawn = chart(document.getElementById("elo-chart"), curves.map((c) => ({ name: `${c.a} vs ${c.b}`, points: c.elo })),
    [{ y: 0, label: "even", kind: "even" }]);
  const notes = [];
  if (data.curves_left_out > 0) notes.push(`The ${curves.length} pairings with the most games; ${data.curves_left_out} more are not drawn.`);
  if (undrawn.length) notes.push(`No finite Elo, not drawn (one side won every game): ${undrawn.join(", ")}.`);
  note("curves-note", notes.length, notes.join(" "));
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

export async function setupLive() {
  const { logs } = await getJson("/api/games");
  const select = document.getElementById("live-log");
  select.replaceChildren(...logs.map((l) => new Option(l.name, String(l.log))));
  const asked = new URL(window.location).searchParams.get("log");
  if (asked && logs.some((l) => String(l.log) === asked)) select.value = asked;
  live.log = select.value || 1;
  select.onchange = () => { live.log = select.value; refreshLive(); };
  refreshLive();
}

