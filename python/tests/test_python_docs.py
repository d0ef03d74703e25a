"""docs/python.md and the README: every Python example on each page runs, in
order, in one namespace per page, against the c4engine module the tests
assemble; each printed line that the page annotates with `# VALUE` prints
that value."""

import contextlib
import io
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
DOC = REPO / "docs" / "python.md"
README = REPO / "README.md"


def blocks(page=DOC):
    return re.findall(r"```python\n(.*?)```", page.read_text(), re.S)


def outputs():
    """Each python block with the text block that follows it, if any (its
    expected output), in order."""
    pairs = re.findall(r"```python\n(.*?)```(.*?)(?=```python|\Z)", DOC.read_text(), re.S)
    return [(code, (re.findall(r"```text\n(.*?)```", rest, re.S) or [None])[0])
            for code, rest in pairs]


def annotated(block):
    """The values the page says the block's prints show, in order: the
    comment after a print, when it starts with a Python value (a list, a
    dict, a number, a word in quotes)."""
    values = []
    for line in block.splitlines():
        if line.startswith("print(") and "#" in line:
            comment = line.split("#", 1)[1].strip()
            value = re.match(r"^(\[[^\]]*\]( \d+)?|\{[^}]*\}|-?\d+|True \d|'\w+'|\d+ \w+)(:|$)",
                             comment)
            if value:
                values.append(value.group(1).strip("'"))
    return values


def test_every_example_runs_and_prints_what_the_page_says(c4):
    namespace = {}
    assert len(blocks()) >= 4
    assert sum(len(annotated(b)) for b in blocks()) >= 10
    for block, expected in outputs():
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(DOC), "exec"), namespace)
        printed = out.getvalue()
        for value in annotated(block):
            assert value in printed, f"{value!r} not in:\n{printed}\nfrom:\n{block}"
        if expected is not None:
            assert printed == expected, f"printed:\n{printed}\nthe page says:\n{expected}"


def test_the_readme_s_python_quick_start_runs_and_prints_what_it_says(c4):
    namespace = {}
    (block,) = blocks(README)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(README), "exec"), namespace)
    values = annotated(block)
    assert len(values) == 2, values
    for value in values:
        assert value in out.getvalue(), f"{value!r} not in:\n{out.getvalue()}"
