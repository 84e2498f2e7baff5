"""Every answer carries the same security headers, those made before the middleware
that adds them too (issue 37, item 7): SecurityMiddleware's redirect to HTTPS and the
400 for a Host not allowed lacked the Content-Security-Policy and X-Frame-Options."""

import pytest
from django.test import Client, override_settings

HEADERS = [
    "Content-Security-Policy",
    "X-Frame-Options",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
    "Permissions-Policy",
]


def security(response):
    return {name: response.headers.get(name) for name in HEADERS}


@pytest.mark.django_db
@override_settings(SECURE_SSL_REDIRECT=False)
def test_answers_made_before_the_middleware_carry_the_security_headers(client):
    page = client.get("/calculator/")
    assert page.status_code == 200
    expected = security(page)
    assert None not in expected.values()
    with override_settings(SECURE_SSL_REDIRECT=True):
        redirected = Client().get("/calculator/")  # SecurityMiddleware reads it when made
    assert redirected.status_code == 301
    assert redirected["Location"] == "https://testserver/calculator/"
    with override_settings(ALLOWED_HOSTS=["testserver"]):
        refused = client.get("/calculator/", headers={"host": "elsewhere.example"})
    assert refused.status_code == 400
    assert security(redirected) == expected
    assert security(refused) == expected
