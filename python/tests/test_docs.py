"""The docs as a reader finds them: the README is at most 200 lines, and every
link between the project's pages (README.md, docs/, protocol/, python/)
leads to a file that exists and, with an anchor, to a heading of it. (The
examples of the pages run in test_readme.py and test_python_docs.py.)"""

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
PAGES = sorted([REPO / "README.md", REPO / "protocol" / "README.md", REPO / "python" / "README.md",
                *(REPO / "docs").rglob("*.md")])
# [text](target): the target up to a space or the closing parenthesis.
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces
    as hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page):
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return {slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}


def links(page):
    """The page's links to other files of the project (not web addresses,
    not mail), outside code blocks."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


def test_the_readme_is_at_most_200_lines():
    lines = (REPO / "README.md").read_text().count("\n")
    assert lines <= 200, f"README.md has {lines} lines"


def test_the_checker_sees_the_pages_and_their_links():
    assert len(PAGES) >= 12, PAGES
    assert sum(len(links(p)) for p in PAGES) >= 40


def shown(path):
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else path.name


def broken_links(page):
    """What is wrong with each of the page's links, in words."""
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading '{anchor}' in {shown(file)}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=[shown(p) for p in PAGES])
def test_every_link_between_the_pages_leads_somewhere(page):
    broken = broken_links(page)
    assert not broken, f"{shown(page)}: " + "; ".join(broken)


def test_a_broken_link_and_a_missing_heading_are_found(tmp_path):
    (tmp_path / "other.md").write_text("# A heading\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](other.md#a-heading) [gone](missing.md) [no](other.md#nothing)\n"
                    "```sh\n[in code](ignored.md)\n```\n[web](https://example.org)\n")
    assert links(page) == ["other.md#a-heading", "missing.md", "other.md#nothing"]
    assert broken_links(page) == ["missing.md: no such file",
                                  "other.md#nothing: no heading 'nothing' in other.md"]
