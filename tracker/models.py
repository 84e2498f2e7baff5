"""Games are stored as their history: seats, table rules and ordered events.

No running total is stored: every figure comes from replaying the events
through the rules engine (`Game.state()`).
"""

import hashlib
import hmac
import json
import secrets

from django.db import DEFAULT_DB_ALIAS, connections, models, transaction
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from . import document, i18n, live, rules, sheet
from .urltag import cached_reverse


def _json_objects(data):
    """The events' data as dicts. SQLite gives each as JSON text: they are decoded
    by one `json.loads` of them all as one array, half the time of one call a row.
    PostgreSQL's jsonb may come back already decoded (psycopg's own loader) or as
    text (Django's), so each row is looked at when not all are text."""
    if all(isinstance(text, str) for text in data):
        decoded = json.loads("[" + ",".join(data) + "]")
        if len(decoded) == len(data):  # JSONField writes one value a row
            return decoded
    return [json.loads(item) if isinstance(item, (str, bytes)) else item for item in data]


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


def _database():
    """The default database's connection, which `django.db.connection` stands
    for: taken once by each function that uses it, not through that proxy at
    each use (each one an attribute lookup that fails, then the connection
    looked up in a thread-local; a Django field handed the proxy does so too)."""
    return connections[DEFAULT_DB_ALIAS]


_SQL = {}  # the statements written once per process, by what each is for (`_sql_once`)


def _sql_once(key, write):
    """The SQL statement `write(quote_name)` makes, made once per process and kept
    under `key`: the ORM compiled the same statement again on every request (0.2 to
    0.3 ms of a poll, of a save)."""
    sql = _SQL.get(key)
    if sql is None:
        sql = _SQL[key] = write(_database().ops.quote_name)
    return sql


_EVENT_COLUMNS = ("game", "position", "serial", "type", "data", "created_at")


_ATTNAMES = {}  # model: its concrete fields' attribute names, in the table's order


def _attnames(model):
    names = _ATTNAMES.get(model)
    if names is None:
        names = _ATTNAMES[model] = [f.attname for f in model._meta.concrete_fields]
    return names


_CONVERTERS = {}  # (model, database vendor): see _converters_of


def _converters_of(model, connection):
    """(column index, converters, column) of each of `model`'s concrete fields whose
    value the database hands back in another form, as the ORM's compiler finds them."""
    key = (model, connection.vendor)
    found = _CONVERTERS.get(key)
    if found is None:
        found = []
        for i, field in enumerate(model._meta.concrete_fields):
            column = field.get_col(model._meta.db_table)
            converters = connection.ops.get_db_converters(column)
            converters += column.get_db_converters(connection)
            if converters:
                found.append((i, converters, column))
        _CONVERTERS[key] = found
    return found


class Game(models.Model):
    FORMATS = [(name, spec.label) for name, spec in rules.FORMATS.items()]

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
    # What the latest change did, in the words a phone whose form went stale is
    # told ("Someone else just deleted deal 2"): a note about the history, not a figure.
    last_change = models.CharField(max_length=80, blank=True, default="", editable=False)
    table = models.ForeignKey(
        "Table", null=True, blank=True, on_delete=models.SET_NULL, related_name="games"
    )
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
        # Reversed once per process and link (tracker/urltag.py): every screen of
        # the game asks for it (the deal form's "discard" link, every redirect).
        return cached_reverse("game", [self.edit_token])

    def get_view_url(self):
        return cached_reverse("watch", [self.view_token])

    @classmethod
    def _link_field(cls, token, can_edit):
        """The key column a link is looked up by, or None for what cannot be a token."""
        if not isinstance(token, str) or not 16 <= len(token) <= 64:
            return None
        return "edit" if can_edit else "view"

    @classmethod
    def _select_sql(cls, columns, where, lock=False):
        """The SELECT of one row by `where`, written once per process (`_sql_once`).
        `lock`: with the row lock of `select_for_update` where the database has one."""

        def write(quote):
            sql = (
                f"SELECT {', '.join(quote(c) for c in columns)} FROM {quote(cls._meta.db_table)}"
                f" WHERE {quote(where)} = %s LIMIT 1"
            )
            if lock and _database().features.has_select_for_update:
                sql += " FOR UPDATE"
            return sql

        return _sql_once(("row", cls, columns, where, lock), write)

    @classmethod
    def _row_by(cls, where, value, lock=False):
        """The model with `where` = `value` (every column read), or None.

        A plain cursor and the fields' own converters (JSON, dates), found once
        per process: `objects.raw()` worked out its columns and converters again
        for every row (0.2 ms of each request that reads a game)."""
        fields = cls._meta.concrete_fields
        connection = _database()
        with connection.cursor() as cursor:
            cursor.execute(cls._select_sql(tuple(f.column for f in fields), where, lock), [value])
            row = cursor.fetchone()
        if row is None:
            return None
        values = list(row)
        for i, converters, column in _converters_of(cls, connection):
            for convert in converters:
                values[i] = convert(values[i], column, connection)
        return cls.from_db(connection.alias, [f.attname for f in fields], values)

    @classmethod
    def by_link(cls, token, can_edit):
        """The game whose edit (or view) link carries `token`, or None."""
        field = cls._link_field(token, can_edit)
        if field is None:
            return None
        game = cls._row_by(f"{field}_key", token_key(token))
        if game is None or not hmac.compare_digest(getattr(game, f"{field}_token"), token):
            return None
        return game

    @classmethod
    def revision_by_link(cls, token, can_edit):
        """(revision, view key) of the game whose link carries `token`, or None:
        one narrow read. The view key names what is kept for either link."""
        field = cls._link_field(token, can_edit)
        if field is None:
            return None
        sql = cls._select_sql((f"{field}_token", "revision", "view_key"), f"{field}_key")
        with _database().cursor() as cursor:
            cursor.execute(sql, [token_key(token)])
            row = cursor.fetchone()
        if row is not None and hmac.compare_digest(row[0], token):
            return row[1], row[2]
        return None

    # -- kept beside a state in the shared cache (tracker/views.py)

    def as_kept(self):
        """The row as the shared cache keeps it beside its state: the fields'
        values, and the ids of the events the state replayed (`event_ids`), not
        the pickled model, which pickled Django's bookkeeping with them and was
        read back through it (a third of what pickling a state cost)."""
        values = tuple(getattr(self, name) for name in _attnames(type(self)))
        return (self._state.db, values, getattr(self, "event_ids", None))

    @classmethod
    def from_kept(cls, kept):
        """The game `as_kept` kept, made as a game read from the database is."""
        db, values, event_ids = kept
        game = cls.from_db(db, _attnames(cls), values)
        if event_ids is not None:
            game.event_ids = event_ids
        return game

    # -- reading

    def seat_names(self):
        if self._prefetched("players"):
            return [p.name for p in self.players.all()]
        return [name for (name,) in self._rows_of(Player, ("name",), "seat")]

    def history(self):
        """The events as the game document has them.

        Their ids are kept, in the same order, in `self.event_ids`: read in
        the same query, so a page's Edit and Undo links name the rows it shows.
        Three columns by one plain SQL statement, the data decoded in one go: the
        ORM's per-row converters and JSON decoding were most of a long history's read.
        """
        if self._prefetched("events"):  # a table's games, read in one query
            rows = [(e.serial, e.type, e.data) for e in self.events.all()]
        else:
            rows = self._rows_of(Event, ("serial", "type", "data"), "position")
        self.event_ids = [serial for serial, _, _ in rows]
        data = _json_objects([data for _, _, data in rows])
        return [{"type": kind, **fields} for (_, kind, _), fields in zip(rows, data, strict=True)]

    def _rows_of(self, model, columns, order):
        """`columns` of this game's rows of `model` (Player, Event) in `order`,
        by one SELECT written once per process (`_sql_once`)."""
        sql = _sql_once(
            ("rows", model, columns, order),
            lambda quote: (
                f"SELECT {', '.join(quote(c) for c in columns)} FROM {quote(model._meta.db_table)}"
                f" WHERE {quote(model._meta.get_field('game').column)} = %s ORDER BY {quote(order)}"
            ),
        )
        with _database().cursor() as cursor:
            cursor.execute(sql, [self.pk])
            return cursor.fetchall()

    def _prefetched(self, name):
        """Whether `prefetch_related` already read this game's `name` rows."""
        return name in getattr(self, "_prefetched_objects_cache", {})

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
        return cls._store(game_doc, state, created_from, table)

    @classmethod
    @transaction.atomic
    def import_document(cls, doc, created_from="", table=None):
        """Create a game from a game document; nothing is created if it is refused."""
        game_doc, state = document.read(doc)
        return cls._store(game_doc, state, created_from, table)

    @classmethod
    @transaction.atomic
    def import_csv(cls, text, created_from=""):
        """Create a game from the CSV the tracker writes; refusals name the row."""
        game_doc, state = sheet.load_csv(text)
        return cls._store(game_doc, state, created_from)

    @classmethod
    def _store(cls, game_doc, state, created_from="", table=None, bump_table=True, **kept):
        """Save a checked game; `kept` carries a backup's tokens and dates.

        A game made for a table is a change to the table: its revision is
        bumped, unless the caller (one change making several games) bumps it.
        """
        names = game_doc["players"]
        game = cls.objects.create(
            **kept,
            table=table,
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
            Event.from_dict(game, position, event, serial=position + 1)
            for position, event in enumerate(game_doc["history"])
        )
        if table is not None and bump_table:
            table.bump()
        return game

    def locked(self):
        """This game, re-read with a row lock held to the end of the transaction.

        On PostgreSQL the lock queues writers to one game; SQLite's IMMEDIATE
        transactions already serialise every writer.
        """
        game = Game._row_by(Game._meta.pk.column, self.pk, lock=True)
        if game is None:
            raise Game.DoesNotExist("Game matching query does not exist.")
        return game

    @transaction.atomic
    def add_event(self, event, made_against, state=None):
        """Append an event after the engine accepts it; returns the new state.

        `made_against` is the revision the form was made against: if another
        phone changed the history first, StaleHistory is raised before the
        event is looked at and nothing changes, so a retried post is recorded
        once and never on the wrong history.
        `state`, when given, is this game's state as read at `self.revision`:
        if the locked row still has that revision the history is unchanged,
        so the event is checked against that state instead of replaying it all.
        """
        revision = None
        if state is not None and hasattr(self, "event_ids"):
            # Only the locked revision is read: when it is still this game's,
            # the history is the one `state` replayed.
            revision = self._locked_revision()
            if revision != made_against:
                raise StaleHistory(revision)
        if revision is None or revision != self.revision:
            game = self._locked_at(made_against)
            state = game.replay()
            ids = game.event_ids
            self.revision = game.revision
        else:
            ids = self.event_ids
        rules.apply(state, event)  # refuses before it changes anything
        serial = self.revision + 1  # revisions only grow: an id is never given twice
        Event.insert(self.pk, len(ids), serial, event)
        self.event_ids = [*ids, serial]
        self.bump(_added(state.recent_rows(1)[0]))
        return state

    @transaction.atomic
    def replace_event(self, event_id, event, made_against):
        """Correct a past deal; every later event must still be possible.

        Raises StaleHistory if the history changed since `made_against`, and
        Event.DoesNotExist if no deal of this game has that id.
        """
        game = self._locked_at(made_against)
        stored = game.events.get(serial=event_id, type="deal")
        history = game.history()
        history[stored.position] = event
        state = game.replay(history)
        stored.fill(event)
        stored.save(update_fields=["type", "data"])
        self.event_ids = game.event_ids
        self._bump(game, f"changed deal {state.rows[stored.position].number}")
        return state

    @transaction.atomic
    def delete_event(self, event_id, made_against):
        """Delete a past event; the later ones move up and must still be possible.

        Raises StaleHistory if the history changed since `made_against`, and
        Event.DoesNotExist if no event of this game has that id. The rows
        after it keep their ids: only their positions move.
        """
        game = self._locked_at(made_against)
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
        deals = sum(1 for e in events[: position + 1] if e.type == "deal")
        self._bump(game, _removed(gone, deals))
        return state

    def _locked_at(self, made_against):
        """This game locked, if its history is still at revision `made_against`."""
        game = self.locked()
        if made_against != game.revision:
            raise StaleHistory(game.revision)
        return game

    def _locked_revision(self):
        """The stored revision of this game, read with the row lock of `locked`."""
        sql = Game._select_sql(("revision",), Game._meta.pk.column, lock=True)
        with _database().cursor() as cursor:
            cursor.execute(sql, [self.pk])
            row = cursor.fetchone()
        if row is None:
            raise Game.DoesNotExist("Game matching query does not exist.")
        return row[0]

    def _bump(self, game, change):
        self.revision = game.bump(change)
        self.last_change, self.updated_at = game.last_change, game.updated_at

    def bump(self, change=""):
        """Count a change to the history, saying in words what it was.

        One UPDATE written once per process (`_sql_once`), as
        `save(update_fields=...)` would write it."""
        self.revision += 1
        self.last_change = change[: Game._meta.get_field("last_change").max_length]
        self.updated_at = timezone.now()
        sql = _sql_once(
            "bump",
            lambda quote: (
                f"UPDATE {quote(Game._meta.db_table)} SET "
                + ", ".join(f"{quote(c)} = %s" for c in ("revision", "last_change", "updated_at"))
                + f" WHERE {quote(Game._meta.pk.column)} = %s"
            ),
        )
        connection = _database()
        updated = Game._meta.get_field("updated_at").get_db_prep_value(self.updated_at, connection)
        with connection.cursor() as cursor:
            cursor.execute(sql, [self.revision, self.last_change, updated, self.pk])
        live.game_moved(self)  # every phone on it hears of it once committed
        return self.revision


# How a player's coming or going is said after it was saved, and after it was
# undone (tracker/i18n.py words the same changes in the reader's language).
PLAYER_CHANGES = {
    "join": ("added {name}", "undid adding {name}"),
    "sit_out": ("sat {name} out", "undid {name} sitting out"),
    "sit_in": ("brought {name} back in", "undid {name} coming back in"),
    "leave": ("noted that {name} left", "undid {name} leaving"),
}


def _added(row):
    """The last change, in words, after an event was added: "saved deal 5"."""
    if row.type == "deal":
        return f"saved deal {row.number}"
    if row.type == "rejoin":
        return f"rejoined {row.player}"
    if row.type in PLAYER_CHANGES:
        return PLAYER_CHANGES[row.type][0].format(name=row.player)
    return "split the pot" if row.type == "split" else "ended the session"


def _removed(event, deal_number):
    if event.type == "deal":
        return f"deleted deal {deal_number}"
    if event.type == "rejoin":
        return f"undid {event.data.get('player')}'s rejoin"
    if event.type in PLAYER_CHANGES:
        return PLAYER_CHANGES[event.type][1].format(name=event.data.get("player"))
    return "undid the split" if event.type == "split" else "undid the end of the session"


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

    @classmethod
    def insert(cls, game_id, position, serial, event):
        """Store `event` at `position`: the INSERT `save()` makes, written once per
        process (`_sql_once`)."""
        stored = cls(game_id=game_id, position=position, serial=serial)
        stored.fill(event)
        fields = [cls._meta.get_field(name) for name in _EVENT_COLUMNS]
        sql = _sql_once(
            "event",
            lambda quote: (
                f"INSERT INTO {quote(cls._meta.db_table)} "
                f"({', '.join(quote(f.column) for f in fields)}) "
                f"VALUES ({', '.join('%s' for _ in fields)})"
            ),
        )
        stored.created_at = timezone.now()
        connection = _database()
        values = [f.get_db_prep_value(getattr(stored, f.attname), connection) for f in fields]
        with connection.cursor() as cursor:
            cursor.execute(sql, values)

    def fill(self, event):
        clean = document.clean_event(event)
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


class Table(models.Model):
    """A family's table: its members and every game they play from it.

    Its two links are made and looked up exactly as a game's are: random
    tokens, found by their SHA-256 key and compared in constant time.
    """

    name = models.CharField(max_length=document.MAX_NAME_LENGTH)
    edit_token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    view_token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    edit_key = models.CharField(max_length=64, unique=True, editable=False)
    view_key = models.CharField(max_length=64, unique=True, editable=False)
    created_from = models.CharField(
        max_length=64, blank=True, editable=False, help_text="Keyed hash of the creator's address."
    )
    # Bumped by every change to the table (a member added or removed, a game of
    # the table made or imported), so a form made before another phone's change,
    # or the same post sent twice, is refused: a version number, not a score.
    revision = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["created_from", "created_at"], name="table_creations")]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        self.edit_key = token_key(self.edit_token)
        self.view_key = token_key(self.view_token)
        super().save(*args, **kwargs)

    # The same lookup as a game's links, not a copy of it.
    _link_field = vars(Game)["_link_field"]
    _select_sql = vars(Game)["_select_sql"]
    _row_by = vars(Game)["_row_by"]
    by_link = vars(Game)["by_link"]

    def get_absolute_url(self):
        return reverse("table", args=[self.edit_token])

    def get_view_url(self):
        return reverse("watch_table", args=[self.view_token])

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
            name = document.check_name(name)
        except rules.RuleError as error:
            raise MemberError(i18n.sentence(error), "name") from None
        if not name:
            raise MemberError(_("Give the table a name"), "name")
        names = cls.check_members(members)
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

    def locked(self):
        return Table.objects.select_for_update().get(pk=self.pk)

    def locked_at(self, made_against):
        """This table re-read with its row locked, if it is still at revision `made_against`.

        Called inside the transaction that makes the change: a form made
        against an older revision (another phone's change came first, or the
        same post arrives twice) raises StaleTable before anything is checked
        or changed. On SQLite the IMMEDIATE transaction already serialises writers.
        """
        table = self.locked()
        if made_against != table.revision:
            raise StaleTable(table)
        return table

    def bump(self):
        """Count a change to the table (in the transaction that makes it)."""
        Table.objects.filter(pk=self.pk).update(
            revision=models.F("revision") + 1, updated_at=timezone.now()
        )
        self.revision = Table.objects.values_list("revision", flat=True).get(pk=self.pk)
        live.table_moved(self.pk)  # the table's pages hear of it once committed
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
        self._prefetched_objects_cache = {}
        return member

    @transaction.atomic
    def remove_member(self, member_id, made_against):
        """Remove a member no game of the table seats; StaleTable as add_member."""
        table = self.locked_at(made_against)
        member = table.members.filter(pk=member_id).first()
        if member is None:
            raise MemberError(_("That member is not at this table"))
        # Compared ignoring case in Python: the database's case rules differ by script.
        seated = Player.objects.filter(game__table=table).values_list("name", flat=True)
        if member.name.casefold() in {name.casefold() for name in seated.distinct()}:
            raise MemberError(
                _("%(name)s sits in a game of this table, so stays a member")
                % {"name": member.name}
            )
        if table.members.count() <= MIN_MEMBERS:
            raise MemberError(_("A table needs at least %(n)s members") % {"n": MIN_MEMBERS})
        member.delete()
        self.revision = table.bump()
        self._prefetched_objects_cache = {}
        return member

    def add_missing_members(self, names):
        """Add the names that are not members yet (a game imported into the table)."""
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
            self._prefetched_objects_cache = {}
        return missing

    def seat_check(self, names):
        """Refuse a game that seats someone who is not a member."""
        known = {m.name.casefold() for m in self.members.all()}
        for name in names:
            if name.casefold() not in known:
                raise MemberError(
                    _("%(name)s is not a member of this table") % {"name": name}, "seats"
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
