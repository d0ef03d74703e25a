// The served page's replay: the logs' games as the server lists them,
// how far its judging of every move is, and the game shown in the
// address. The replay view itself is replay.js, which the report file
// shares.

import { getJson } from "./api.js";
import { Replay } from "./replay.js";

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

export async function setupReplay() {
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

