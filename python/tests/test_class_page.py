"""`grade --submissions`'s class page in a real browser: a row per student,
sorted by a column, each student's whole feedback a click away, and a
hostile folder name shown as text."""

import subprocess

import pytest

from test_policy import arena_binary
from test_web import chromium

sync_api = pytest.importorskip("playwright.sync_api")


def engine_submission(folder, words):
    folder.mkdir(parents=True)
    script = folder / "engine"
    script.write_text(f"#!/bin/sh\nexec {words}\n")
    script.chmod(0o755)


def test_the_class_page_shows_every_student_and_their_feedback(tmp_path):
    subs = tmp_path / "subs"
    arena = arena_binary()
    engine_submission(subs / "alice", f"'{arena}' engine")
    hostile = "<img src=x onerror=alert(1)>"
    engine_submission(subs / hostile, f"'{arena}' engine")
    engine_submission(subs / "bob", "false")
    graded = subprocess.run(
        [arena, "grade", "--submissions", str(subs), "--out", str(tmp_path / "grades"),
         "--games", "2", "--match-games", "2", "--tactics", "1", "--concurrency", "1", "--jobs", "2",
         "--no-isolation"],
        capture_output=True, text=True, timeout=600)
    assert graded.returncode == 0, graded.stderr
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        page = browser.new_page()
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto((tmp_path / "grades" / "index.html").as_uri())
        rows = page.locator("tr.row")
        sync_api.expect(rows).to_have_count(3)
        sync_api.expect(page.locator("#summary")).to_contain_text("3 submission(s)")
        # Sorted by total, the best first: bob's engine never starts.
        page.click("th[data-key='total']")
        sync_api.expect(rows.last).to_have_attribute("data-student", "bob")
        page.click("tr.row[data-student='bob']")
        sync_api.expect(page.locator("#student-name")).to_have_text("bob")
        tests = page.locator("#student-tests .test")
        assert tests.count() >= 7
        sync_api.expect(tests.filter(has_text="Wins as first player")).to_contain_text("0 / 20")
        assert "#bob" in page.url
        # What kept bob's code from playing is in the table's note.
        assert page.locator("tr.row[data-student='bob'] td.note").inner_text().strip()
        # The feedback is the grader's markdown rendered: lists and blocks,
        # no fence or escape shown as text (issue #75, item 2).
        feedback = page.locator("#student-tests").inner_text()
        assert "```" not in feedback and "\\[" not in feedback and "\\-" not in feedback, feedback
        assert page.locator("#student-tests li").count() >= 1
        # The name is text, never markup.
        sync_api.expect(page.locator("tr.row").filter(has_text=hostile)).to_have_count(1)
        assert page.locator("#grades img").count() == 0 and not dialogs
        page.fill("#filter", "ali")
        sync_api.expect(rows).to_have_count(1)
        browser.close()
