// The page's entry: its views behind tabs (play and analyse, replay,
// standings, and a league's ladder when the server shows one), the keys
// sent to the view open, and each view started. Every view is a module
// of its own.

import { setupReplay } from "./games.js";
import { hasLeague, setupLeague } from "./league.js";
import { setupLive } from "./live.js";
import { address, key as playKey, setupPlay } from "./play.js";
import { Replay } from "./replay.js";

function show(view) {
  for (const name of ["play", "replay", "live", "league"]) {
    document.getElementById(name).hidden = name !== view;
    document.getElementById(`tab-${name}`).setAttribute("aria-pressed", String(name === view));
  }
  if (view === "play") address();
  else if (view === "replay") Replay.reopened();
  else if (window.location.pathname !== `/${view}`) window.history.replaceState(null, "", `/${view}`);
  if (view === "league") setupLeague();
  if (view === "live") setupLive().catch((e) => { document.getElementById("live-status").textContent = e.message; });
}

document.addEventListener("keydown", (e) => {
  if (e.target instanceof HTMLInputElement && e.target.type !== "checkbox") return;
  if (!document.getElementById("live").hidden || !document.getElementById("league").hidden) return;
  if (!document.getElementById("play").hidden) playKey(e);
  else Replay.key(e);
});

document.getElementById("tab-play").onclick = () => show("play");
document.getElementById("tab-replay").onclick = () => show("replay");
document.getElementById("tab-live").onclick = () => show("live");
document.getElementById("tab-league").onclick = () => show("league");
const opening = new URL(window.location);
if (opening.pathname === "/replay" || opening.searchParams.get("view") === "replay") show("replay");
if (opening.pathname === "/live") show("live");
if (opening.pathname === "/league") show("league");
hasLeague().then((shown) => { document.getElementById("tab-league").hidden = !shown; });
setupPlay();
setupReplay().catch((e) => { document.getElementById("game-title").textContent = e.message; });
