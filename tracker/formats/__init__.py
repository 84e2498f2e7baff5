"""Dates as each language writes them (settings.FORMAT_MODULE_PATH).

Django reads `DATE_FORMAT` from `<code>/formats.py` here before its own
locale formats, and the templates' `{{ value|date }}` uses it: the day, the
month's name and the year, digits 0-9 ("3 December 2026", "3 दिसंबर 2026",
"3 டிசம்பர் 2026", "3 డిసెంబర్ 2026"). No weekday: Django's Tamil has no
short weekday names, and a family needs the day of the month, not of the week.
The month's names come from Django's own catalogues.
"""
