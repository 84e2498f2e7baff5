"""Tap Save -> every watcher's board shows the deal, in Debian's chromium: one scorer
and five watchers, a context (a 360 px touch phone) each; every time is taken in the
pages by the machine's one clock (bench/README.md says which events)."""

from __future__ import annotations

import random
import re
import shutil

from bench.shared import PLAYERS, Broken, install
from tests.browser.conftest import CHROMIUM_ARGS, PHONE

WATCHERS = 5
WAIT_MS = 15_000  # a board not shown by then: the benchmark broke

MARKS = r"""
(() => {
  const now = () => performance.timeOrigin + performance.now();
  const marks = (window.__bench = { sent: {}, answered: {}, told: {}, boarded: {}, shown: {} });
  const first = (kind, revision) => {
    if (!(revision in marks[kind])) marks[kind][revision] = now();
  };
  let saving = null; // the revision the scorer's save in flight makes
  document.addEventListener("htmx:beforeSend", (event) => {
    const form = event.detail.elt;
    if (!form.matches || !form.matches("form.deal-form")) return;
    saving = String(Number(form.querySelector("input[name=version]").value) + 1);
    first("sent", saving);
  });
  document.addEventListener("htmx:beforeOnLoad", (event) => {
    if (saving !== null && event.detail.elt.matches("form.deal-form")) first("answered", saving);
  });
  const Native = window.EventSource;
  window.EventSource = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => first("told", event.data));
      this.addEventListener("board", (event) => {
        const sent = event.data.match(/data-revision="(\d+)"/);
        if (sent) first("boarded", sent[1]);
      });
    }
  };
  const waiting = {}; // revision: the resolves of the benchmark's waits for it
  const look = () => {
    const board = document.getElementById("board");
    if (!board) return;
    const revision = board.dataset.revision;
    first("shown", revision);
    for (const resolve of waiting[revision] || []) resolve();
    delete waiting[revision];
  };
  // Resolves once the board shows `revision`: the benchmark waits for the event, never polls.
  window.__benchShown = (revision) => revision in marks.shown
    ? null
    : new Promise((resolve) => (waiting[revision] ||= []).push(resolve));
  new MutationObserver(look).observe(document, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["data-revision"],
  });
})();
"""


# Resolves once this page's service worker has kept it at `revision` (tracker/sw.js:
# the page's copy, as fetched) and no htmx request of the page is under way; looked at
# every 50 ms in the page (the cache says nothing when it changes), at most `ms`.
# (Playwright's wait_for_function would take the async check's promise for a yes.)
KEPT = """async ([revision, ms]) => {
  const quiet = async () => {
    if (document.querySelector(".htmx-request")) return false;
    const cache = await caches.open("pages-1");
    const kept = await cache.match(location.origin + location.pathname);
    return !!kept && (await kept.text()).includes(`data-revision="${revision}"`);
  };
  const until = performance.now() + ms;
  while (!(await quiet())) {
    if (performance.now() > until) throw new Error(`page not kept at ${revision}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}"""


class Phone:
    """A context (a phone) and its page on `path`."""

    def __init__(self, browser, base_url, path):
        self.path = path
        self.context = browser.new_context(base_url=base_url, **PHONE)
        self.context.set_default_timeout(WAIT_MS)
        self.context.add_init_script(MARKS)
        self.page = self.context.new_page()

    def open(self, revision):
        """The page, its stream open (the board waits for it), its service worker in
        charge and done keeping it."""
        self.page.goto(self.path)
        self.page.locator("#board[hx-trigger=revision-moved]").wait_for()
        self.page.wait_for_function("() => !!navigator.serviceWorker.controller")
        self.wait_quiet(revision)

    def wait_shown(self, revision):
        self.page.evaluate(
            "([r, ms]) => Promise.race([window.__benchShown(r), new Promise((_, no) =>"
            " setTimeout(() => no(new Error(`board ${r} not shown`)), ms))])",
            [str(revision), WAIT_MS],
        )

    def wait_quiet(self, revision):
        """Until the page was kept at `revision` and asks nothing more."""
        self.page.evaluate(KEPT, [revision, WAIT_MS])

    def marks(self):
        return self.page.evaluate("() => window.__bench")


def enter_deal(page, rng):
    """Tap the winner, type each other player's points, tap Save."""
    form = page.locator("#deal-entry")
    winner = rng.choice(PLAYERS)
    form.locator("label.win", has_text=re.compile(rf"^\s*{winner}")).tap()
    for name in PLAYERS:
        if name != winner:
            row = form.locator(".deal-row", has=page.locator("label.win", has_text=name))
            row.locator(".points input").fill(str(rng.randint(2, 80)))
    form.get_by_role("button", name=re.compile("Save deal")).tap()


def measure(port, game, deals):
    """ms from the save's post, over `deals` deals: to the last watcher's board showing it
    ("sent_to_all"), to the save's answer; to each watcher told, and told -> its board."""
    from playwright.sync_api import Error, sync_playwright

    install("chromium")  # says why when chromium cannot be had
    executable = shutil.which("chromium")
    if executable is None:
        raise Broken("chromium is needed for the watchers' boards (scripts/chromium.sh)")
    rng = random.Random(36)
    base = f"http://127.0.0.1:{port}"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            scorer = Phone(browser, base, f"/g/{game['edit']}/")
            watchers = [Phone(browser, base, f"/w/{game['view']}/") for _ in range(WATCHERS)]
            everyone = [scorer, *watchers]
            revision = game["revision"]
            for phone in everyone:
                phone.open(revision)
            for _ in range(1 + deals):
                enter_deal(scorer.page, rng)
                revision += 1
                for phone in everyone:
                    phone.wait_shown(revision)
                for phone in everyone:
                    phone.wait_quiet(revision)
            game["revision"] = revision
            sent, answered = scorer.marks()["sent"], scorer.marks()["answered"]
            seen = [watcher.marks() for watcher in watchers]
        except Error as error:
            raise Broken(f"the watchers' boards: {error.message.splitlines()[0]}") from error
        finally:
            browser.close()
    timed = [str(r) for r in range(revision - deals + 1, revision + 1)]
    return {
        "sent_to_all": [max(s["shown"][r] for s in seen) - sent[r] for r in timed],
        "answered": [answered[r] - sent[r] for r in timed],
        # Told: the stream's event, when its data is the revision (else not printed).
        "told": [s["told"][r] - sent[r] for r in timed for s in seen if r in s["told"]],
        "told_to_shown": [
            s["shown"][r] - s["told"][r] for r in timed for s in seen if r in s["told"]
        ],
        # Told -> the board's event came; that event -> its board shown.
        "told_to_boarded": [
            s["boarded"][r] - s["told"][r]
            for r in timed
            for s in seen
            if r in s["told"] and r in s["boarded"]
        ],
        "boarded_to_shown": [
            s["shown"][r] - s["boarded"][r] for r in timed for s in seen if r in s["boarded"]
        ],
    }
