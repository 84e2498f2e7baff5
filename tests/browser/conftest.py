"""Browser tests: Playwright's sync API driving Debian's chromium.

Fixtures:
- ``browser``: one headless chromium for these tests. They skip, saying
  why, when chromium is not installed or does not start (``make test``
  installs it as root on Debian; ``playwright install`` is never used).
- ``phone``: a fresh page in a 360x740 touch screen on the app served by
  pytest-django's ``live_server`` (``page.goto("/")`` works). A test using it
  fails if the page broke the Content Security Policy or threw an uncaught
  error; console errors and warnings are listed alongside.
- ``screenshot``: ``screenshot(page)`` saves test-output/screenshots/<test>.png.
- ``axe``: ``axe.violations(page)`` runs axe-core for WCAG 2.1 A and AA;
  ``axe.report(violations)`` words them for an assertion message.

A test's database is emptied only once the live server has answered every
request of its pages (a poll sent just before the pages closed, say), so that
nothing of one test is still being read or written while the next begins.
"""

import os
import re
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
PHONE = {
    "viewport": {"width": 360, "height": 740},
    "is_mobile": True,
    "has_touch": True,
}
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"

# Reports each securitypolicyviolation event, in every page and frame, to the
# test through a binding (which the page's CSP cannot block).
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.__reportCspViolation(
    `${e.disposition}: ${e.effectiveDirective} blocked ${e.blockedURI || "inline"}` +
    ` at ${e.sourceFile || e.documentURI}:${e.lineNumber}` +
    (e.sample ? ` (${e.sample})` : ""));
}, true);
"""
CSP_CONSOLE = re.compile(r"Content Security Policy|Refused to")


@dataclass
class PhoneLog:
    """What one phone page reported while the test ran."""

    console: list[str] = field(default_factory=list)  # errors and warnings
    csp: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)

    def problems(self):
        lines = []
        if self.csp:
            lines.append("Content Security Policy violations:")
            lines += [f"  {line}" for line in self.csp]
        if self.page_errors:
            lines.append("Uncaught errors in the page:")
            lines += [f"  {line}" for line in self.page_errors]
        if lines and self.console:
            lines.append("Console errors and warnings:")
            lines += [f"  {line}" for line in self.console]
        return "\n".join(lines)


PHONE_LOG = pytest.StashKey[PhoneLog]()


def launch_failure(error):
    """The first line of Playwright's launch error and what chromium printed."""
    lines = error.message.strip().splitlines()
    said = dict.fromkeys(line.split("[err] ", 1)[1] for line in lines if "[err] " in line)
    return "; ".join([lines[0] if lines else "unknown error", *list(said)[:5]])


@pytest.fixture(scope="package")
def browser():
    executable = shutil.which("chromium")
    if not executable:
        pytest.skip(
            "Debian's chromium is not installed: `make test` installs it when run as root "
            "on Debian, or run `apt-get install chromium`"
        )
    from playwright.sync_api import Error, sync_playwright

    # Between its calls Playwright's sync API marks an asyncio loop as running
    # in this thread, and Django then refuses database calls from it (the
    # test's own and pytest-django's flush) as "async unsafe". They are not:
    # nothing else runs on that loop while a test does. Package scope keeps
    # both the loop and this variable to the browser tests: the variable must
    # not reach other tests' subprocesses (`check --deploy` refuses it).
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    playwright = sync_playwright().start()
    try:
        try:
            chromium = playwright.chromium.launch(
                executable_path=executable, args=CHROMIUM_ARGS, headless=True
            )
        except Error as error:
            pytest.skip(f"chromium ({executable}) does not start: {launch_failure(error)}")
        yield chromium
        chromium.close()
    finally:
        playwright.stop()
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


class InFlight:
    """The requests the live server is serving, by thread, kept through Django's
    request_started and request_finished signals (sent by the live server's
    WSGIHandler in the thread serving the request; the test client's requests
    have another sender)."""

    def __init__(self):
        self.changed = threading.Condition()
        self.paths = {}

    def started(self, sender, environ, **kwargs):
        with self.changed:
            self.paths[threading.get_ident()] = environ.get("PATH_INFO", "")

    def finished(self, sender, **kwargs):
        with self.changed:
            self.paths.pop(threading.get_ident(), None)
            self.changed.notify_all()

    def wait_until_none(self, timeout):
        """True once no request is being served; False if some still are after `timeout` s."""
        with self.changed:
            return self.changed.wait_for(lambda: not self.paths, timeout=timeout)


@pytest.fixture(scope="session")
def live_server(request, django_db_setup):
    """pytest-django's live_server, over plain HTTP, started once the test
    database exists, with `.in_flight`, the requests it is serving.

    SecurityMiddleware reads SECURE_SSL_REDIRECT once, when the server thread
    loads the middleware, which is before tests/conftest.py turns the redirect
    off for each test: without this the browser is sent to https://.
    """
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.signals import request_finished, request_started
    from django.test.utils import override_settings
    from pytest_django.live_server_helper import LiveServer

    addr = (
        request.config.getvalue("liveserver")
        or os.getenv("DJANGO_LIVE_TEST_SERVER_ADDRESS")
        or "localhost"
    )
    server = LiveServer(addr, start=False)
    server.in_flight = InFlight()
    request_started.connect(server.in_flight.started, sender=WSGIHandler)
    request_finished.connect(server.in_flight.finished, sender=WSGIHandler)
    with override_settings(SECURE_SSL_REDIRECT=False):
        server.start()
    yield server
    server.stop()
    request_started.disconnect(server.in_flight.started, sender=WSGIHandler)
    request_finished.disconnect(server.in_flight.finished, sender=WSGIHandler)


# A poll or a save takes milliseconds; this long means a request that never ends.
REQUESTS_END_TIMEOUT = 20


@pytest.fixture(autouse=True)
def _live_server_done_before_the_flush(request):
    """A test with the live server: once its pages are closed (the `phone`
    fixtures' teardowns, which run first), wait until the server has answered
    every request they sent, then let pytest-django empty the database.

    This fixture asks for transactional_db itself, so its teardown comes
    before the database is emptied.
    """
    if "live_server" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("transactional_db")
    server = request.getfixturevalue("live_server")
    yield
    if not server.in_flight.wait_until_none(REQUESTS_END_TIMEOUT):
        pytest.fail(
            f"the live server was still serving {sorted(server.in_flight.paths.values())} "
            f"{REQUESTS_END_TIMEOUT} s after the test's pages closed",
            pytrace=False,
        )


@pytest.fixture
def phone(request, browser, live_server, transactional_db):
    log = PhoneLog()
    request.node.stash[PHONE_LOG] = log
    context = browser.new_context(base_url=live_server.url, **PHONE)
    # The live server answers in milliseconds: fail in 10 s, not Playwright's 30.
    context.set_default_timeout(10_000)
    context.expose_binding("__reportCspViolation", lambda source, text: log.csp.append(text))
    context.add_init_script(CSP_LISTENER)
    page = context.new_page()

    def on_console(message):
        text = f"{message.type}: {message.text}"
        if CSP_CONSOLE.search(message.text):
            log.csp.append(text)
        elif message.type in ("error", "warning"):
            log.console.append(text)

    page.on("console", on_console)
    page.on("pageerror", lambda error: log.page_errors.append(error.stack or str(error)))
    yield page
    context.close()


# Resolves once the page has painted a frame and run the tasks queued before it:
# a CSP violation or an error of what was swapped in is reported by then.
NEXT_FRAME = "() => new Promise((done) => requestAnimationFrame(() => setTimeout(done)))"
# htmx marks the elements of a request in flight, and of a swap or settle.
HTMX_BUSY = ".htmx-request, .htmx-swapping, .htmx-settling"


def settle(page):
    """Wait until nothing the page started can still log an error: the page has
    loaded, no htmx request, swap or settle is under way, and a frame has been
    painted after that (events, not a fixed sleep)."""
    page.wait_for_load_state("load")
    page.wait_for_function(f"() => !document.querySelector({HTMX_BUSY!r})")
    page.evaluate(NEXT_FRAME)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Fail a passing test whose phone page broke the CSP or threw an error."""
    result = yield
    log = item.stash.get(PHONE_LOG, None)
    page = item.funcargs.get("phone")
    if log is None or page is None:
        return result
    if not page.is_closed():
        settle(page)
    problems = log.problems()
    if problems:
        pytest.fail(problems, pytrace=False)
    return result


@pytest.fixture
def screenshot(request):
    """screenshot(page, suffix="") -> Path of test-output/screenshots/<test><suffix>.png."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", request.node.name).strip("-")

    def take(page, suffix=""):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}{suffix}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


class AxeChecker:
    """axe-core through axe-playwright-python, limited to WCAG 2.1 A and AA."""

    options = {
        "runOnly": {"type": "tag", "values": WCAG_TAGS},
        "resultTypes": ["violations"],
    }

    def violations(self, page):
        from axe_playwright_python.sync_playwright import Axe

        return Axe().run(page, options=self.options).response["violations"]

    def reports(self, page):
        """The report of the page's violations, in a list: empty when there are none."""
        violations = self.violations(page)
        return [self.report(violations)] if violations else []

    @staticmethod
    def report(violations):
        lines = [f"{len(violations)} axe WCAG 2.1 A/AA violation(s):"]
        for violation in violations:
            lines.append(
                f"- {violation['id']} ({violation.get('impact') or 'no impact'}): "
                f"{violation['help']} <{violation['helpUrl']}>"
            )
            for node in violation["nodes"]:
                target = " ".join(str(part) for part in node["target"])
                lines.append(f"    at {target}")
                if node.get("failureSummary"):
                    summary = node["failureSummary"].replace("\n", "\n      ")
                    lines.append(f"      {summary}")
        return "\n".join(lines)


def visit_each(page, urls, check):
    """Open each (label, url) of `urls`, answered OK, and `check(label, url)` it."""
    for label, url in urls:
        response = page.goto(url)
        assert response is not None and response.ok, (url, response and response.status)
        check(label, url)


@pytest.fixture(scope="session")
def axe():
    return AxeChecker()
