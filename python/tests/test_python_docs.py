"""docs/python.md and the README: every Python example on each page runs, in
order, in one namespace per page, against the c4engine module the tests
assemble, and prints what the page says it prints.

The page's convention, which `expected_of` reads: a comment after a
`print(...)` on its line is what that call prints, whole, or followed by
`: ` or `, ` and a gloss ("# 2: columns from 0"); a print whose output the
page does not give has no comment on its line (a gloss goes on the line
above). A text block right after a Python block is that block's whole
output."""

import builtins
import contextlib
import io
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
DOC = REPO / "docs" / "python.md"
README = REPO / "README.md"


def blocks(page=DOC):
    return re.findall(r"```python\n(.*?)```", page.read_text(), re.S)


def outputs(page=DOC):
    """Each python block with the text block that follows it, if any (its
    expected output), in order."""
    pairs = re.findall(r"```python\n(.*?)```(.*?)(?=```python|\Z)", page.read_text(), re.S)
    return [(code, (re.findall(r"```text\n(.*?)```", rest, re.S) or [None])[0])
            for code, rest in pairs]


def annotated(block):
    """The lines of the block (numbered from 1) that print, with the comment
    after the call: {line: comment}."""
    found = {}
    for number, line in enumerate(block.splitlines(), 1):
        call = re.match(r"\s*print\(.*\)\s+#\s?(.*)$", line)
        if call:
            found[number] = call.group(1).strip()
    return found


def matches(printed, comment):
    """Whether a line printed as `printed` is what `comment` says: the
    comment is the printed text, whole or followed by ': ' or ', ' and a
    gloss."""
    return comment == printed or any(comment.startswith(printed + sep) for sep in (": ", ", "))


def run(block, page, namespace):
    """Runs one block in `namespace`; what it printed in all, and what each
    of its lines printed: (text, {line: [text of each call]})."""
    by_line = {}
    name = str(page)

    def recording(*args, **kwargs):
        caller = sys._getframe(1)
        one = io.StringIO()
        builtins.print(*args, **{**kwargs, "file": one})
        if caller.f_code.co_filename == name:
            by_line.setdefault(caller.f_lineno, []).append(one.getvalue())
        builtins.print(*args, **kwargs)

    namespace["print"] = recording
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, name, "exec"), namespace)
    return out.getvalue(), by_line


def check_page(page, least):
    """Runs every block of `page` and checks every annotated print; the
    number of prints it checked (at least `least`)."""
    namespace = {}
    checked = 0
    for block, expected in outputs(page):
        printed, by_line = run(block, page, namespace)
        for number, comment in annotated(block).items():
            calls = by_line.get(number)
            assert calls, f"{page.name}: the print of block line {number} did not run:\n{block}"
            text = "".join(calls).rstrip("\n")
            assert matches(text, comment), (
                f"{page.name}: block line {number} printed {text!r}; the page says {comment!r}"
                f"\nfrom:\n{block}")
            checked += 1
        if expected is not None:
            assert printed == expected, f"printed:\n{printed}\nthe page says:\n{expected}"
    assert checked >= least, f"{page.name}: only {checked} prints checked"
    return checked


def test_the_convention_catches_a_wrong_value_and_reads_a_gloss():
    assert matches("2", "2: columns from 0")
    assert matches("2", "2, the lowest of them")
    assert matches("True True", "True True")
    assert matches("move 3: column 7 does not exist", "move 3: column 7 does not exist")
    assert not matches("3", "2: columns from 0")
    assert not matches("True False", "True True")
    assert not matches("1.0", "1")
    assert annotated("print(x)  # 1\n# a gloss\nprint(y)\n") == {1: "1"}


def test_every_example_runs_and_prints_what_the_page_says(c4):
    assert len(blocks()) >= 4
    check_page(DOC, least=20)


def test_the_readme_s_python_quick_start_runs_and_prints_what_it_says(c4):
    assert len(blocks(README)) == 1
    assert check_page(README, least=2) == 2
