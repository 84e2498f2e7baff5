"""`manage.py score_hand AS 2S 3S ... PJ --wild 5`: score one hand, print one JSON line."""

import json

from django.core.management.base import BaseCommand, CommandError

from tracker.rules.hand import ACE_VALUES, COUNT_RULES, NATURAL_WILD_RULES, HandError, score_hand


class Command(BaseCommand):
    help = (
        "Find the grouping of a rummy hand (13 cards, or 14 with the best discard) with the "
        "fewest points and print it as one line of JSON."
    )
    # Scoring a hand touches neither the database nor the URLs.
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("cards", nargs="+", help='cards such as AS 10H TC PJ ("," also works)')
        parser.add_argument("--wild", help="the wild rank (5, 10, K, A) or PJ: aces are wild")
        parser.add_argument(
            "--natural-wild",
            choices=NATURAL_WILD_RULES,
            default="pure",
            help="a wild card in its own place keeps a sequence pure, or counts as a joker",
        )
        parser.add_argument(
            "--no-jokers-in-sets",
            dest="jokers_in_sets",
            action="store_false",
            help="jokers may not stand in sets",
        )
        parser.add_argument(
            "--count",
            choices=COUNT_RULES,
            default="all",
            help="what counts without a pure sequence and a second sequence",
        )
        parser.add_argument("--ace-value", type=int, choices=ACE_VALUES, default=10)
        parser.add_argument("--full-count", type=int, default=80, help="the most a hand scores")

    def handle(self, *args, **options):
        try:
            result = score_hand(
                options["cards"],
                options["wild"],
                natural_wild=options["natural_wild"],
                jokers_in_sets=options["jokers_in_sets"],
                count=options["count"],
                ace_value=options["ace_value"],
                full_count=options["full_count"],
            )
        except HandError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(json.dumps(result.as_dict()))
