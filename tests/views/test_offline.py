"""The service worker, the manifest and the offline page, as the server serves them.

What the worker does in a browser (the kept copy, the notice, the form off,
catching up) is tested in tests/browser/test_offline.py.
"""

import json
import re
import struct
from pathlib import Path

import pytest
from django.test import Client

from tracker.views import offline

pytestmark = pytest.mark.django_db

STATIC = Path(__file__).resolve().parents[2] / "static"


def test_the_worker_is_served_from_the_root_for_the_whole_site(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    assert response["Cache-Control"] == "no-cache"
    # Under the same strict policy as every page: scripts from this site only.
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    body = response.content.decode()
    precache = json.loads(re.search(r"^const PRECACHE = (.*);$", body, re.M).group(1))
    assert "/static/tracker.css" in precache and "/static/tracker.js" in precache
    assert "/static/django_htmx/htmx-2.min.js" in precache
    assert "/static/icon-maskable-512.png" in precache
    assert 'const OFFLINE_URL = "/offline/";' in body


def test_the_worker_never_handles_a_post():
    source = offline.SOURCE.read_text()
    # The fetch handler leaves every request but a GET to the network.
    assert 'if (request.method !== "GET") return;' in source


def test_a_new_static_file_makes_a_new_worker(client, monkeypatch, tmp_path):
    before = re.search(r'const VERSION = "(\w+)"', client.get("/sw.js").content.decode()).group(1)
    changed = tmp_path / "tracker.css"
    changed.write_text("body { color: red; }")
    real_find = offline.finders.find
    monkeypatch.setattr(
        offline.finders,
        "find",
        lambda name: str(changed) if name == "tracker.css" else real_find(name),
    )
    after = re.search(r'const VERSION = "(\w+)"', client.get("/sw.js").content.decode()).group(1)
    assert before != after
    assert client.get("/sw.js").content.decode().count(after) == 1


def test_the_worker_cannot_be_posted_to(client):
    assert client.post("/sw.js").status_code == 405


def test_the_offline_page(client):
    response = client.get("/offline/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "No network" in page
    assert "Nothing can be saved until the network is back." in page


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", data[16:24])


def test_the_manifest_names_what_chromium_needs_to_install():
    manifest = json.loads((STATIC / "manifest.webmanifest").read_text())
    assert manifest["id"] == "/"
    assert manifest["start_url"] == "/"
    assert manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    assert manifest["name"] == "Rummy score" and manifest["short_name"] == "Rummy"
    pngs = {(icon["sizes"], icon["purpose"]): icon["src"] for icon in manifest["icons"]}
    for size in (192, 512):
        for purpose in ("any", "maskable"):
            src = pngs[(f"{size}x{size}", purpose)]
            assert png_size(STATIC / src) == (size, size)


@pytest.mark.parametrize(
    "language, name, short_name, description",
    [
        ("en", "Rummy score", "Rummy", "Score Indian 13-card rummy at the table"),
        ("hi", "रमी स्कोर", "रमी", "13 पत्तों की भारतीय रमी"),
        ("ta", "ரம்மி ஸ்கோர்", "ரம்மி", "13 சீட்டு இந்திய ரம்மிக்கு"),
        ("te", "రమ్మీ స్కోరు", "రమ్మీ", "13 ముక్కల"),
    ],
)
def test_each_language_links_a_manifest_in_its_own_words(language, name, short_name, description):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    page = client.get("/calculator/").content.decode()
    link = f'<link rel="manifest" href="/manifest-{language}.webmanifest"'
    assert link in page
    response = client.get(f"/manifest-{language}.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["lang"] == language
    assert manifest["name"] == name and manifest["short_name"] == short_name
    assert manifest["description"].startswith(description)
    # The rest as static/manifest.webmanifest says, the icons at their static addresses.
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    icons = {icon["src"] for icon in manifest["icons"]}
    assert "/static/icon-192.png" in icons and "/static/icon-maskable-512.png" in icons
    # The address names the language, not the browser: a Tamil phone's link in Telugu.
    telugu = Client(HTTP_ACCEPT_LANGUAGE="ta").get("/manifest-te.webmanifest")
    assert json.loads(telugu.content)["short_name"] == "రమ్మీ"


def test_a_manifest_in_a_language_the_site_has_not_is_not_found(client):
    assert client.get("/manifest-fr.webmanifest").status_code == 404
    assert client.post("/manifest-en.webmanifest").status_code == 405


def test_every_page_links_the_manifest_and_carries_the_offline_notice(client):
    page = client.get("/").content.decode()
    assert re.search(r'<link rel="manifest" href="/manifest-en\.webmanifest"', page)
    assert '<template id="offline-notice">' in page
    assert "Offline: scores as of <time></time>." in page
    assert '<template id="offline-reason">' in page
    assert "<script>" not in page  # no inline script: the worker is registered from tracker.js
    assert 'register("/sw.js", { scope: "/" })' in (STATIC / "tracker.js").read_text()


def test_every_page_answers_head_so_an_offline_page_can_tell_the_server_is_back(client):
    """The offline page asks the server with HEAD whether it is back (tracker.js)."""
    from tracker.models import Game, Table

    game = Game.create("pool", {}, ["Asha", "Ravi", "Meena"])
    table = Table.start("Sunday", ["Asha", "Ravi"])
    pages = [
        "/",
        "/new/",
        "/import/",
        "/calculator/",
        "/offline/",
        "/sw.js",
        "/tables/new/",
        f"/g/{game.edit_token}/",
        f"/w/{game.view_token}/",
        f"/g/{game.edit_token}/count/1/",
        f"/g/{game.edit_token}/game.json",
        f"/w/{game.view_token}/chart.svg",
        f"/t/{table.edit_token}/",
        f"/tw/{table.view_token}/",
        f"/t/{table.edit_token}/new/",
    ]
    for url in pages:
        response = client.head(url)
        assert response.status_code == 200, (url, response.status_code)
