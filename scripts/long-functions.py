#!/usr/bin/env python3
"""The longest functions of the libraries and binaries (tests left out):
each `fn` from its line to its closing brace, braces matched, the
`#[cfg(test)]` part of each file skipped. Prints those over LIMIT lines
(80 by default), longest first, and the longest one in any case; exits
1 when there is one (CI runs it).

Usage: scripts/long-functions.py [LIMIT]
"""

import pathlib
import re
import sys

LIMIT = int(sys.argv[1]) if len(sys.argv) > 1 else 80
ROOT = pathlib.Path(__file__).resolve().parent.parent
FN = re.compile(r"\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)")


def functions(path):
    lines = path.read_text().split("\n")
    end = next((i for i, l in enumerate(lines) if l.startswith("#[cfg(test)]")), len(lines))
    for i in range(end):
        m = FN.match(lines[i])
        if not m:
            continue
        depth, started, j = 0, False, i
        while j < len(lines):
            for ch in lines[j]:
                if ch == "{":
                    depth, started = depth + 1, True
                elif ch == "}":
                    depth -= 1
            if started and depth == 0:
                break
            if not started and lines[j].rstrip().endswith(";"):
                break
            j += 1
        if started:
            yield j - i + 1, f"{path.relative_to(ROOT)}:{i + 1}", m.group(6)


def main():
    found = sorted((f for d in ("src", "arena/src", "crates") for p in (ROOT / d).rglob("*.rs")
                    for f in functions(p)), reverse=True)
    over = [f for f in found if f[0] > LIMIT]
    for n, place, name in over:
        print(f"{n:4} {place} {name}")
    print(f"{len(over)} function(s) over {LIMIT} lines; the longest: {found[0][0]} lines "
          f"({found[0][2]}, {found[0][1]})")
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
