"""The README's examples (and docs/arena.md's), run as written right after its two commands
(`cargo build --release && ...` and `bash scripts/test`, which builds the
release binaries and installs the bridges in .venv-test/); and the
students' page (docs/students.md), every step to its end, from a Python
of its own to a graded template.

Each command of a ```sh block runs in bash, in order, in one scratch folder that sees
the repository's files (and ../shared beside it), after the `export` and
`NAME=value` lines the README gives before it. It must exit 0, or, for the long jobs (a
1000-game match, an hour of book building), still be running without an
error after a few seconds. A command that writes what a later one reads
(`--results results.json`, then `--feedback results.json`) runs to its
end however long it takes, so that the later one never depends on the
machine's speed. Only what cannot run here is left out, each for the
reason given below."""

import os
import fnmatch
import re
import shlex
import signal
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
README = REPO / "README.md"

# The README's examples run against target/release, as its first command
# builds it (scripts/test runs these once its release build is done).
pytestmark = pytest.mark.release

# Commands that cannot run in a test, and why.
NOT_RUN = {
    "bash scripts/test": "the test command itself",
    "sudo ": "needs root, and installs and starts Slurm (scripts/slurm/selftest.sh)",
    "scripts/slurm/submit-": "needs a Slurm cluster (test-without-slurm.sh runs it with stand-ins)",
    "scripts/slurm/rerun.sh": "needs a Slurm run folder (test-without-slurm.sh covers it)",
    "pip install c4engine": "not on PyPI before the first release (scripts/check-release.sh installs its wheel)",
    "pip install .": "a source build of c4engine (scripts/test's kit builds the same extension)",
}

# Seconds a command may run before it counts as a long job that started.
LONG_JOB_SECONDS = 8

# Seconds a command whose output a later one reads may take to end: a
# bound against a hang, not a measure of speed.
PRODUCER_SECONDS = 900


def blocks(page=README):
    """The commands of the ```sh blocks of `page`: (setup lines, command)
    pairs; the setup lines are the `export` and `NAME=value` lines before
    it."""
    found, setup = [], []
    for block in re.findall(r"```sh\n(.*?)```", page.read_text(), re.S):
        pending = ""
        for line in block.splitlines():
            if pending:
                pending += "\n" + line
            elif not line.strip() or line.lstrip().startswith("#"):
                continue
            else:
                pending = line
            if pending.rstrip().endswith("\\"):
                continue
            command, pending = pending, ""
            if re.match(r"(export [A-Z_]+|[A-Z_]+)=", command):
                setup.append(command)
            found.append((list(setup), command))
    return found


def reason_not_run(command):
    for start, why in NOT_RUN.items():
        if command.lstrip().startswith(start):
            return why
    return None


def checkout(tmp_path_factory, name):
    """A folder as a reader's checkout would be (later examples read what
    earlier ones wrote): it sees the repository's files, beside a `shared`
    folder."""
    tmp_path = tmp_path_factory.mktemp(name)
    work = tmp_path / "work"
    work.mkdir()
    for entry in REPO.iterdir():
        if entry.name != ".git":
            (work / entry.name).symlink_to(entry)
    shared = REPO.parent / "shared"
    if shared.exists():
        (tmp_path / "shared").symlink_to(shared)
    return work


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """One checkout for the whole README."""
    return checkout(tmp_path_factory, "readme")


@pytest.fixture(scope="module")
def student_checkout(tmp_path_factory):
    """One checkout for the whole students' page."""
    return checkout(tmp_path_factory, "students")


def run(script, cwd, timeout):
    """Runs `script` in bash in a session of its own: (exit status or None
    if still running at `timeout`, output)."""
    env = dict(os.environ, TERM="dumb")
    proc = subprocess.Popen(["bash", "-c", script], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out


# The README's, then those of the arena's manual, which the README's
# section on the arena sends its readers to.
COMMANDS = blocks() + blocks(REPO / "docs" / "arena.md")


def test_the_readme_has_its_two_commands_first():
    first = [c for _, c in COMMANDS[:2]]
    assert first[0].startswith("cargo build --release && target/release/connect4-arena"), first
    assert first[1].startswith("bash scripts/test"), first


def test_the_main_job_plays_a_real_match():
    _, command = COMMANDS[0]
    status, out = run(command, REPO, 600)
    assert status == 0, out[-3000:]
    assert "games in" in out and "Elo difference" in out, out[-3000:]


def arguments(command):
    """The words of `command` that are arguments, not the programs (the
    first word, and each after `&&`, `|` or `;`)."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return []
    return [w for i, w in enumerate(words)
            if i > 0 and words[i - 1] not in ("&&", "||", "|", ";") and w not in ("&&", "||", "|", ";")]


def paths_named(command):
    """The arguments of `command` that name a file or folder the examples
    make (not an option, a setting, a variable or one of the repository's
    files): `results.json`, `part3.jsonl`, `my-policy`, `class/ada`."""
    return {w for w in arguments(command)
            if re.fullmatch(r"[\w][\w./-]*", w) and re.search(r"[./-]", w)
            and not (REPO / w).exists()}


def later_reads(index):
    """Whether a command after COMMANDS[index] names a path it makes: the
    same, a glob matching it, or a folder holding it."""
    made = paths_named(COMMANDS[index][1])
    for _, later in COMMANDS[index + 1:]:
        for word in arguments(later):
            if any(fnmatch.fnmatch(m, word) or m.startswith(word + "/") for m in made):
                return True
    return False


@pytest.mark.parametrize("index", range(2, len(COMMANDS)),
                         ids=[c.split("#")[0].strip()[:60] for _, c in COMMANDS[2:]])
def test_each_example_works_as_written(index, scratch):
    setup, command = COMMANDS[index]
    why = reason_not_run(command)
    if why:
        pytest.skip(why)
    if not (REPO / "target" / "release" / "connect4").exists():
        pytest.fail("target/release/connect4 is missing: the README's first command builds it")
    script = "\n".join(setup + ["set -o pipefail", command])
    producer = later_reads(index)
    status, out = run(script, scratch, PRODUCER_SECONDS if producer else LONG_JOB_SECONDS)
    if producer:
        assert status is not None, f"a later example reads what this one writes, and it ran past {PRODUCER_SECONDS} s:\n{out[-3000:]}"
    if status is None:
        lowered = out.lower()
        assert "error" not in lowered and "no such file" not in lowered, out[-3000:]
    else:
        assert status == 0, f"exit {status}:\n{out[-3000:]}"


STUDENTS = REPO / "docs" / "students.md"
STUDENT_STEPS = blocks(STUDENTS)


def test_the_students_page_goes_from_install_to_a_graded_template():
    commands = [c for _, c in STUDENT_STEPS]
    assert any(c.startswith("python3 -m venv") for c in commands), commands
    assert any(c.startswith("connect4-policy new") for c in commands), commands
    assert any(c.startswith("connect4-arena grade") for c in commands), commands


@pytest.mark.parametrize("setup, command", STUDENT_STEPS,
                         ids=[c.split("#")[0].strip()[:60] for _, c in STUDENT_STEPS])
def test_each_step_of_the_students_page_works_as_written(setup, command, student_checkout):
    """Each step runs to its end (none is a long job), in order."""
    script = "\n".join(setup + ["set -o pipefail", command])
    status, out = run(script, student_checkout, 600)
    assert status == 0, f"exit {status}:\n{out[-3000:]}"
    if command.startswith("connect4-arena grade"):
        assert (student_checkout / "results.json").exists()
        assert "total " in out, out[-3000:]
