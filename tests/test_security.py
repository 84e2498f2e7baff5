"""Security by default: headers, the deploy check, CSRF on every post."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from tracker.models import Game

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.django_db
def test_every_page_sends_the_security_headers(client):
    game = Game.create("pool", {}, ["A", "B"])
    for url in ["/", "/new/", game.get_absolute_url(), game.get_view_url(), "/nope/"]:
        response = client.get(url)
        csp = response["Content-Security-Policy"]
        assert "script-src 'self'" in csp
        assert "style-src 'self'" in csp
        assert "unsafe" not in csp
        assert "frame-ancestors 'none'" in csp
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["Referrer-Policy"] == "same-origin"
        assert response["X-Frame-Options"] == "DENY"
        # No camera, microphone or location for anyone; the wake lock for this site.
        assert response["Permissions-Policy"] == (
            "camera=(), microphone=(), geolocation=(), screen-wake-lock=(self)"
        )


@pytest.mark.django_db
def test_pages_have_no_inline_script_or_style(client):
    game = Game.create("pool", {}, ["A", "B"])
    for url in ["/", "/new/", game.get_absolute_url(), game.get_view_url()]:
        page = client.get(url).content.decode()
        assert "<style" not in page
        assert ' style="' not in page
        for script in page.split("<script")[1:]:
            assert script.lstrip().startswith("src="), url
        assert "hx-on" not in page  # inline handlers need eval under CSP


def deploy_check(**env):
    run_env = {**os.environ, "SECRET_KEY": secrets.token_urlsafe(50), "DEBUG": "0", **env}
    run_env.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=run_env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_production_settings_pass_the_deploy_check():
    result = deploy_check()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_plain_http_home_network_is_a_documented_choice():
    result = deploy_check(HTTPS="off")
    assert result.returncode != 0
    assert "SESSION_COOKIE_SECURE" in result.stdout + result.stderr
    assert "HTTPS=off" in (ROOT / "README.md").read_text()
