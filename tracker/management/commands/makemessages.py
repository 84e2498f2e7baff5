"""Django's makemessages, also finding the rules package's refusals.

The rules package (tracker/rules/) imports nothing from Django, so it marks
its words with `N_` (tracker/rules/table.py); xgettext is told that `N_`
marks a message too. Django's makemessages has no --keyword option: this is
its documented way to add xgettext options.
"""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=N_"]
