# "3 December 2026": day, month, year, as dates are written in India.
DATE_FORMAT = "j F Y"
