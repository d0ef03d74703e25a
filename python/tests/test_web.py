"""`connect4-arena serve` in a real browser (the system's Chromium, driven by
Playwright): a position from the address, its solution checked against
Pascal Pons' solver's scores, moves by click and keyboard, undo and redo;
a log's game replayed with the solver's verdict on each move; and the
server refusing what it should."""

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from binaries import cargo_binary
from test_policy import arena_binary

sync_api = pytest.importorskip("playwright.sync_api")


def chromium():
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        if os.environ.get("C4_REQUIRE_BROWSER"):
            pytest.fail("chromium is missing (apt-get install chromium)")
        pytest.skip("chromium is missing (apt-get install chromium)")
    return found


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("web")
    log = folder / "games.jsonl"
    played = subprocess.run(
        [arena_binary(), "match", "--engine", "name=greedy,cmd=self,option.agent=greedy",
         "--engine", "name=random,cmd=self,option.agent='random:seed=4'", "--games", "4",
         "--log", str(log)],
        capture_output=True, text=True, timeout=300,
    )
    assert played.returncode == 0, played.stderr
    proc = subprocess.Popen([arena_binary(), "serve", "--log", str(log), "--port", "0",
                             "--engine", "name=greedy,cmd=self,option.agent=greedy,movetime=200"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("serving on http://127.0.0.1:"), line
    url = line.split()[2]
    yield url, [json.loads(l) for l in log.read_text().splitlines()]
    proc.kill()
    proc.wait()


@pytest.fixture(scope="module")
def browser():
    # A loaded CI machine may take seconds to answer: an expectation that
    # holds passes as soon as it does whatever the timeout, and one that
    # does not fails after it, so a generous one only slows failures.
    sync_api.expect.set_options(timeout=60_000)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        yield b
        b.close()


@contextlib.contextmanager
def serving(*args):
    """`serve` on a free port with `args`; yields the page's address (the
    last address of the line it prints: the view it was started for)."""
    proc = subprocess.Popen([arena_binary(), "serve", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        addresses = [word for word in line.split() if word.startswith("http://")]
        assert addresses, f"serve {' '.join(args)} printed no address: {line!r}"
        yield addresses[-1]
    finally:
        proc.kill()
        proc.wait()


def log_line(game, first, second, result, reason, moves, **more):
    """A game log's line of a hand-made game on the standard board."""
    return {"run": "r", "game": game, "pair": game, "first": first, "second": second,
            "rules": "7x6x4", "opening": "", "moves": moves, "result": result,
            "reason": reason, "seed": 1, "plies": [], **more}


def test_a_position_from_the_address_is_solved_and_played(server, browser):
    url, _ = server
    page = browser.new_page()
    page.goto(url + "?pos=4453&solution=1")
    # The stones by the hooks: column and row from 1 (row 1 at the bottom).
    stones = {(int(c.get_attribute("data-col")), int(c.get_attribute("data-row"))):
              c.get_attribute("data-stone") for c in page.locator("#board .cell").all()}
    assert len(stones) == 42
    assert {k for k, v in stones.items() if v == "1"} == {(4, 1), (5, 1)}
    assert {k for k, v in stones.items() if v == "2"} == {(4, 2), (3, 1)}
    sync_api.expect(page.locator("#scores span[data-exact='true']")).to_have_count(7)
    scores = [page.inner_text(f"#scores span[data-score-col='{c}']") for c in range(1, 8)]
    # Pascal Pons' c4solver -a on 4453 (commit d6ba50d8), and ours.
    assert scores == ["-5", "-5", "-2", "-3", "-4", "-2", "-2"]
    solved = subprocess.run([cargo_binary("connect4", "CONNECT4", "cargo build"), "solve",
                             "--analyze", "4453"], capture_output=True, text=True, check=True)
    assert scores == solved.stdout.split()[1:]
    # The server says which columns can be played: the address follows
    # its answer.
    page.locator("#board .cell[data-col='4']").first.click()
    sync_api.expect(page).to_have_url(re.compile(r"pos=44534&solution=1$"))
    page.keyboard.press("s")
    page.keyboard.press("z")
    sync_api.expect(page).to_have_url(re.compile(r"\?pos=4453$"))
    page.keyboard.press("y")
    page.keyboard.press("3")
    sync_api.expect(page).to_have_url(re.compile(r"\?pos=445343$"))
    sync_api.expect(page.locator("#status")).to_contain_text("Red (first) to move")
    page.close()


def test_other_boards_are_played_and_solved_and_kept_in_the_address(server, browser):
    url, _ = server
    page = browser.new_page()
    page.goto(url + "?rules=6x5x4&pos=3344&solution=1")
    cells = page.locator("#board .cell")
    sync_api.expect(cells).to_have_count(30)
    assert page.locator("#board .cell[data-col='6'][data-row='5']").count() == 1
    sync_api.expect(page.locator("#scores span[data-exact='true']")).to_have_count(6)
    shown = [page.inner_text(f"#scores span[data-score-col='{c}']") for c in range(1, 7)]
    solved = subprocess.run([cargo_binary("connect4", "CONNECT4", "cargo build"), "solve",
                             "--analyze", "--rules", "6x5x4", "3344"],
                            capture_output=True, text=True, check=True).stdout.split()
    assert shown == solved[1:], (shown, solved)
    # Keys go as far as the board: 6 plays, 7 does not exist here.
    page.keyboard.press("6")
    page.keyboard.press("7")
    page.keyboard.press("1")
    sync_api.expect(page).to_have_url(re.compile(r"\?rules=6x5x4&pos=334461&solution=1$"))
    # Another board from the list starts a new game on it, an engine
    # playing a side there.
    page.select_option("#rules", "7x7x4")
    sync_api.expect(cells).to_have_count(49)
    assert "rules=7x7x4" in page.url and "pos=" not in page.url, page.url
    page.select_option("#seat-2", label="greedy")
    page.locator("#board .cell[data-col='4']").first.click()
    sync_api.expect(page.locator("#board .cell.p2")).to_have_count(1)
    # A board the engine cannot play falls back to the standard one, and
    # a position that cannot be played to its board's empty board, the
    # status saying why in the server's words.
    page.goto(url + "?rules=12x9x4&pos=44")
    sync_api.expect(cells).to_have_count(42)
    sync_api.expect(page.locator("#status")).to_contain_text("columns = 12")
    page.goto(url + "?rules=6x5x4&pos=4444449")
    sync_api.expect(cells).to_have_count(30)
    sync_api.expect(page.locator("#status")).to_contain_text("column 4 is full")
    assert page.locator("#board .cell.p1").count() == 0
    page.close()


def test_an_engine_given_at_start_plays_a_side(server, browser):
    url, _ = server
    page = browser.new_page()
    page.goto(url)
    sync_api.expect(page.locator("#seat-2 option")).to_have_count(2)
    page.select_option("#seat-2", label="greedy")
    page.locator("#board .cell[data-col='1']").first.click()
    sync_api.expect(page.locator("#board .cell.p2")).to_have_count(1)
    pos = page.url.split("pos=")[1]
    assert len(pos) == 2 and pos[0] == "1", page.url
    # The engine's side cannot be played by clicks.
    page.locator("#board .cell[data-col='7']").first.click()
    sync_api.expect(page.locator("#board .cell.p1")).to_have_count(2)
    sync_api.expect(page.locator("#board .cell.p2")).to_have_count(2)
    page.close()


def test_a_game_replays_with_the_solver_s_verdict_on_each_move(server, browser):
    url, games = server
    # The log holds games as they ended, not in order.
    moves = next(g["moves"] for g in games if g["game"] == 1)
    page = browser.new_page()
    page.goto(url + "replay")
    # The log's first game (by number) shows until another is chosen.
    first = min(games, key=lambda g: g["game"])
    sync_api.expect(page.locator("#moves li")).to_have_count(len(first["moves"]))
    assert page.url.endswith(f"/replay?log=1&game={first['game']}"), page.url
    page.locator("#games li[data-game='1']").click()
    page.wait_for_selector("#moves li")
    assert page.url.endswith("/replay?log=1&game=1"), page.url
    listed = page.locator("#moves li")
    assert listed.count() == len(moves)
    expected = json.loads(urllib.request.urlopen(url + "api/game?log=1&game=1").read())
    # The solver's own outcome of every position before each move (1 win,
    # 0 draw, -1 loss for the side to move), from the command line.
    solved = subprocess.run([cargo_binary("connect4", "CONNECT4", "cargo build"), "solve", "--weak"],
                            input="".join(moves[:i] + "\n" for i in range(len(moves))),
                            capture_output=True, text=True, check=True).stdout.splitlines()
    value = [int(line.split()[-1]) for line in solved]
    game = next(g for g in games if g["game"] == 1)
    # After the last move the game is over: a line wins, a full board draws.
    value.append(-1 if game["reason"] == "line" else 0)
    for i, v in enumerate(expected["verdicts"]):
        item = page.locator(f"#moves li[data-ply='{i + 1}']")
        if i < expected["opening"]:
            assert "opening" in item.get_attribute("class")
        kept = -value[i + 1] >= value[i]
        # Unknown only where the server's solver ran out of time.
        verdict = "unknown" if not (v["before"] and v["after"]) else "kept" if kept else "lost"
        assert item.get_attribute("data-verdict") == verdict, (i, v, value)
    assert page.inner_text("#ply") == f"move {len(moves)} of {len(moves)}"
    page.keyboard.press("Home")
    assert page.inner_text("#ply").startswith("move 0 of")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#ply").startswith("move 1 of")
    assert page.locator("#replay-board .cell.p1").count() == 1
    assert page.locator("#strip span").count() == len(moves)
    # The opening's moves are the arena's: no verdict blames them.
    assert expected["opening"] >= 1
    assert page.inner_text("#verdict").endswith("the opening, set by the arena."), page.inner_text("#verdict")
    page.close()


def test_a_python_player_s_moves_are_shown_in_its_columns_from_0(browser, tmp_path):
    # Issue #43, item 2: a log's Python player (a policy) reads its moves
    # as its code returned them, from 0; the other player from 1.
    line = log_line(1, "policy", "engine", "1-0", "line", "4455667", zero_based=["policy"])
    log = tmp_path / "python.jsonl"
    log.write_text(json.dumps(line) + "\n")
    with serving("--log", str(log)) as url:
        page = browser.new_page()
        page.goto(url + "replay?log=1&game=1")
        sync_api.expect(page.locator("#moves li")).to_have_count(7)
        texts = [page.locator(f"#moves li[data-ply='{i}']").inner_text() for i in range(1, 8)]
        assert texts[0].startswith("policy plays 3:"), texts
        assert texts[1].startswith("engine plays 4:"), texts
        assert texts[6].startswith("policy plays 6:"), texts
        page.close()


def test_the_server_answers_only_what_it_should(server):
    url, _ = server
    for path, status in [("api/analyze?moves=48", 400), ("../../etc/passwd", 404),
                         ("api/game?log=9&game=1", 400), ("api/game?log=0&game=1", 400),
                         ("api/game?log=1&game=x", 400), ("api/analyze?moves=" + "4" * 5000, 400),
                         ("api/move?engine=5&moves=4", 400), ("api/move?engine=1&moves=4455667", 400)]:
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(url + path)
        assert e.value.code == status, path
        assert "error" in json.loads(e.value.read())
    request = urllib.request.Request(url, data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(request)
    assert e.value.code == 405


def test_requests_under_another_host_name_are_refused(server):
    url, _ = server
    port = url.rstrip("/").rsplit(":", 1)[1]
    for host in [f"rebound.example:{port}", "127.0.0.1:1"]:
        request = urllib.request.Request(url + "api/games", headers={"Host": host})
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(request)
        assert e.value.code == 403, host
        assert "not this server's" in json.loads(e.value.read())["error"]
    # What a browser sends with another site's requests, every route that
    # does something: the origin, or only the fetch metadata.
    for path in ["api/games", "api/analyze?moves=4", "api/move?engine=1&moves=4", "api/game?log=1&game=1"]:
        for headers in [{"Origin": "http://evil.example"}, {"Origin": "http://127.0.0.1:1"},
                        {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}]:
            request = urllib.request.Request(url + path, headers=headers)
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(request)
            assert e.value.code == 403, (path, headers)


def test_another_site_s_page_cannot_use_the_server(server, browser, tmp_path):
    url, _ = server
    # Another site's page (served from another port) that tries to have an
    # engine play and to read the analysis, as any page could.
    (tmp_path / "other.html").write_text(
        f'<!doctype html><img src="{url}api/move?engine=1&moves=4">'
        f'<script>fetch("{url}api/analyze?moves=4", {{mode: "no-cors"}});'
        f'fetch("{url}api/games").catch(() => document.title = "blocked");</script>')
    other = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
                              "--directory", str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        line = other.stdout.readline()
        port = line.split(" port ")[1].split()[0]
        page = browser.new_page()
        # What our server answered, as the browser's network log has it
        # (the browser hides blocked responses from the page and from
        # Playwright's own events).
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        urls, statuses = {}, {}
        cdp.on("Network.requestWillBeSent",
               lambda e: urls.__setitem__(e["requestId"], e["request"]["url"]))
        # A status comes in one event or the other, depending on how the
        # browser blocked the response (both carry it).
        cdp.on("Network.responseReceivedExtraInfo",
               lambda e: statuses.__setitem__(urls[e["requestId"]].split("?")[0], e["statusCode"])
               if urls.get(e["requestId"], "").startswith(url) else None)
        cdp.on("Network.responseReceived",
               lambda e: statuses.__setitem__(e["response"]["url"].split("?")[0], e["response"]["status"])
               if e["response"]["url"].startswith(url) else None)
        failed = set()
        cdp.on("Network.loadingFailed", lambda e: failed.add(e["requestId"]))
        page.goto(f"http://127.0.0.1:{port}/other.html")
        sync_api.expect(page).to_have_title("blocked")
        # Every request of that page that the browser reports an answer to was
        # refused. The browser may hold some back or fail them without saying
        # what the server answered (its protections of local addresses and its
        # network log vary between versions); the test above sends the same
        # requests' headers without a browser.
        ours = lambda: {i for i, u in urls.items() if u.startswith(url)}
        for _ in range(100):
            answered = {i for i in ours() if urls[i].split("?")[0] in statuses}
            if ours() and ours() <= answered | failed:
                break
            page.wait_for_timeout(100)
        assert statuses, (urls, failed)
        assert set(statuses.values()) == {403}, statuses
        page.close()
    finally:
        other.kill()
        other.wait()


def test_a_run_is_followed_live_on_its_own_page(browser, tmp_path):
    log = tmp_path / "run.jsonl"
    # Two copies of the perfect engine: the two games of a pair (one
    # opening, colours swapped) both end at the opening's value, so they
    # split the points and the Elo chart has a finite point from the first
    # pair on. Against an engine that loses every game, as a weak one
    # would, the Elo has no finite value to draw.
    perfect = "cmd=self,movetime=20"
    run = subprocess.Popen(
        [arena_binary(), "match", "--engine", f"name=a,{perfect}", "--engine", f"name=b,{perfect}",
         "--games", "400", "--concurrency", "1", "--log", str(log), "--serve", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = run.stdout.readline()
        while line and "following the run on" not in line:
            line = run.stdout.readline()
        url = line.split()[-1]
        assert url.endswith("/live"), line
        page = browser.new_page()
        page.goto(url)
        sync_api.expect(page.locator("#standings tr")).to_have_count(3)
        sync_api.expect(page.locator("#crosstable tr")).to_have_count(3)
        counted = lambda: int(page.inner_text("#live-status").split()[0])
        first = counted()
        # The page follows the log as it grows (it asks every 2 s).
        for _ in range(40):
            page.wait_for_timeout(500)
            if counted() > first:
                break
        assert counted() > first, page.inner_text("#live-status")
        names = page.locator("#standings td:first-child").all_inner_texts()
        assert sorted(names) == ["a", "b"]
        # A point once a pair of games is complete (the page asks every 2 s).
        sync_api.expect(page.locator("#elo-chart polyline")).to_have_count(1, timeout=60_000)
        page.close()
    finally:
        run.kill()
        run.wait()


def test_a_report_file_replays_every_game_and_fetches_nothing(browser, tmp_path):
    log = tmp_path / "t.jsonl"
    hostile = "<img src=x onerror=alert(1)>"
    played = subprocess.run(
        [arena_binary(), "tournament", "--engine", "name=greedy,cmd=self,option.agent=greedy",
         "--engine", f"name={hostile},cmd=self,option.agent=random",
         "--engine", "name=ab3,cmd=self,option.agent='alphabeta:depth=3'", "--games", "2",
         "--log", str(log)], capture_output=True, text=True, timeout=300)
    assert played.returncode == 0, played.stderr
    html = tmp_path / "report.html"
    wrote = subprocess.run([arena_binary(), "report", str(log), "--html", str(html)],
                           capture_output=True, text=True, timeout=300)
    assert wrote.returncode == 0, wrote.stderr
    games = [json.loads(l) for l in log.read_text().splitlines()]
    page = browser.new_page()
    fetched, dialogs = [], []
    page.on("request", lambda r: fetched.append(r.url))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(html.as_uri())
    # The results open as tables with the engines' names, as text: the
    # standings, the crosstable (a heat map) and the ratings as bars.
    standings = page.locator("table.results").first
    assert hostile in standings.inner_text()
    assert page.locator("table.results img, section.log-report img[src^='x']").count() == 0
    assert hostile in page.locator("table.crosstable").inner_text()
    assert page.locator("table.ratings .interval").count() == 3
    assert "inf" not in page.locator("section.log-report").inner_text()
    for g in sorted(games, key=lambda g: g["game"]):
        page.locator(f"#games li[data-game='{g['game']}']").click()
        sync_api.expect(page.locator("#moves li[data-verdict]")).to_have_count(len(g["moves"]))
    assert page.locator("#replay-board .cell[data-stone='1']").count() > 0
    assert [u for u in fetched if not u.startswith(("file:", "data:"))] == []
    assert dialogs == []
    page.close()


def test_hostile_names_show_as_text_on_the_served_page(browser, tmp_path):
    hostile = "<img src=x onerror=alert(1)>"
    log = tmp_path / "h.jsonl"
    played = subprocess.run(
        [arena_binary(), "match", "--engine", f"name={hostile},cmd=self,option.agent=random",
         "--engine", "name=greedy,cmd=self,option.agent=greedy", "--games", "2",
         "--log", str(log)], capture_output=True, text=True, timeout=300)
    assert played.returncode == 0, played.stderr
    with serving("--log", str(log), "--engine", f"name={hostile},cmd=self,option.agent=greedy") as url:
        page = browser.new_page()
        fetched, dialogs = [], []
        page.on("request", lambda r: fetched.append(r.url))
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(url)
        sync_api.expect(page.locator("#seat-1 option")).to_have_count(2)
        assert page.locator("#seat-1 option").nth(1).inner_text() == hostile
        page.goto(url + "replay?log=1&game=1")
        sync_api.expect(page.locator("#moves li[data-verdict]").first).to_be_visible()
        assert hostile in page.inner_text("#games")
        assert hostile in page.inner_text("#game-title")
        page.goto(url + "live")
        sync_api.expect(page.locator("#standings td:first-child")).to_have_count(2)
        assert hostile in page.locator("#standings td:first-child").all_inner_texts()
        assert page.locator("img").count() == 0
        assert dialogs == []
        assert not [u for u in fetched if u.endswith("/x")], fetched
        page.close()


def test_a_served_run_stays_on_its_page_when_it_is_over(browser, tmp_path):
    # Issue #43, item 4: a short run ends before anyone opens its page; the
    # page stays, shows the run finished, until Ctrl-C.
    log = tmp_path / "short.jsonl"
    run = subprocess.Popen(
        [arena_binary(), "match", "--engine", "name=g,cmd=self,option.agent=greedy",
         "--engine", "name=r,cmd=self,option.agent=random", "--games", "4",
         "--log", str(log), "--serve", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        while not any("until Ctrl-C" in l for l in lines):
            line = run.stdout.readline()
            assert line, "".join(lines) + run.stderr.read()
            lines.append(line)
        url = next(l for l in lines if "following the run on" in l).split()[-1]
        page = browser.new_page()
        page.goto(url)
        sync_api.expect(page.locator("#live-status")).to_have_attribute("data-finished", "true")
        assert "4 games" in page.inner_text("#live-status")
        assert "the run finished" in page.inner_text("#live-status")
        page.close()
        run.send_signal(signal.SIGINT)
        assert run.wait(timeout=60) == 0
    finally:
        run.kill()
        run.wait()


def test_the_standings_say_what_each_engine_lost_by(browser, tmp_path):
    # Issue #47: a teacher sees at a glance who lost games to their own bugs.
    games = [log_line(1, "alice", "bob", "0-1", "illegal move", "44"),
             log_line(2, "bob", "alice", "1-0", "crash", "4"),
             log_line(3, "alice", "bob", "0-1", "illegal move", ""),
             log_line(4, "bob", "alice", "1-0", "line", "4343434")]
    log = tmp_path / "forfeits.jsonl"
    log.write_text("".join(json.dumps(g) + "\n" for g in games))
    with serving("--log", str(log)) as url:
        page = browser.new_page()
        page.goto(url + "live")
        row = page.locator("#standings tr", has_text="alice")
        sync_api.expect(row).to_contain_text("crash 1, illegal move 2")
        sync_api.expect(page.locator("#standings tr", has_text="bob").locator("td").last).to_have_text("")
        page.close()


def test_show_solution_proves_every_column_with_both_cores_busy(browser):
    """Issue #48: a column whose proof takes longer than a request's wait
    keeps being proven while the page shows that it works on it, and every
    column of these 5- to 8-ply positions becomes exact and equal to
    `connect4 solve --analyze`, with other programs holding every core.
    The release build: the debug one proves tens of times slower."""
    arena = cargo_binary("connect4-arena", "C4_RELEASE_ARENA", "cargo build --release")
    engine = cargo_binary("connect4", "C4_RELEASE_ENGINE", "cargo build --release")
    positions = ["12345", "1234567", "76543217", "44455"]
    truth = {m: subprocess.run([engine, "solve", "--analyze", m], capture_output=True,
                               text=True, check=True).stdout.split()[1:] for m in positions}
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(os.cpu_count() or 2)]
    proc = subprocess.Popen([arena, "serve", "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        url = proc.stdout.readline().split()[2]
        page = browser.new_page()
        for moves in positions:
            started = time.monotonic()
            page.goto(f"{url}?pos={moves}&solution=1")
            # Generous: the idle machine takes seconds; the test never fails
            # for a slow machine, only for a proof that never comes.
            sync_api.expect(page.locator("#scores span[data-exact='true']")).to_have_count(
                7, timeout=600_000)
            shown = [page.inner_text(f"#scores span[data-score-col='{c}']") for c in range(1, 8)]
            assert shown == truth[moves], moves
            print(f"{moves}: every column proven in {time.monotonic() - started:.1f} s "
                  "with every core busy")
        page.close()
    finally:
        for p in busy + [proc]:
            p.kill()
            p.wait()


def test_a_column_still_being_proven_says_so(browser):
    """While the prover works on a column, the page marks it (data-proving)
    and says how long it has gone on."""
    arena = cargo_binary("connect4-arena", "C4_RELEASE_ARENA", "cargo build --release")
    proc = subprocess.Popen([arena, "serve", "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        url = proc.stdout.readline().split()[2]
        page = browser.new_page()
        # The empty 7x7 board: no proof comes within a request's wait.
        page.goto(f"{url}?rules=7x7x4&pos=&solution=1")
        marked = page.locator("#scores span[data-proving='true']").first
        sync_api.expect(marked).to_be_visible(timeout=120_000)
        assert "still proving" in marked.get_attribute("title")
        sync_api.expect(page.locator("#proving")).to_contain_text("proving column")
        page.close()
    finally:
        proc.kill()
        proc.wait()


def test_a_pairing_one_side_won_every_game_of_is_said_in_words_not_drawn(server, browser):
    url, games = server
    page = browser.new_page()
    page.goto(url + "live")
    status = page.locator("#live-status")
    sync_api.expect(status).to_contain_text("games in")
    greedy_won = sum(1 for g in games if (g["result"] == "1-0") == (g["first"] == "greedy")
                     and g["result"] != "1/2-1/2")
    legend = page.locator("#elo-chart .legend")
    if greedy_won == len(games):
        sync_api.expect(status).to_contain_text("no finite Elo: greedy won every game")
        sync_api.expect(page.locator("#curves-note")).to_contain_text("not drawn")
        assert legend.count() == 0
    else:
        sync_api.expect(status).to_contain_text("Elo ")
        sync_api.expect(legend).to_have_count(1)
    # No bound left empty (an infinite one is said: '[95%: +484.7, +inf]').
    assert "[95%: ," not in status.inner_text() and ", ]" not in status.inner_text()
    page.close()
