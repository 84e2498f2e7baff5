"""`make mutants`: mutation testing of the rules engine and the hand calculator.

Runs mutmut (pinned in requirements-test.txt) over the rules engine, every
module of the tracker/rules/ package, and the hand calculator among them,
tracker/rules/hand.py (reported apart), with the fast engine tests only:

    tests/rules/ (not the hypothesis properties, the brute force of
    tests/rules/test_hand.py on fewer hands) and tests/documents/test_stats.py

Each mutant is one small wrong change to the code (a `<` made `<=`, a `+ 1`
made `- 1`, a word of a message changed ...); a test that fails on it kills
it. A mutant that no test notices survives: either a test is missing, or the
change makes no difference a family could ever see (an equivalent mutant).
Equivalent mutants are listed, each with its reason, in
tests/mutants-equivalent.txt, by function and mutated line, so the list
survives mutmut's renumbering and the code's moves.

mutmut runs in test-output/mutmut/ (a fresh copy of the code and tests every
run, so no result of an earlier run is reused) and the report of survivors,
split into engine and hand calculator, goes to test-output/mutants.txt. The
last line printed is

    mutants: K killed, S survived, E equivalent

(engine and hand calculator together; a timeout counts as killed: a test run
that never ends is noticed). Exits 1 when a mutant of the engine survives
unexplained or the hand calculator's score is below 95 %.

Usage: python scripts/mutants.py [--jobs N] [--report-only] [--only PATTERN ...]
  N: default every core. PATTERN: mutmut's mutant names, * as a wildcard, for
  example 'tracker.rules.pool.*' (one module) or '*Pool*cells*' (one method):
  only those mutants are run and reported, for working on one part quickly.
  `make mutants` runs them all.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "test-output" / "mutmut"
REPORT = ROOT / "test-output" / "mutants.txt"
EQUIVALENT = ROOT / "tests" / "mutants-equivalent.txt"
HAND = "tracker/rules/hand.py"
HAND_TARGET = 95.0  # per cent of the hand calculator's mutants killed

# The fast engine tests: worked numbers and whole games, no database, no
# hypothesis properties (hundreds of random games for every mutant would take
# hours). The brute-force check of the hand calculator runs on fewer hands
# (MUTANTS_BRUTE_FORCE_HANDS, read by tests/rules/test_hand.py).
SLOW_TESTS = {"tests/rules/test_properties.py"}
# Reads the package's source, which mutmut's copy rewrites (each module then
# imports mutmut's trampoline): it checks the code as written, not behaviour.
SOURCE_TESTS = {"tests/rules/test_pure.py"}
BRUTE_FORCE_HANDS = "8"

COPY = ["tracker", "tests", "templates", "static", "manage.py"]
KILLED = {"killed", "timeout", "segfault", "caught by type check"}
STATUS = {
    1: "killed",
    3: "killed",
    0: "survived",
    5: "no tests",
    33: "no tests",
    34: "skipped",
    36: "timeout",
    -24: "timeout",
    24: "timeout",
    152: "timeout",
    255: "timeout",
    -11: "segfault",
    -9: "segfault",
    37: "caught by type check",
}


# The rules package, as mutmut's only_mutate glob (HAND among its files), and
# the engine as the report names it.
ENGINE = "tracker/rules/*.py"
ENGINE_NAME = "tracker/rules/ (but hand.py)"


def test_files():
    tests = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests" / "rules").glob("test_*.py")
        if str(path.relative_to(ROOT)) not in SLOW_TESTS | SOURCE_TESTS
    )
    # The engine's format modules are also tested by the table stats' worked
    # figures (the database tests of these files are deselected below).
    return [*tests, "tests/documents/test_stats.py"]


def toml_list(items):
    return "[" + ", ".join(f'"{item}"' for item in items) + "]"


def prepare(tests):
    """A fresh copy of the code and tests in test-output/mutmut, with mutmut's config."""
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in COPY:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, WORK / name, ignore=ignore)
        elif source.exists():
            shutil.copy2(source, WORK / name)
    pyproject = (ROOT / "pyproject.toml").read_text()
    pyproject = re.sub(r"\n\[tool\.mutmut\].*?(?=\n\[|\Z)", "", pyproject, flags=re.S)
    pyproject += f"""
[tool.mutmut]
source_paths = ["tracker"]
only_mutate = {toml_list([ENGINE])}
also_copy = ["templates/", "static/", "manage.py"]
pytest_add_cli_args = ["-p", "no:cacheprovider", "-q", "-m", "not django_db"]
pytest_add_cli_args_test_selection = {toml_list(tests)}
# A mutant whose tests run 3 times as long as they should plus 1 second of
# CPU is a timeout (an endless loop), counted as killed.
timeout_multiplier = 3.0
timeout_constant = 1.0
"""
    (WORK / "pyproject.toml").write_text(pyproject)


def run_mutmut(jobs, only=()):
    env = {
        **os.environ,
        "MUTANTS_BRUTE_FORCE_HANDS": BRUTE_FORCE_HANDS,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.pop("DATABASE_URL", None)
    mutmut = Path(sys.executable).parent / "mutmut"
    log = WORK / "mutmut.log"
    with log.open("w") as out:
        code = subprocess.call(
            [str(mutmut), "run", "--max-children", str(jobs), *only],
            cwd=WORK,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    if code != 0:
        tail = log.read_text(errors="replace")[-3000:]
        sys.exit(f"mutmut run failed (exit {code}); the end of {log}:\n{tail}")


def results():
    """{file: {mutant name: status}} from mutmut's .meta files."""
    import json

    found = {}
    for meta in sorted((WORK / "mutants" / "tracker").rglob("*.py.meta")):
        path = str(meta.relative_to(WORK / "mutants"))[: -len(".meta")]
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        found[path] = {
            name: STATUS.get(code, "not checked" if code is None else "suspicious")
            for name, code in codes.items()
        }
    return found


def diffs(names):
    """The diff of each mutant, through mutmut's own reader (run in the work copy)."""
    os.chdir(WORK)
    sys.path.insert(0, str(WORK))
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    out = {}
    for path, name in names:
        try:
            out[name] = get_diff_for_mutant(name, path=path)
        except Exception as error:  # a mutant mutmut cannot show is still listed
            out[name] = f"(no diff: {error})"
    os.chdir(ROOT)
    return out


def function_of(name):
    """`fewest_payments` of tracker.rules.x_fewest_payments__mutmut_3,
    `GameState.rejoin_refusal` of tracker.rules.xǁGameStateǁrejoin_refusal__mutmut_2."""
    mangled = name.rsplit("__mutmut_", 1)[0].rsplit(".", 1)[-1]
    if mangled.startswith("xǁ"):
        _, cls, method = mangled.split("ǁ", 2)
        return f"{cls}.{method}"
    return mangled.removeprefix("x_")


def mutated_lines(diff):
    """The lines of the mutant (the diff's + lines), stripped, joined by ' / '."""
    lines = [
        line[1:].strip()
        for line in diff.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    return " / ".join(lines)


def load_equivalents():
    """{(function, mutated line): reason} from tests/mutants-equivalent.txt.

    Each line: `function: mutated line  -- reason` (blank lines and # comments skipped).
    """
    known = {}
    if not EQUIVALENT.exists():
        return known
    for number, line in enumerate(EQUIVALENT.read_text().splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        head, sep, reason = line.rpartition("  -- ")
        function, colon, code = head.partition(": ")
        if not (sep and colon and reason.strip()):
            sys.exit(f"{EQUIVALENT}:{number}: not `function: mutated line  -- reason`: {line}")
        known[(function.strip(), code.strip())] = reason.strip()
    return known


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument(
        "--report-only", action="store_true", help="report on the last run again, no mutmut"
    )
    parser.add_argument(
        "--only",
        nargs="+",
        default=[],
        metavar="PATTERN",
        help="run and report only the mutants whose names match (fnmatch, * as wildcard)",
    )
    args = parser.parse_args()
    tests = test_files()
    start = time.monotonic()
    if not args.report_only:
        print(f"mutants: the rules engine {ENGINE_NAME} and the hand calculator {HAND}")
        print(f"  tests: {' '.join(tests)}")
        print(f"  in {WORK.relative_to(ROOT)}/, {args.jobs} at a time (mutmut's log: mutmut.log)")
        prepare(tests)
        run_mutmut(args.jobs, args.only)
    found = results()
    if args.only:
        found = {
            path: {
                name: status
                for name, status in by_name.items()
                if any(fnmatch.fnmatch(name, pattern) for pattern in args.only)
            }
            for path, by_name in found.items()
        }
        found = {path: by_name for path, by_name in found.items() if by_name}
    if not found:
        sys.exit("mutmut left no results in test-output/mutmut/mutants/")
    equivalents = load_equivalents()
    unkilled = [
        (path, name)
        for path, by_name in found.items()
        for name, status in by_name.items()
        if status not in KILLED
    ]
    diff_of = diffs(unkilled)

    used = set()
    parts = {"engine": Counter(), "hand": Counter()}
    listed = {"engine": [], "hand": []}
    for path, by_name in found.items():
        part = "hand" if path == HAND else "engine"
        for name, status in sorted(by_name.items(), key=lambda kv: _number(kv[0])):
            if status in KILLED:
                parts[part]["killed"] += 1
                continue
            key = (function_of(name), mutated_lines(diff_of[name]))
            if key in equivalents:
                used.add(key)
                parts[part]["equivalent"] += 1
                continue
            parts[part]["survived"] += 1
            listed[part].append((name, status, diff_of[name]))

    lines = [f"Mutation testing: engine {ENGINE_NAME}, hand calculator {HAND}"]
    lines.append(f"tests: {' '.join(tests)}")
    if not args.report_only:
        lines.append(f"took {time.monotonic() - start:.0f} s with {args.jobs} jobs")
    failed = []
    for part, title in (("engine", "rules engine"), ("hand", "hand calculator")):
        c = parts[part]
        scored = c["killed"] + c["survived"]
        score = 100.0 * c["killed"] / scored if scored else 100.0
        lines.append(
            f"{title}: {c['killed']} killed, {c['survived']} survived, "
            f"{c['equivalent']} equivalent; score {score:.1f} %"
        )
        if part == "engine" and c["survived"]:
            failed.append(f"{c['survived']} unexplained survivors in the rules engine")
        if part == "hand" and score < HAND_TARGET:
            failed.append(f"hand calculator score {score:.1f} % is below {HAND_TARGET:.0f} %")
    for part, title in (("engine", "rules engine"), ("hand", "hand calculator")):
        lines.append("")
        lines.append(f"== survivors in the {title}: {len(listed[part])}")
        for name, status, diff in listed[part]:
            lines.append("")
            lines.append(f"-- {name} ({status}): {function_of(name)}")
            lines.append(diff)
    stale = [] if args.only else sorted(set(equivalents) - used)
    if stale:
        lines.append("")
        lines.append(f"== {len(stale)} entries of {EQUIVALENT.name} match no mutant now:")
        lines += [f"{function}: {code}" for function, code in stale]
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("\n".join(lines) + "\n")

    summary = [line for line in lines[:5] if line.startswith(("rules engine", "hand"))]
    print("\n".join(summary))
    for part in ("engine", "hand"):
        for name, _status, _diff in listed[part]:
            print(f"  survived: {name} ({function_of(name)}: {mutated_lines(diff_of[name])})")
    print(f"report: {REPORT.relative_to(ROOT)}")
    for why in failed:
        print(f"FAILED: {why}")
    total = parts["engine"] + parts["hand"]
    print(
        f"mutants: {total['killed']} killed, {total['survived']} survived, "
        f"{total['equivalent']} equivalent"
    )
    return 1 if failed else 0


def _number(name):
    tail = name.rsplit("__mutmut_", 1)[-1]
    return (name.rsplit("__mutmut_", 1)[0], int(tail) if tail.isdigit() else 0)


if __name__ == "__main__":
    sys.exit(main())
