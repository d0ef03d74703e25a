"""The class league's page in a real browser (the system's Chromium, driven
by Playwright): the ladder with the anchors marked and the refused
submission listed, a student's page with their games and where they lost
the value, a game opened in the replay, names shown as text, and the
ladder growing live while `league --serve` plays."""

import json
import re
import signal
import subprocess
import urllib.request

import pytest

from binaries import cargo_binary
from test_policy import UNHURRIED_MARGIN_MS, arena_binary
from test_web import browser, chromium, serving  # noqa: F401 (fixtures)

sync_api = pytest.importorskip("playwright.sync_api")

HOSTILE = "<img src=x onerror=alert(1)>"


def engine_folder(folder, text):
    folder.mkdir(parents=True)
    script = folder / "engine"
    script.write_text(text)
    script.chmod(0o755)


def league_command(root, *extra):
    return [arena_binary(), "league", "--dir", str(root / "league"), "--submissions",
            str(root / "drop"), "--config", str(root / "league.toml"), "--concurrency", "2",
            "--calibration-pairs", "1", "--no-isolation", *extra]


@pytest.fixture(scope="module")
def league_dir(tmp_path_factory):
    """A league of three students (greedy, random under a hostile name, and
    one that does not speak the protocol) after one round."""
    root = tmp_path_factory.mktemp("league")
    c4 = cargo_binary("connect4", "CONNECT4", "cargo build")
    engine_folder(root / "drop/alice", f"#!/bin/sh\nexec '{c4}' --agent greedy\n")
    engine_folder(root / "drop" / HOSTILE, f"#!/bin/sh\nexec '{c4}' --agent random\n")
    engine_folder(root / "drop/carol", "#!/bin/sh\necho 'I am not an engine'\n")
    (root / "league.toml").write_text('[submission]\nkind = "engine"\n\n[time]\nmove_ms = 20\n'
                                      f'margin_ms = {UNHURRIED_MARGIN_MS}\n')
    played = subprocess.run(league_command(root, "--rounds", "1"), capture_output=True,
                            text=True, timeout=600)
    assert played.returncode == 0, played.stdout + played.stderr
    return root


@pytest.fixture(scope="module")
def league_page(league_dir):
    with serving("--league", str(league_dir / "league")) as url:
        assert url.startswith("http://127.0.0.1:"), url
        yield url


def test_the_ladder_marks_anchors_and_lists_the_refused(league_page, browser):  # noqa: F811
    page = browser.new_page()
    alerts = []
    page.on("dialog", lambda d: (alerts.append(d.message), d.dismiss()))
    page.goto(league_page)
    sync_api.expect(page.locator("#tab-league")).to_be_visible()
    rows = page.locator("#ladder tr[data-student]")
    sync_api.expect(rows).to_have_count(6)
    anchors = page.locator("#ladder tr.anchor")
    sync_api.expect(anchors).to_have_count(4)
    sync_api.expect(anchors.locator(".badge")).to_have_count(4)
    names = [r.get_attribute("data-student") for r in rows.all()]
    assert {"alice", HOSTILE, "random", "greedy", "perfect", "alphabeta:depth=4"} == set(names)
    # Ranked by the conservative rating, highest first.
    ratings = [float(r.locator("td").nth(2).inner_text()) for r in rows.all()]
    assert ratings == sorted(ratings, reverse=True)
    sync_api.expect(page.locator("#refused")).to_contain_text("carol v1")
    sync_api.expect(page.locator("#league-status")).to_contain_text("2 students, round 1")
    # The league ran without isolation (--no-isolation): the page says so.
    sync_api.expect(page.locator("#league-warning")).to_contain_text("isolation was off")
    # The hostile name is text: no image was made from it, nothing ran.
    sync_api.expect(page.locator("#ladder")).to_contain_text(HOSTILE)
    assert page.locator("#ladder img").count() == 0
    assert alerts == []
    page.close()


def test_a_student_s_page_opens_their_games_in_the_replay(league_page, browser):  # noqa: F811
    page = browser.new_page()
    page.goto(league_page)
    page.locator("#ladder a[data-student='alice']").click()
    sync_api.expect(page).to_have_url(re.compile(r"/league\?student=alice$"))
    sync_api.expect(page.locator("#student-name")).to_have_text("alice")
    sync_api.expect(page.locator("#student-record")).to_contain_text("alice v1: #")
    games = page.locator("#student-games tr").filter(has=page.locator("td"))
    sync_api.expect(games.first).to_be_visible()
    count = games.count()
    assert count >= 2, count
    assert page.locator("#student-slips li").count() >= 1
    # The address keeps the student: opened again, the same page.
    page.goto(page.url)
    sync_api.expect(page.locator("#student-name")).to_have_text("alice")
    first = games.first.locator("a")
    number = first.inner_text()
    first.click()
    sync_api.expect(page).to_have_url(re.compile(rf"/replay\?log=1&game={number}$"))
    sync_api.expect(page.locator("#game-title")).to_contain_text("alice v1")
    sync_api.expect(page.locator("#verdict")).to_be_visible()
    page.close()


def test_a_refused_student_s_page_says_why(league_page, browser):  # noqa: F811
    page = browser.new_page()
    page.goto(league_page + "?student=carol")
    sync_api.expect(page.locator("#student-note")).to_contain_text("carol v1 was refused")
    sync_api.expect(page.locator("#student-record")).to_contain_text("not on the ladder (rejected)")
    page.goto(league_page + "?student=nobody")
    sync_api.expect(page.locator("#league-status")).to_contain_text("the league has no student 'nobody'")
    page.close()


def ladder_games(url):
    with urllib.request.urlopen(url.replace("/league", "/api/league")) as reply:
        return json.load(reply)["games"]


def test_the_ladder_grows_while_the_league_plays(league_dir, browser):  # noqa: F811
    proc = subprocess.Popen(league_command(league_dir, "--rounds", "1", "--serve", "0"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = next(line.split()[-1] for line in proc.stdout if "the league's page:" in line)
        start = ladder_games(url)
        page = browser.new_page()
        page.goto(url)
        sync_api.expect(page.locator("#ladder tr[data-student]")).to_have_count(6)
        for line in proc.stdout:
            if "its page stays" in line:
                break
        # The page reads the ladder again every 3 s: the round's games show.
        sync_api.expect(page.locator("#league-status")).not_to_contain_text(
            f", {start} ladder game", timeout=20_000)
        assert ladder_games(url) > start
        page.close()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def python_league(tmp_path_factory):
    """A league of Python students: two that play the leftmost and the
    rightmost free column (their games against each other are judged
    whatever the anchors do), one whose code raises as it loads, after
    one round."""
    import sys
    root = tmp_path_factory.mktemp("python-league")
    (root / "drop/lefty").mkdir(parents=True)
    (root / "drop/lefty/policy.py").write_text(
        "class Lefty:\n    def mount(self):\n        pass\n\n"
        "    def act(self, board):\n"
        "        return [c for c in range(7) if board[0][c] == 0][0]\n")
    (root / "drop/righty").mkdir(parents=True)
    (root / "drop/righty/policy.py").write_text(
        "class Righty:\n    def mount(self):\n        pass\n\n"
        "    def act(self, board):\n"
        "        return [c for c in range(7) if board[0][c] == 0][-1]\n")
    (root / "drop/broken").mkdir(parents=True)
    (root / "drop/broken/policy.py").write_text(
        "def helper():\n    return 1 / 0\n\n\nhelper()\n")
    (root / "league.toml").write_text('[submission]\nkind = "policy"\n\n[time]\nmove_ms = 1000\n'
                                      f'margin_ms = {UNHURRIED_MARGIN_MS}\n')
    played = subprocess.run(league_command(root, "--rounds", "1", "--python", sys.executable),
                            capture_output=True, text=True, timeout=900)
    assert played.returncode == 0, played.stdout + played.stderr
    return root


def test_a_python_student_s_pages_speak_their_columns_and_keep_a_traceback_s_lines(
        python_league, browser):  # noqa: F811
    # Issue #75, item 2: the league numbers a Python student's moves and
    # columns as grading does (your move N, columns from 0), and shows a
    # refusal's traceback on its lines, with no fences and no league path.
    with serving("--league", str(python_league / "league")) as url:
        page = browser.new_page()
        told = []
        for student in ("lefty", "righty"):
            page.goto(url + f"?student={student}")
            sync_api.expect(page.locator("#student-record")).to_contain_text(f"{student} v1")
            told += [t for t in page.locator("#student-slips li").all_inner_texts()
                     if "judged move" not in t]
        assert told, "neither student gave a value away"
        columns = [int(re.search(r", your move \d+: column (\d)", t).group(1)) for t in told]
        # Their first choices, columns 0 and 6, as their code returns them
        # (the protocol's 1 and 7).
        assert all(0 <= c <= 6 for c in columns) and {0, 6} & set(columns), told
        page.goto(url + "?student=broken")
        note = page.locator("#student-note")
        sync_api.expect(note).to_contain_text("ZeroDivisionError")
        text = note.inner_text()
        assert "\n" in text and "```" not in text, text
        assert str(python_league) not in text and 'File "policy.py", line 2' in text, text
        page.close()
