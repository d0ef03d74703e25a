// The board and the verdicts' words, shared by the served page and the
// report file. Columns are numbered from 1 as in the command line's move
// strings; the standard board unless told otherwise. It draws what it is
// given: whether a move can be played is the server's to say.

const COLUMNS = 7;
const ROWS = 6;

/** A position from a move string: `cells[column]` lists its stones, 1 or 2. */
export function stones(moves, columns = COLUMNS) {
  const cells = Array.from({ length: columns }, () => []);
  [...moves].forEach((ch, i) => cells[Number(ch) - 1].push(i % 2 === 0 ? 1 : 2));
  return cells;
}

/** Draws `moves` on `board` (a .board element); `onColumn` makes it playable. */
export function draw(board, moves, { columns = COLUMNS, rows = ROWS, onColumn = null } = {}) {
  board.style.setProperty("--columns", columns);
  const cells = stones(moves, columns);
  const last = moves.length ? Number(moves[moves.length - 1]) - 1 : -1;
  board.replaceChildren();
  for (let r = rows - 1; r >= 0; r--) {
    for (let c = 0; c < columns; c++) {
      const cell = document.createElement("div");
      const who = cells[c][r];
      cell.className = "cell" + (who ? ` p${who}` : "");
      if (c === last && r === cells[c].length - 1) cell.classList.add("last");
      // The hooks outside tests use: column from 1 (left), row from 1
      // (bottom), the stone (1 first player, 2 second, empty).
      cell.dataset.col = String(c + 1);
      cell.dataset.row = String(r + 1);
      cell.dataset.stone = who ? String(who) : "";
      if (onColumn) cell.addEventListener("click", () => onColumn(c + 1));
      board.append(cell);
    }
  }
}

/** Words for a verdict: kept, lost (and the move that kept it), or unknown. */
export function said(v, base = 1) {
  if (!v.before || !v.after) return "not proven in time";
  if (v.before === v.after) return v.before === "loss" ? "a lost position either way" : `kept the ${v.before}`;
  const kept = v.keeping === null || v.keeping === undefined ? "" : `; ${v.keeping + base} kept it`;
  return `${v.before} to ${v.after}${kept}`;
}

/** `kept`, `lost` or `unknown` (not proven in time). */
export function verdictClass(v) {
  if (!v.before || !v.after) return "unknown";
  return v.before === v.after ? "kept" : "lost";
}
