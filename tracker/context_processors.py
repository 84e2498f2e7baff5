"""What every page's template reads besides Django's own context: the theme."""

# The colours a phone can choose (the switch at the foot of every page). No
# cookie means "as the phone": the stylesheet follows prefers-color-scheme.
THEMES = ("light", "dark")
THEME_COOKIE = "theme"
# The browser's bar (the header's colour) and the installed app's splash (the
# page's) in each theme, as static/tracker.css paints them.
THEME_COLOURS = {"light": "#0b6e4f", "dark": "#000000"}
PAGE_COLOURS = {"light": "#ffffff", "dark": "#000000"}


def chosen_theme(request):
    """ "light" or "dark" as this phone chose, else "" (as the phone)."""
    value = request.COOKIES.get(THEME_COOKIE, "")
    return value if value in THEMES else ""


def theme(request):
    return {"theme": chosen_theme(request), "theme_colours": THEME_COLOURS}
