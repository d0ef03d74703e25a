"""`connect4-arena serve` in a real browser (the system's Chromium, driven by
Playwright): a position from the address, its solution checked against
Pascal Pons' solver's scores, moves by click and keyboard, undo and redo;
a log's game replayed with the solver's verdict on each move; and the
server refusing what it should."""

import json
import os
import shutil
import subprocess
import urllib.error
import urllib.request

import pytest

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
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        yield b
        b.close()


def test_a_position_from_the_address_is_solved_and_played(server, browser):
    url, _ = server
    page = browser.new_page()
    page.goto(url + "?pos=4453")
    assert page.locator("#board .cell.p1").count() == 2
    assert page.locator("#board .cell.p2").count() == 2
    page.check("#solution")
    sync_api.expect(page.locator("#scores span")).to_have_count(7)
    scores = page.locator("#scores span").all_inner_texts()
    # Pascal Pons' c4solver -a on 4453 (commit d6ba50d8).
    assert scores == ["-5", "-5", "-2", "-3", "-4", "-2", "-2"]
    page.locator("#board .cell[data-column='4']").first.click()
    assert page.url.endswith("?pos=44534")
    page.keyboard.press("z")
    assert page.url.endswith("?pos=4453")
    page.keyboard.press("y")
    page.keyboard.press("3")
    assert page.url.endswith("?pos=445343")
    assert "Red (first) to move" in page.inner_text("#status")
    page.close()


def test_an_engine_given_at_start_plays_a_side(server, browser):
    url, _ = server
    page = browser.new_page()
    page.goto(url)
    sync_api.expect(page.locator("#seat-2 option")).to_have_count(2)
    page.select_option("#seat-2", label="greedy")
    page.locator("#board .cell[data-column='1']").first.click()
    sync_api.expect(page.locator("#board .cell.p2")).to_have_count(1)
    pos = page.url.split("pos=")[1]
    assert len(pos) == 2 and pos[0] == "1", page.url
    # The engine's side cannot be played by clicks.
    page.locator("#board .cell[data-column='7']").first.click()
    sync_api.expect(page.locator("#board .cell.p1")).to_have_count(2)
    sync_api.expect(page.locator("#board .cell.p2")).to_have_count(2)
    page.close()


def test_a_game_replays_with_the_solver_s_verdict_on_each_move(server, browser):
    url, games = server
    # The log holds games as they ended, not in order.
    moves = next(g["moves"] for g in games if g["game"] == 1)
    page = browser.new_page()
    page.goto(url + "?view=replay")
    page.locator("#games li[data-game='1']").click()
    page.wait_for_selector("#moves li")
    listed = page.locator("#moves li")
    assert listed.count() == len(moves)
    expected = json.loads(urllib.request.urlopen(url + "api/game?log=0&game=1").read())
    for i, v in enumerate(expected["verdicts"]):
        classes = listed.nth(i).get_attribute("class")
        if i < expected["opening"]:
            assert "opening" in classes
        elif v["before"] and v["after"]:
            assert ("lost" in classes) == (v["before"] != v["after"]), (i, v, classes)
    assert page.inner_text("#ply") == f"move {len(moves)} of {len(moves)}"
    page.keyboard.press("Home")
    assert page.inner_text("#ply").startswith("move 0 of")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#ply").startswith("move 1 of")
    assert page.locator("#replay-board .cell.p1").count() == 1
    assert page.locator("#strip span").count() == len(moves)
    page.close()


def test_the_server_answers_only_what_it_should(server):
    url, _ = server
    for path, status in [("api/analyse?pos=48", 400), ("../../etc/passwd", 404),
                         ("api/game?log=9&game=1", 400), ("api/game?log=0&game=x", 400),
                         ("api/move?engine=5&pos=4", 400), ("api/move?engine=0&pos=4455667", 400)]:
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(url + path)
        assert e.value.code == status, path
        assert "error" in json.loads(e.value.read())
    request = urllib.request.Request(url, data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(request)
    assert e.value.code == 405
