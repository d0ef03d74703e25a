// The report file's entry: its games, with their verdicts, are in the
// file itself (the JSON of #report-data); the replay view shows them as
// the served page does, with the same modules.

import { Replay } from "./replay.js";

const data = JSON.parse(document.getElementById("report-data").textContent);
const byLog = new Map(data.logs.map((log) => [String(log.log), log]));
Replay.setup(data.logs, async (log, game) => {
  const found = byLog.get(String(log))?.games.find((g) => String(g.game) === String(game));
  if (!found) throw new Error(`log ${log} has no game ${game}`);
  return found;
});
document.addEventListener("keydown", (e) => Replay.key(e));
Replay.openFirst();
