"""The home page on a phone: it renders, keeps to its CSP and passes axe."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_home_page_on_a_phone(phone, screenshot, axe):
    response = phone.goto("/")
    assert response is not None and response.ok, response and response.status
    expect(phone).to_have_title(re.compile("Rummy score"))
    # The app's name heads every page, in the banner.
    banner = phone.get_by_role("banner")
    expect(banner.get_by_text("Rummy score")).to_be_visible()
    path = screenshot(phone)
    assert path.stat().st_size > 0
    violations = axe.violations(phone)
    assert not violations, axe.report(violations)
