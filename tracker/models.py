"""Games are stored as their history: seats, table rules and ordered events.

No running total is stored: every figure comes from replaying the events
through the rules engine (`Game.state()`). A family's table keeps its
members and the games played from it. A game and a table share what makes
them reachable: two links (`Linked`).
"""

import hashlib
import hmac
import re
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models, transaction
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from . import allowance, i18n, rules
from .allowance import Allowance  # noqa: F401 (a model of this app, kept beside its logic)
from .documents import game_csv, game_json
from .rules.table import N_
from .shared_key import SharedKey  # noqa: F401 (a model of this app, kept beside its check)


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


class Linked(models.Model):
    """What a game and a table share: a name, an edit link and a view link, the
    creator's (hashed) address, and a revision bumped by every change to it.

    Each link carries a random token. The row is found by the token's SHA-256
    (`edit_key`, `view_key`) and the token then compared in constant time.
    """

    name = models.CharField(max_length=game_json.MAX_NAME_LENGTH)
    edit_token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    view_token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    edit_key = models.CharField(max_length=64, unique=True, editable=False)
    view_key = models.CharField(max_length=64, unique=True, editable=False)
    created_from = models.CharField(
        max_length=64, blank=True, editable=False, help_text="Keyed hash of the creator's address."
    )
    # Bumped by every change, so a form made before another phone's change (or
    # the same post sent twice) is refused: a version number, not a score.
    revision = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # The names of the URLs of the edit link and of the view link.
    edit_url_name = view_url_name = ""

    class Meta:
        abstract = True
        ordering = ["-updated_at"]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        self.edit_key = token_key(self.edit_token)
        self.view_key = token_key(self.view_token)
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse(self.edit_url_name, args=[self.edit_token])

    def get_view_url(self):
        return reverse(self.view_url_name, args=[self.view_token])

    def token(self, can_edit):
        return self.edit_token if can_edit else self.view_token

    @classmethod
    def by_link(cls, token, can_edit):
        """The row whose edit (or view) link carries `token`, or None."""
        return cls._at_link(token, can_edit)

    @classmethod
    def revision_by_link(cls, token, can_edit):
        """The revision of what the link leads to, as text, or None: the one
        column a phone's poll needs while nothing has changed ("204")."""
        found = cls._at_link(token, can_edit, "revision")
        return None if found is None else str(found[1])

    @classmethod
    def _at_link(cls, token, can_edit, *columns):
        """The row whose link carries `token` or, given `columns`, only the link's
        token and those columns (a tuple); None if no link carries it."""
        if not isinstance(token, str) or not 16 <= len(token) <= 64:
            return None
        field = "edit" if can_edit else "view"
        rows = cls.objects.values_list(f"{field}_token", *columns) if columns else cls.objects
        try:  # the key is unique: one row or none, in no order
            found = rows.get(**{f"{field}_key": token_key(token)})
        except cls.DoesNotExist:
            return None
        stored = found[0] if columns else getattr(found, f"{field}_token")
        return found if hmac.compare_digest(stored, token) else None

    def locked(self):
        """This row read again, locked to the end of the transaction.

        On PostgreSQL the lock queues writers; SQLite's IMMEDIATE transactions
        already serialise every writer (`select_for_update` is a no-op there).
        """
        return type(self).objects.select_for_update().get(pk=self.pk)


# A removed game stays listed under "Removed", to be put back, this long; then it is deleted.
KEEP_REMOVED = timedelta(days=30)


class GameQuerySet(models.QuerySet):
    def kept(self):
        """The games not removed."""
        return self.filter(removed_at__isnull=True)

    def removed(self):
        """The games removed in the last 30 days, that can still be put back."""
        return self.filter(removed_at__gte=timezone.now() - KEEP_REMOVED)

    def gone(self):
        """The games removed longer ago: deleted whenever a game is removed."""
        return self.filter(removed_at__lt=timezone.now() - KEEP_REMOVED)


class Game(Linked):
    FORMATS = [(name, spec.label) for name, spec in rules.FORMATS.items()]

    format = models.CharField(max_length=10, choices=FORMATS)
    rules = models.JSONField(help_text="Table rules with every default filled in.")
    first_dealer = models.PositiveSmallIntegerField(help_text="Seat of the first dealer, from 1.")
    # What the latest change did, as data: {"change": "added", "event": "deal",
    # "n": 5}. A phone whose form went stale is told it in its own language
    # ("Someone else just saved deal 5": tracker/i18n.py). A note, not a figure.
    last_change = models.JSONField(default=dict, blank=True, editable=False)
    table = models.ForeignKey(
        "Table", null=True, blank=True, on_delete=models.SET_NULL, related_name="games"
    )
    # Set when the family removes the game (a mistaken start, a stray Play
    # again, a duplicate import): it can be put back for KEEP_REMOVED.
    removed_at = models.DateTimeField(null=True, blank=True)
    # The game "Play again" made of this one, so a second tap goes to it.
    next_game = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    objects = GameQuerySet.as_manager()

    edit_url_name, view_url_name = "game", "watch"

    class Meta(Linked.Meta):
        indexes = [models.Index(fields=["created_from", "created_at"], name="game_creations")]

    @property
    def shown_name(self):
        """The name as the reader reads it: left as the format's default, it is
        shown in the reader's language (the document keeps the stored name)."""
        return i18n.game_name(self.name, self.format, self.rules)

    @property
    def gone_at(self):
        """When a removed game is deleted for good."""
        return self.removed_at + KEEP_REMOVED if self.removed_at else None

    def again_name(self):
        """The name "Play again" gives the next game: "Diwali pool 2", then 3 ...; a
        name left as its format's, "Pool 101 · 2", then 3: the number after a dot, so
        the format's own numbers (101, "best of 2") are never counted on."""
        default = i18n.default_name(self.format, self.rules)
        if default and self.name == default:
            return f"{default} · 2"
        number = i18n.again_number(self.name, default) if default else None
        if number is not None:
            return f"{default} · {number + 1}"
        found = re.fullmatch(r"(.*\S) ([0-9]{1,6})", self.name)
        if found:
            return f"{found.group(1)} {int(found.group(2)) + 1}"[: game_json.MAX_NAME_LENGTH]
        return f"{self.name[: game_json.MAX_NAME_LENGTH - 2]} 2"

    # -- reading

    def seat_names(self):
        return [p.name for p in self.players.all()]

    def history(self):
        """The events as the game document has them.

        Their ids are kept, in the same order, in `self.event_ids`: read in the
        same query, so a page's Edit and Undo links name the rows it shows.
        """
        events = list(self.events.all())
        self.event_ids = [e.serial for e in events]
        return [e.as_dict() for e in events]

    def replay(self, history=None, names=None):
        names = self.seat_names() if names is None else names
        history = self.history() if history is None else history
        return rules.replay(self.format, self.rules, names, history, names[self.first_dealer - 1])

    def state(self):
        """The state the stored history replays to, at the revision this game was
        read at. The history and the revision are read as one: if another change
        lands between reading them, both are read again, so a page never shows
        one revision's figures under another's number (its phone would then ask
        again at the wrong moment, or never)."""
        for _attempt in range(100):
            # The columns a replay needs, not whole rows: every page reads them.
            events = list(self.events.values_list("serial", "type", "data"))
            try:
                revision = Game.objects.values_list("revision", flat=True).get(pk=self.pk)
            except Game.DoesNotExist:  # deleted meanwhile: what was read is all there is
                break
            if revision == self.revision:
                break
            self.refresh_from_db()
        self.event_ids = [serial for serial, _, _ in events]
        names = list(self.players.values_list("name", flat=True))  # in seat order
        return self.replay([{"type": kind, **data} for _, kind, data in events], names)

    def as_document(self):
        return game_json.write(*self.input_and_state())

    def as_csv(self):
        return game_csv.write_csv(*self.input_and_state())

    def input_and_state(self):
        """The input part of the game document, and the state its history replays to."""
        names = self.seat_names()
        history = self.history()
        game = {
            "schema": game_json.SCHEMA,
            "name": self.name,
            "format": self.format,
            "rules": self.rules,
            "players": names,
            "first_dealer": names[self.first_dealer - 1],
            "history": [game_json.clean_event(e) for e in history],
        }
        return game, self.replay(history, names)

    # -- making

    @classmethod
    @transaction.atomic
    def create(
        cls,
        fmt,
        table_rules,
        players,
        first_dealer=None,
        name=None,
        history=(),
        created_from="",
        table=None,
    ):
        """Make a game after the engine has accepted all of it; raises RuleError."""
        game_doc, state = game_json.read(
            {
                "schema": game_json.SCHEMA,
                "name": name,
                "format": fmt,
                "rules": table_rules,
                "players": players,
                "first_dealer": first_dealer,
                "history": list(history),
            }
        )
        return cls.store(game_doc, state, created_from, table)

    @classmethod
    @transaction.atomic
    def import_document(cls, doc, created_from="", table=None):
        """Create a game from a game document; nothing is created if it is refused."""
        game_doc, state = game_json.read(doc, settings.EVENTS_PER_GAME)
        return cls.store(game_doc, state, created_from, table)

    @classmethod
    @transaction.atomic
    def import_csv(cls, text, created_from=""):
        """Create a game from the CSV the tracker writes; refusals name the row."""
        game_doc, state = game_csv.load_csv(text, settings.EVENTS_PER_GAME)
        return cls.store(game_doc, state, created_from)

    @classmethod
    def store(cls, game_doc, state, created_from="", table=None, bump_table=True, **kept):
        """Save a game the engine has checked; `kept` carries a backup's tokens and
        the revision it was at (the game is stored one past it: a restore is a change).

        A game made for a table is a change to the table: its revision is
        bumped, unless the caller (one change making several games) bumps it.
        The game is charged to its maker's allowance (allowance.Spent, and
        nothing is made), but a backup's, which was charged when first made.
        """
        if not kept:
            allowance.charge(created_from)
            if table is not None:
                table.check_room(games=1, events=len(game_doc["history"]))
        names = game_doc["players"]
        revision = len(game_doc["history"])
        if "revision" in kept:  # restored past the backup's: never given to two histories
            revision = max(revision, kept.pop("revision") + 1)
        game = cls.objects.create(
            **kept,
            table=table,
            created_from=created_from,
            name=game_doc["name"],
            format=game_doc["format"],
            rules=game_doc["rules"],
            first_dealer=names.index(game_doc["first_dealer"]) + 1,
            revision=revision,
        )
        Player.objects.bulk_create(
            Player(game=game, seat=seat, name=name) for seat, name in enumerate(names, start=1)
        )
        Event.objects.bulk_create(
            Event.from_dict(game, position, event, serial=position + 1)
            for position, event in enumerate(game_doc["history"])
        )
        if table is not None and bump_table:
            table.bump()
        return game

    # -- changing

    @transaction.atomic
    def add_event(self, event, made_against, state=None):
        """Append an event after the engine accepts it; returns the new state.

        `made_against` is the revision the form was made against: if another
        phone changed the history first, StaleHistory is raised before the
        event is looked at and nothing changes, so a retried post is recorded
        once and never on the wrong history. `state`: what this request's
        `state()` replayed, when it read the game at that same revision: the
        lock then finds the game still there, and as no revision is given to
        two histories, it is the history replayed, not replayed again.
        """
        game = self.locked_at(made_against)
        if state is None or self.revision != made_against:
            state = game.replay()
            ids = game.event_ids
        else:
            ids = self.event_ids
        game_json.check_room(state, settings.EVENTS_PER_GAME)
        if game.table_id is not None:
            game.table.check_room(events=1)
        if event["type"] == "join" and game.table_id is not None:
            game.seat_as_member(" ".join(str(event.get("player", "")).split()))
        rules.apply(state, event)  # refuses before it changes anything
        event = game_json.named_as_seated(event, state.rows[-1])
        serial = game.revision + 1  # revisions only grow: an id is never given twice
        Event.from_dict(game, len(ids), event, serial).save()
        self.event_ids = [*ids, serial]
        row = state.rows[-1]
        added = {"change": "added", "event": row.type}
        if row.type == "deal":
            added["n"] = row.number
        elif row.player:
            added["name"] = row.player
        self._bump(game, added)
        return state

    @transaction.atomic
    def replace_event(self, event_id, event, made_against):
        """Correct a past deal; every later event must still be possible.

        Raises StaleHistory if the history changed since `made_against`, and
        Event.DoesNotExist if no deal of this game has that id.
        """
        game = self.locked_at(made_against)
        stored = game.events.get(serial=event_id, type="deal")
        history = game.history()
        history[stored.position] = event
        state = game.replay(history)
        stored.fill(event)
        stored.save(update_fields=["type", "data"])
        self.event_ids = game.event_ids
        self._bump(
            game, {"change": "changed", "event": "deal", "n": state.rows[stored.position].number}
        )
        return state

    @transaction.atomic
    def delete_event(self, event_id, made_against):
        """Delete a past event; the later ones move up and must still be possible.

        Raises StaleHistory if the history changed since `made_against`, and
        Event.DoesNotExist if no event of this game has that id. The rows
        after it keep their ids: only their positions move.
        """
        game = self.locked_at(made_against)
        events = list(game.events.all())
        gone = next((e for e in events if e.serial == event_id), None)
        if gone is None:
            raise Event.DoesNotExist(f"no event {event_id}")
        history = [e.as_dict() for e in events if e is not gone]
        state = game.replay(history)
        position = gone.position
        gone.delete()
        # Two steps, so no row ever takes a position another still holds
        # (unique per game, checked row by row on both databases).
        later = game.events.filter(position__gt=position)
        far = len(events) + 1
        later.update(position=models.F("position") + far)
        game.events.filter(position__gte=far).update(position=models.F("position") - far - 1)
        self.event_ids = [e.serial for e in events if e is not gone]
        undone = {"change": "undone", "event": gone.type}
        if gone.type == "deal":
            undone["n"] = sum(1 for e in events[: position + 1] if e.type == "deal")
        elif "player" in gone.data:
            undone["name"] = gone.data["player"]
        self._bump(game, undone)
        return state

    def locked_at(self, made_against):
        """This game locked, if its history is still at revision `made_against`."""
        game = self.locked()
        if made_against != game.revision:
            raise StaleHistory(game.revision)
        return game

    @transaction.atomic
    def play_again(self, created_from=""):
        """The next game: the same format, rules and seats, the first deal passed
        to the next seat, named apart ("Diwali pool 2"), at the same table (every
        seat still a member). Made once: asked again, it is the game made before."""
        game = Game.objects.select_for_update().get(pk=self.pk)
        if game.next_game_id is not None and game.next_game.removed_at is None:
            return game.next_game
        names = self.seat_names()
        table = self.table.locked() if self.table_id is not None else None
        if table is not None:
            table.seat_check(names)
        made = Game.create(
            self.format,
            self.rules,
            names,
            names[self.first_dealer % len(names)],
            name=self.again_name(),
            created_from=created_from,
            table=table,
        )
        self.next_game = made
        self.save(update_fields=["next_game"])
        return made

    @transaction.atomic
    def remove(self, made_against):
        """Remove the game (StaleHistory if it changed since `made_against`): it
        leaves its table's list and stats, and can be put back for KEEP_REMOVED.
        The games removed longer ago than that are deleted now."""
        game = self.locked_at(made_against)
        self.forget_gone_games()
        self.removed_at = timezone.now()
        self.save(update_fields=["removed_at"])
        self._bump(game, {"change": "removed"})
        if self.table_id is not None:
            self.table.locked().bump()

    @staticmethod
    def forget_gone_games():
        """Delete the games removed longer ago than KEEP_REMOVED. Each one's
        revision moves to its table's, so the table's version (its revision and
        its games': tracker/live/) never goes back to a number a page has shown."""
        gone = Game.objects.gone()
        moved = gone.exclude(table=None).values("table").annotate(revisions=models.Sum("revision"))
        for row in moved:
            Table.objects.filter(pk=row["table"]).update(
                revision=models.F("revision") + row["revisions"] + 1
            )
        gone.delete()

    @transaction.atomic
    def put_back(self):
        """Bring a removed game back to its table's list and stats."""
        game = self.locked()
        if game.removed_at is None:
            return
        self.removed_at = None
        self.save(update_fields=["removed_at"])
        self._bump(game, {"change": "put_back"})
        if self.table_id is not None:
            self.table.locked().bump()

    def seat_as_member(self, name):
        """A player who joins a table's game becomes a member of the table
        (shared/docs/tables.md), so the members' money always adds up to 0.
        Made before the engine checks the join: if it refuses, the transaction
        takes the member back with it."""
        if not name:
            return  # the engine refuses a blank name
        table = self.table.locked()
        try:
            added = table.add_missing_members([name])
        except MemberError as error:
            raise rules.RuleError(error.message, field="name") from None
        if added:
            table.bump()

    def _bump(self, locked, change):
        """Count a change to the history, noting what it was (`last_change`). Made
        under the row lock of `locked` (this game read again), so the revision
        after it is the locked one's and the next."""
        self.revision = locked.revision + 1
        self.last_change = change
        self.save(update_fields=["revision", "last_change", "updated_at"])


class GameRemoved(Exception):
    """The game a link leads to was removed (it can be put back for a while)."""

    def __init__(self, game):
        super().__init__(f"game {game.pk} was removed")
        self.game = game


class StaleHistory(Exception):
    """A change made against an older history than the one stored."""

    def __init__(self, revision):
        super().__init__(f"the game is at revision {revision} now")
        self.revision = revision


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
    """One thing that happened: a deal and its results, a rejoin, a split, an end,
    a player joining, sitting out, coming back in or leaving."""

    TYPES = [
        ("deal", "Deal"),
        ("rejoin", "Rejoin"),
        ("split", "Split"),
        ("end", "End"),
        ("join", "Join"),
        ("sit_out", "Sit out"),
        ("sit_in", "Back in"),
        ("leave", "Leave"),
    ]

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    position = models.PositiveIntegerField(help_text="Order in the history, from 0.")
    serial = models.PositiveIntegerField(
        help_text="The event's id in its game, in links and forms: never moves, never reused."
    )
    type = models.CharField(max_length=10, choices=TYPES)
    data = models.JSONField(default=dict, help_text="The event's fields as in the game document.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["game", "position"], name="one_event_per_position"),
            models.UniqueConstraint(fields=["game", "serial"], name="one_event_per_id"),
        ]

    def __str__(self):
        return f"{self.type} #{self.position + 1}"

    @classmethod
    def from_dict(cls, game, position, event, serial):
        stored = cls(game=game, position=position, serial=serial)
        stored.fill(event)
        return stored

    def fill(self, event):
        clean = game_json.clean_event(event)
        self.type = clean.pop("type")
        self.data = clean

    def as_dict(self):
        return {"type": self.type, **self.data}


MAX_MEMBERS = 30
MIN_MEMBERS = 2


class MemberError(ValueError):
    """A refused change to a table's members, with the form field it belongs beside."""

    def __init__(self, message, field="member"):
        super().__init__(message)
        self.message = message
        self.field = field


def check_member_name(name):
    """A member's name as a player's name is checked: trimmed, 1 to 30 letters."""
    name = " ".join(str(name or "").split())
    if not name:
        raise MemberError(_("Type the member's name"))
    if len(name) > rules.MAX_NAME_LENGTH:
        raise MemberError(
            _("%(name)s…: a name is at most %(n)s letters")
            % {"name": name[:30], "n": rules.MAX_NAME_LENGTH}
        )
    if rules.has_control_characters(name):
        raise MemberError(
            _("%(name)s: the name has a character that is not a letter") % {"name": name}
        )
    return name


class Table(Linked):
    """A family's table: its members and every game they play from it.

    Its two links are made and looked up exactly as a game's are (`Linked`).
    Its revision is bumped by every change to it: a member added or removed,
    a game of the table made or imported.
    """

    edit_url_name, view_url_name = "table", "watch_table"

    class Meta(Linked.Meta):
        indexes = [models.Index(fields=["created_from", "created_at"], name="table_creations")]

    def member_names(self):
        return [m.name for m in self.members.all()]

    def find_member(self, name):
        folded = " ".join(str(name).split()).casefold()
        return next((m for m in self.members.all() if m.name.casefold() == folded), None)

    @classmethod
    @transaction.atomic
    def start(cls, name, members, created_from=""):
        """A new table with its members; raises MemberError (nothing saved) when refused."""
        try:
            name = game_json.check_name(name)
        except rules.RuleError as error:
            raise MemberError(i18n.sentence(error), "name") from None
        if not name:
            raise MemberError(_("Give the table a name"), "name")
        names = cls.check_members(members)
        allowance.charge(created_from, kind="tables")  # or Spent, and nothing is made
        table = cls.objects.create(name=name, created_from=created_from)
        Member.objects.bulk_create(
            Member(table=table, name=n, order=i) for i, n in enumerate(names, start=1)
        )
        return table

    @staticmethod
    def check_members(members, field="members"):
        names, seen = [], set()
        for raw in members:
            if not str(raw or "").strip():
                continue  # an empty box of the form is no member
            try:
                member = check_member_name(raw)
            except MemberError as error:
                raise MemberError(error.message, field) from None
            if member.casefold() in seen:
                raise MemberError(
                    _("%(name)s is a member twice: names must differ") % {"name": member}, field
                )
            seen.add(member.casefold())
            names.append(member)
        if len(names) < MIN_MEMBERS:
            raise MemberError(_("A table needs at least %(n)s members") % {"n": MIN_MEMBERS}, field)
        if len(names) > MAX_MEMBERS:
            raise MemberError(_("A table has at most %(n)s members") % {"n": MAX_MEMBERS}, field)
        return names

    def locked_at(self, made_against):
        """This table re-read with its row locked, if it is still at revision `made_against`.

        Called inside the transaction that makes the change: a form made
        against an older revision (another phone's change came first, or the
        same post arrives twice) raises StaleTable before anything is checked
        or changed.
        """
        table = self.locked()
        if made_against != table.revision:
            raise StaleTable(table)
        return table

    def check_room(self, games=0, events=0):
        """Refuse `games` more games or `events` more events past the table's
        limits (GAMES_PER_TABLE, EVENTS_PER_TABLE): they bound what one read of
        the table costs. Removed games count until they are deleted."""
        if games and self.games.count() + games > settings.GAMES_PER_TABLE:
            raise rules.RuleError(TABLE_FULL_GAMES, params={"n": settings.GAMES_PER_TABLE})
        held = Event.objects.filter(game__table=self).count() if events else 0
        if events and held + events > settings.EVENTS_PER_TABLE:
            raise rules.RuleError(
                TABLE_FULL_EVENTS, params={"n": settings.EVENTS_PER_TABLE}, field="history"
            )

    def bump(self):
        """Count a change to the table (in the transaction that makes it)."""
        self.revision = models.F("revision") + 1
        self.save(update_fields=["revision", "updated_at"])
        self.refresh_from_db(fields=["revision"])
        return self.revision

    @transaction.atomic
    def add_member(self, name, made_against):
        """Add one member at the end; raises MemberError and saves nothing when refused,
        StaleTable if the table changed since `made_against`."""
        table = self.locked_at(made_against)
        name = check_member_name(name)
        members = list(table.members.all())
        if any(m.name.casefold() == name.casefold() for m in members):
            raise MemberError(_("%(name)s is already a member: names must differ") % {"name": name})
        if len(members) >= MAX_MEMBERS:
            raise MemberError(_("A table has at most %(n)s members") % {"n": MAX_MEMBERS})
        order = max((m.order for m in members), default=0) + 1
        member = Member.objects.create(table=table, name=name, order=order)
        self.revision = table.bump()
        self.refresh_from_db()  # its members read again (a prefetched list is dropped)
        return member

    @transaction.atomic
    def remove_member(self, member_id, made_against):
        """Remove a member no game of the table seats; StaleTable as add_member."""
        table = self.locked_at(made_against)
        member = table.members.filter(pk=member_id).first()
        if member is None:
            raise MemberError(_("That member is not at this table"))
        # Compared ignoring case in Python: the database's case rules differ by script.
        if member.name.casefold() in table.seated_names():
            raise MemberError(
                _("%(name)s sits in a game of this table, so stays a member")
                % {"name": member.name}
            )
        if table.members.count() <= MIN_MEMBERS:
            raise MemberError(_("A table needs at least %(n)s members") % {"n": MIN_MEMBERS})
        member.delete()
        self.revision = table.bump()
        self.refresh_from_db()  # its members read again (a prefetched list is dropped)
        return member

    def seated_names(self):
        """Everyone who sat in a game of the table, removed games too, casefolded:
        its games' first players and the latecomers who joined them."""
        seated = Player.objects.filter(game__table=self).values_list("name", flat=True)
        joins = Event.objects.filter(game__table=self, type="join").values_list("data", flat=True)
        names = set(seated.distinct()) | {data.get("player", "") for data in joins}
        return {name.casefold() for name in names}

    def add_missing_members(self, names):
        """Add the names that are not members yet (a game imported into the table,
        a player who joined one of its games)."""
        known = {m.name.casefold() for m in self.members.all()}
        missing = [n for n in names if n.casefold() not in known]
        if len(known) + len(missing) > MAX_MEMBERS:
            raise MemberError(
                _("Adding %(names)s would make more than %(n)s members")
                % {"names": ", ".join(missing), "n": MAX_MEMBERS},
                "file",
            )
        order = max((m.order for m in self.members.all()), default=0)
        Member.objects.bulk_create(
            Member(table=self, name=n, order=order + i) for i, n in enumerate(missing, start=1)
        )
        if missing:
            self.refresh_from_db()  # its members read again (a prefetched list is dropped)
        return missing

    def seat_check(self, names):
        """Refuse a game that seats someone who is not a member."""
        known = {m.name.casefold() for m in self.members.all()}
        for name in names:
            if name.casefold() not in known:
                raise MemberError(
                    _("%(name)s is not a member of this table") % {"name": name}, "seats"
                )


TABLE_FULL_GAMES = N_("a table keeps at most %(n)s games: start a new table for more")
TABLE_FULL_EVENTS = N_(
    "a table keeps at most %(n)s events across its games: start a new table for more"
)


class StaleTable(Exception):
    """A change to a table made against an older revision of it than the one stored."""

    def __init__(self, table):
        super().__init__(f"the table is at revision {table.revision} now")
        self.revision = table.revision


class Member(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="members")
    name = models.CharField(max_length=rules.MAX_NAME_LENGTH)
    order = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["order"]
        constraints = [
            models.UniqueConstraint(fields=["table", "order"], name="one_member_per_place"),
            models.UniqueConstraint(Lower("name"), "table", name="one_member_name_per_table"),
        ]

    def __str__(self):
        return self.name
