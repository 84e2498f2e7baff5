"""Lighthouse (mobile, its default) on the game screen in each language a family
reads it in: the page asked for as a phone set to that language asks
(`Accept-Language`), each figure the median of `runs` runs.

Before the runs, the page is fetched once with the same header and its
`<html lang>` read: a language the settings do not offer yet is served in
English, and its line says so.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess

from bench.load import fetch
from bench.report import OUT, Broken, say

LANGUAGES = ("en", "hi", "ta", "te")
CATEGORIES = ("performance", "accessibility", "best-practices")


def _once(binary, chromium, url, language, path):
    cmd = [
        binary,
        url,
        "--quiet",
        "--output=json",
        f"--output-path={path}",
        f"--only-categories={','.join(CATEGORIES)}",
        "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
        f"--extra-headers={json.dumps({'Accept-Language': language})}",
    ]
    env = {**os.environ, "CHROME_PATH": chromium}
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not path.exists():
        raise Broken(f"lighthouse exited {done.returncode}: {done.stderr.strip()[-300:]}")
    report = json.loads(path.read_text())
    if report.get("runtimeError"):
        raise Broken(f"lighthouse: {report['runtimeError']}")
    scores = {k: round(v["score"] * 100) for k, v in report["categories"].items()}
    below = sorted(
        ref["id"]
        for category in report["categories"].values()
        for ref in category["auditRefs"]
        if ref.get("weight") and report["audits"][ref["id"]].get("score") not in (None, 1)
    )
    kb = report["audits"]["total-byte-weight"]["numericValue"] / 1024
    return scores, kb, below


def served_language(port, path, language):
    status, _, body = fetch(port, path, {"Accept-Language": language})
    found = re.search(rb'<html lang="([^"]+)"', body)
    if status != 200 or not found:
        raise Broken(f"GET {path} (Accept-Language: {language}) answered {status}")
    return found.group(1).decode()


def measure(tools, port, path, runs):
    """{language: {"scores": {category: median}, "lowest": {...}, "kb", "served"}}."""
    binary, chromium = tools
    results = {}
    for language in LANGUAGES:
        served = served_language(port, path, language)
        passes, tries = [], 0
        while len(passes) < runs and tries < runs + 3:
            tries += 1
            out = OUT / f"lighthouse-game-{language}-{len(passes) + 1}.json"
            out.unlink(missing_ok=True)
            try:
                passes.append(
                    _once(binary, chromium, f"http://127.0.0.1:{port}{path}", language, out)
                )
            except (Broken, subprocess.TimeoutExpired) as error:
                # Chromium now and then loses the trace (NO_NAVSTART): try again.
                say(f"lighthouse game screen {language}: try {tries} failed: {error}")
        if not passes:
            say(f"lighthouse game screen {language}: no run finished")
            continue
        scores = {k: int(statistics.median(p[0][k] for p in passes)) for k in CATEGORIES}
        lowest = {k: min(p[0][k] for p in passes) for k in CATEGORIES}
        kb = statistics.median(p[1] for p in passes)
        below = sorted({audit for p in passes for audit in p[2]})
        note = "" if served == language else f"; served in {served}: {language} not switched on"
        say(
            f"lighthouse game screen {language}: "
            + ", ".join(f"{k} {scores[k]} (lowest {lowest[k]})" for k in CATEGORIES)
            + f"; {kb:.1f} KB transferred{note}"
            + (f"; below full marks: {', '.join(below)}" if below else "")
        )
        results[language] = {"scores": scores, "lowest": lowest, "kb": kb, "served": served}
    return results
