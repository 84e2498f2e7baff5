"""The theme switch without JavaScript, and what a page and the manifest say of
the theme (issue 40, part 3). The colours themselves: tests/browser/test_dark.py."""

import json
import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

YEAR = 60 * 60 * 24 * 365


def bar_colours(page):
    """The page's theme-color metas as (content, media)."""
    return re.findall(
        r'<meta name="theme-color" data-theme="\w+" content="([^"]+)"\s+media="([^"]+)"', page
    )


def test_dark_chosen_is_kept_and_served_from_the_first_frame():
    client = Client()
    response = client.post("/theme/", {"theme": "dark", "next": "/calculator/"})
    assert response.status_code == 302 and response["Location"] == "/calculator/"
    cookie = response.cookies["theme"]
    assert cookie.value == "dark" and cookie["max-age"] == YEAR
    assert cookie["samesite"] == "Lax" and cookie["path"] == "/"
    page = client.get("/calculator/").content.decode()
    assert '<html lang="en" data-theme="dark">' in page
    assert bar_colours(page) == [("#0b6e4f", "not all"), ("#000000", "all")]
    assert '<link rel="manifest" href="/manifest-en-dark.webmanifest"' in page
    assert '<button name="theme" value="dark" aria-pressed="true">Dark</button>' in page


def test_light_chosen():
    client = Client()
    client.post("/theme/", {"theme": "light", "next": "/"})
    page = client.get("/").content.decode()
    assert '<html lang="en" data-theme="light">' in page
    assert bar_colours(page) == [("#0b6e4f", "all"), ("#000000", "not all")]
    assert '<link rel="manifest" href="/manifest-en.webmanifest"' in page


def test_as_the_phone_forgets_the_choice():
    client = Client()
    client.post("/theme/", {"theme": "dark", "next": "/"})
    response = client.post("/theme/", {"theme": "auto", "next": "/offline/"})
    assert response["Location"] == "/offline/"
    assert response.cookies["theme"].value == "" and response.cookies["theme"]["max-age"] == 0
    page = client.get("/offline/").content.decode()
    assert '<html lang="en">' in page
    assert bar_colours(page) == [
        ("#0b6e4f", "(prefers-color-scheme: light)"),
        ("#000000", "(prefers-color-scheme: dark)"),
    ]
    assert '<button name="theme" value="auto" aria-pressed="true">As the phone</button>' in page


def test_a_bad_choice_or_address_follows_the_phone_at_home():
    client = Client()
    response = client.post("/theme/", {"theme": "purple", "next": "https://example.com/"})
    assert response.status_code == 302 and response["Location"] == "/"
    assert response.cookies["theme"]["max-age"] == 0
    assert client.post("/theme/").status_code == 302
    assert client.get("/theme/").status_code == 405
    # A cookie with something else in it is not put in the page.
    client.cookies["theme"] = '"><script>'
    page = client.get("/").content.decode()
    assert '<html lang="en">' in page and "<script>" not in page.split("</head>")[0]


def test_the_switch_posts_with_csrf():
    client = Client(enforce_csrf_checks=True)
    assert client.post("/theme/", {"theme": "dark"}).status_code == 403
    page = client.get("/calculator/").content.decode()
    assert (
        'action="/theme/"' in page
        and 'name="csrfmiddlewaretoken"' in page.split('class="theme"')[1]
    )


@pytest.mark.parametrize(
    "address, splash, bar",
    [
        ("/manifest-hi.webmanifest", "#ffffff", "#0b6e4f"),
        ("/manifest-hi-dark.webmanifest", "#000000", "#000000"),
    ],
)
def test_the_installed_apps_splash_and_bar_follow_the_theme(client, address, splash, bar):
    manifest = json.loads(client.get(address).content)
    assert manifest["background_color"] == splash and manifest["theme_color"] == bar
    assert manifest["short_name"] == "रमी" and manifest["lang"] == "hi"
