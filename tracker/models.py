"""Games are stored as their history: seats, table rules and ordered events.

No running total is stored: every figure comes from replaying the events
through the rules engine (`Game.state()`).
"""

import hashlib
import hmac
import secrets

from django.db import models, transaction
from django.urls import reverse

from . import document, rules, sheet


def new_token():
    # 24 random bytes: 192 bits, well past guessing. Never starting with "-", so
    # a token passed on a command line is not taken for an option.
    while True:
        token = secrets.token_urlsafe(24)
        if not token.startswith("-"):
            return token


def token_key(token):
    """What a link is looked up by: its SHA-256, so the database's lookup time
    says nothing about the token itself; the token is then compared in constant time."""
    return hashlib.sha256(token.encode()).hexdigest()


class Game(models.Model):
    FORMATS = [("pool", "Pool"), ("deals", "Deals"), ("points", "Points")]

    name = models.CharField(max_length=document.MAX_NAME_LENGTH)
    format = models.CharField(max_length=10, choices=FORMATS)
    rules = models.JSONField(help_text="Table rules with every default filled in.")
    first_dealer = models.PositiveSmallIntegerField(help_text="Seat of the first dealer, from 1.")
    edit_token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    view_token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    edit_key = models.CharField(max_length=64, unique=True, editable=False)
    view_key = models.CharField(max_length=64, unique=True, editable=False)
    created_from = models.CharField(
        max_length=64, blank=True, editable=False, help_text="Keyed hash of the creator's address."
    )
    # Bumped by every change to the history, so a watcher can tell "nothing new"
    # without replaying; it is a version number, not a score.
    revision = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["created_from", "created_at"], name="game_creations")]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        self.edit_key = token_key(self.edit_token)
        self.view_key = token_key(self.view_token)
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse("game", args=[self.edit_token])

    def get_view_url(self):
        return reverse("watch", args=[self.view_token])

    @classmethod
    def _by_link_key(cls, token, can_edit):
        """(rows found by the link's key, the token field), or (None, None) for no token."""
        if not isinstance(token, str) or not 16 <= len(token) <= 64:
            return None, None
        field = "edit" if can_edit else "view"
        return cls.objects.filter(**{f"{field}_key": token_key(token)}), f"{field}_token"

    @classmethod
    def by_link(cls, token, can_edit):
        """The game whose edit (or view) link carries `token`, or None."""
        found, field = cls._by_link_key(token, can_edit)
        game = found.first() if found is not None else None
        if game is None or not hmac.compare_digest(getattr(game, field), token):
            return None
        return game

    @classmethod
    def revision_by_link(cls, token, can_edit):
        """The revision of the game whose link carries `token`, or None: one narrow read."""
        found, field = cls._by_link_key(token, can_edit)
        if found is None:
            return None
        for stored, revision in found.order_by().values_list(field, "revision")[:1]:
            if hmac.compare_digest(stored, token):
                return revision
        return None

    # -- reading

    def seat_names(self):
        return list(self.players.values_list("name", flat=True))

    def history(self):
        # Two columns, not model objects: half the time of reading a game's history.
        return [{"type": kind, **data} for kind, data in self.events.values_list("type", "data")]

    def replay(self, history=None, names=None):
        names = names if names is not None else self.seat_names()
        history = self.history() if history is None else history
        return rules.replay(self.format, self.rules, names, history, names[self.first_dealer - 1])

    def state(self):
        return self.replay()

    def as_document(self):
        return document.write(*self._input_and_state())

    def as_csv(self):
        return sheet.write_csv(*self._input_and_state())

    def _input_and_state(self):
        """The input part of the game document, and the state its history replays to."""
        names = self.seat_names()
        history = self.history()
        game = {
            "schema": document.SCHEMA,
            "name": self.name,
            "format": self.format,
            "rules": self.rules,
            "players": names,
            "first_dealer": names[self.first_dealer - 1],
            "history": [document.clean_event(e) for e in history],
        }
        return game, self.replay(history, names)

    # -- changing

    @classmethod
    @transaction.atomic
    def create(
        cls, fmt, table_rules, players, first_dealer=None, name=None, history=(), created_from=""
    ):
        """Make a game after the engine has accepted all of it; raises RuleError."""
        game_doc, state = document.read(
            {
                "schema": document.SCHEMA,
                "name": name,
                "format": fmt,
                "rules": table_rules,
                "players": players,
                "first_dealer": first_dealer,
                "history": list(history),
            }
        )
        return cls._store(game_doc, state, created_from)

    @classmethod
    @transaction.atomic
    def import_document(cls, doc, created_from=""):
        """Create a game from a game document; nothing is created if it is refused."""
        game_doc, state = document.read(doc)
        return cls._store(game_doc, state, created_from)

    @classmethod
    @transaction.atomic
    def import_csv(cls, text, created_from=""):
        """Create a game from the CSV the tracker writes; refusals name the row."""
        game_doc, state = sheet.load_csv(text)
        return cls._store(game_doc, state, created_from)

    @classmethod
    def _store(cls, game_doc, state, created_from=""):
        names = game_doc["players"]
        game = cls.objects.create(
            created_from=created_from,
            name=game_doc["name"],
            format=game_doc["format"],
            rules=game_doc["rules"],
            first_dealer=names.index(game_doc["first_dealer"]) + 1,
            revision=len(game_doc["history"]),
        )
        Player.objects.bulk_create(
            Player(game=game, seat=seat, name=name) for seat, name in enumerate(names, start=1)
        )
        Event.objects.bulk_create(
            Event.from_dict(game, position, event)
            for position, event in enumerate(game_doc["history"])
        )
        return game

    def locked(self):
        """This game, re-read with a row lock held to the end of the transaction.

        On PostgreSQL the lock queues writers to one game; SQLite's IMMEDIATE
        transactions already serialise every writer.
        """
        return Game.objects.select_for_update().get(pk=self.pk)

    @transaction.atomic
    def add_event(self, event, made_against=None, state=None):
        """Append an event after the engine accepts it; returns the new state.

        `made_against` is the number of events the form was made against: if
        another phone saved first, StaleHistory is raised and nothing changes,
        so a retried post is recorded once and never on the wrong history.
        `state`, when given, is this game's state as read at `self.revision`:
        if the locked row still has that revision the history is unchanged,
        so the event is checked against that state instead of replaying it all.
        """
        game = self.locked()
        if state is None or game.revision != self.revision:
            state = game.replay()
        events = len(state.rows)
        if made_against is not None and made_against != events:
            raise StaleHistory(events)
        rules.apply(state, event)  # refuses before it changes anything
        Event.from_dict(game, events, event).save()
        self.revision = game.bump()
        return state

    @transaction.atomic
    def replace_event(self, position, event):
        """Correct a past event; every later one must still be possible."""
        game = self.locked()
        stored = game.events.get(position=position)
        history = game.history()
        history[position] = event
        state = game.replay(history)
        stored.fill(event)
        stored.save(update_fields=["type", "data"])
        self.revision = game.bump()
        return state

    @transaction.atomic
    def delete_event(self, position):
        """Delete a past event; the later ones move up and must still be possible."""
        game = self.locked()
        events = list(game.events.all())
        del events[position]
        state = game.replay([e.as_dict() for e in events])
        game.events.filter(position__gte=position).delete()
        moved = [
            Event(game=game, position=i, type=e.type, data=e.data)
            for i, e in enumerate(events)
            if i >= position
        ]
        Event.objects.bulk_create(moved)
        self.revision = game.bump()
        return state

    def bump(self):
        self.revision += 1
        self.save(update_fields=["revision", "updated_at"])
        return self.revision


class StaleHistory(Exception):
    """A change made against an older history than the one stored."""

    def __init__(self, events_now):
        super().__init__(f"the game has {events_now} events now")
        self.events_now = events_now


class Player(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="players")
    seat = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=rules.MAX_NAME_LENGTH)

    class Meta:
        ordering = ["seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="one_player_per_seat"),
        ]

    def __str__(self):
        return self.name


class Event(models.Model):
    """One thing that happened: a deal and its results, a rejoin, a split, an end."""

    TYPES = [("deal", "Deal"), ("rejoin", "Rejoin"), ("split", "Split"), ("end", "End")]

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    position = models.PositiveIntegerField(help_text="Order in the history, from 0.")
    type = models.CharField(max_length=10, choices=TYPES)
    data = models.JSONField(default=dict, help_text="The event's fields as in the game document.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["game", "position"], name="one_event_per_position"),
        ]

    def __str__(self):
        return f"{self.type} #{self.position + 1}"

    @classmethod
    def from_dict(cls, game, position, event):
        stored = cls(game=game, position=position)
        stored.fill(event)
        return stored

    def fill(self, event):
        clean = document.clean_event(event)
        self.type = clean.pop("type")
        self.data = clean

    def as_dict(self):
        return {"type": self.type, **self.data}
