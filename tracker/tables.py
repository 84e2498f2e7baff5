"""A table's games read for its page, its stats and its document (shared/docs/tables.md).

Every figure comes from replaying the games through the rules engine
(`Game.as_document`), on every read: nothing here is stored or kept. What a
read costs is bounded by what a table may hold (GAMES_PER_TABLE,
EVENTS_PER_TABLE, checked by `Table.check_room` as games and events are added).
"""

from __future__ import annotations

import json

from django.conf import settings
from django.db import transaction
from django.db.models import prefetch_related_objects
from django.utils.translation import gettext, ngettext

from . import i18n, rules
from .documents import game_csv, game_json, stats, table_csv
from .models import TABLE_FULL_EVENTS, TABLE_FULL_GAMES, Game, MemberError, Table

SCHEMA = "rummy-tracker.table/1"
TABLE_KEYS = ("schema", "name", "members", "games", "stats")


class TableError(ValueError):
    """A refused table document or table change, with the field it belongs beside."""

    def __init__(self, message, field="file"):
        super().__init__(message)
        self.message = message
        self.field = field


def summaries(games):
    """Each game's `stats.game_summary`, every game replayed (seats and events
    read in two queries, however many games). Nothing is kept: the table's
    limits (GAMES_PER_TABLE, EVENTS_PER_TABLE) bound what this costs."""
    prefetch_related_objects(games, "players", "events")
    return [stats.game_summary(g.as_document()) for g in games]


def games_oldest_first(table):
    """The table's games, but the removed ones (which count in no stats)."""
    return list(table.games.kept().order_by("created_at", "pk"))


def table_stats(table, members=None, games=None):
    """(stats of tables.md, the games oldest first, their summaries)."""
    members = table.member_names() if members is None else members
    games = games_oldest_first(table) if games is None else games
    found = summaries(games)
    return stats.table_stats(members, found), games, found


# ---------------------------------------------------------------- the table document


def export(table):
    """The table document: name, members, every game's document oldest first, stats."""
    members = table.member_names()
    games = games_oldest_first(table)
    prefetch_related_objects(games, "players", "events")
    docs = [g.as_document() for g in games]
    return {
        "schema": SCHEMA,
        "name": table.name,
        "members": members,
        "games": docs,
        "stats": stats.stats_of_documents(members, docs),
    }


def sheet(table):
    """The table's CSV sheet (documents/table_csv.py): its games oldest first, who
    is ahead, the settle-up; the games' names and formats as the document has them."""
    figures, games, found = table_stats(table)
    rows = [
        (
            game.name,
            game.created_at.date().isoformat(),
            str(rules.FORMATS[game.format].listing_label(game.rules)),
            summary,
        )
        for game, summary in zip(games, found, strict=True)
    ]
    for_money = any(summary["for_money"] for summary in found)
    return table_csv.write_csv(table.name, table.member_names(), rows, figures, for_money)


def games_in(doc):
    """How many games a parsed file would make (a table document's, or one), counted
    before it is read, so a client's allowance can refuse it before any replay."""
    if isinstance(doc, dict) and doc.get("schema") == SCHEMA and isinstance(doc.get("games"), list):
        return len(doc["games"])
    return 1


def _game_label(index, doc):
    name = doc.get("name") if isinstance(doc, dict) else None
    named = f" ({name})" if isinstance(name, str) and name.strip() else ""
    return f"game {index + 1}{named}"


def read(doc):
    """Check a table document and replay every game; returns (name, members, [(game, state)]).

    Raises TableError naming the first game refused and its first bad event.
    """
    if not isinstance(doc, dict):
        raise TableError("a table document is a JSON object")
    if doc.get("schema") != SCHEMA:
        raise TableError(f'schema must be "{SCHEMA}"')
    unknown = sorted(set(doc) - set(TABLE_KEYS), key=str)
    if unknown:
        raise TableError(f"{unknown[0]} is not part of a table document")
    members = doc.get("members", [])
    if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
        raise TableError("members must be a list of names")
    games = doc.get("games", [])
    if not isinstance(games, list):
        raise TableError("games must be a list of game documents")
    if len(games) > settings.GAMES_PER_TABLE_FILE:  # before any is replayed
        raise TableError(
            f"the file has {len(games)} games: a table document holds at most "
            f"{settings.GAMES_PER_TABLE_FILE}"
        )
    check_size(games)
    replayed = []
    for index, game in enumerate(games):
        try:
            replayed.append(game_json.read(game, settings.EVENTS_PER_GAME))
        except rules.RuleError as error:
            raise TableError(f"{_game_label(index, game)}: {error}") from None
    return doc.get("name"), members, replayed


def check_size(games):
    """Refuse a table document holding more games or events than a table keeps,
    counted before any game is replayed."""
    if len(games) > settings.GAMES_PER_TABLE:
        raise TableError(i18n.translate(TABLE_FULL_GAMES, {"n": settings.GAMES_PER_TABLE}))
    events = sum(
        len(g["history"])
        for g in games
        if isinstance(g, dict) and isinstance(g.get("history"), list)
    )
    if events > settings.EVENTS_PER_TABLE:
        raise TableError(i18n.translate(TABLE_FULL_EVENTS, {"n": settings.EVENTS_PER_TABLE}))


@transaction.atomic
def import_document(doc, created_from="", into=None, made_against=None, again=False):
    """A new table from a table document (or its games added `into` a table).

    Every game is replayed first; if any is refused, or the members are not
    right, nothing is created. Players who are not members become members.
    Adding `into` a table is one change to it, made against the revision
    `made_against` (StaleTable if the table changed since, or None is given);
    games the table has already are refused (AlreadyHere) unless `again`.
    """
    name, members, replayed = read(doc)
    if into is not None and not again:
        twins = games_already_here(into, [game for game, _ in replayed])
        if twins:
            raise AlreadyHere(twins)
    try:
        if into is None:
            names = list(members)
            for _, state in replayed:
                known = {n.casefold() for n in names}
                names += [p for p in everyone_seated(state) if p.casefold() not in known]
            table = Table.start(name, names, created_from)
        else:
            table = into.locked_at(made_against)
            table.add_missing_members(Table.check_members(members, "file") if members else [])
    except MemberError as error:
        raise TableError(error.message, "file" if into is not None else error.field) from None
    for game, state in replayed:
        add_game(table, game, state, created_from)
    if into is not None:
        into.revision = table.bump()
    return table


def _names(games):
    """The games as the reader reads their names: "“பூல் 101”, “Diwali pool”"."""
    return ", ".join(f"“{game.shown_name}”" for game in games)


class AlreadyHere(TableError):
    """An upload whose games are already in the table: nothing imported unless confirmed."""

    def __init__(self, games):
        super().__init__(
            ngettext(
                "This game is already in the table (%(names)s), so nothing was imported. "
                "To add it a second time, tick “Import it again” and choose the file again.",
                "These games are already in the table (%(names)s), so nothing was imported. "
                "To add them a second time, tick “Import it again” and choose the file again.",
                len(games),
            )
            % {"names": _names(games)}
        )
        self.games = games


class BackAlready(TableError):
    """A removed game whose copy was imported into its table since: put back, it
    would count twice, so it stays removed (the copy is the game now)."""

    def __init__(self, games):
        super().__init__(
            gettext(
                "This game is already in the table (%(names)s), so it was not put back: "
                "it would count twice."
            )
            % {"names": _names(games)}
        )
        self.games = games


def _the_game(players, fmt, table_rules, first_dealer, history):
    """What makes two games the same game: players, rules and history (not the name)."""
    # Keys sorted: PostgreSQL's jsonb keeps a stored object's keys in its own order.
    return json.dumps(
        {
            "format": fmt,
            "rules": table_rules,
            "players": players,
            "first_dealer": first_dealer,
            "history": [game_json.clean_event(event) for event in history],
        },
        sort_keys=True,
    )


def games_already_here(table, game_docs):
    """The table's games that are the same game as one of `game_docs` (checked
    documents): same players, rules and history."""
    wanted = {
        _the_game(d["players"], d["format"], d["rules"], d["first_dealer"], d["history"])
        for d in game_docs
    }
    here = list(table.games.kept())
    prefetch_related_objects(here, "players", "events")
    found = []
    for game in here:
        names = game.seat_names()
        seen = _the_game(
            names, game.format, game.rules, names[game.first_dealer - 1], game.history()
        )
        if seen in wanted:
            found.append(game)
    return found


def put_back(game):
    """A removed game back in its table's list and stats, unless the table has the
    same game already (imported from its saved file since): BackAlready."""
    with transaction.atomic():
        if game.locked().removed_at is None:  # the game, then its table, as Game.remove locks
            return
        table = game.table.locked()
        names = game.seat_names()
        doc = {
            "players": names,
            "format": game.format,
            "rules": game.rules,
            "first_dealer": names[game.first_dealer - 1],
            "history": game.history(),
        }
        twins = [twin for twin in games_already_here(table, [doc]) if twin.pk != game.pk]
        if twins:
            raise BackAlready(twins)
        game.put_back()


def import_game(table, doc, created_from="", *, made_against, again=False):
    """A game document (dict) or CSV (text) imported into the table; its players join.

    One change to the table, made against the revision `made_against`. A game
    the table has already is refused (AlreadyHere) unless `again`."""
    with transaction.atomic():
        if isinstance(doc, str):
            game_doc, state = game_csv.load_csv(doc, settings.EVENTS_PER_GAME)
        else:
            game_doc, state = game_json.read(doc, settings.EVENTS_PER_GAME)
        locked = table.locked_at(made_against)
        twins = [] if again else games_already_here(locked, [game_doc])
        if twins:
            raise AlreadyHere(twins)
        game = add_game(locked, game_doc, state, created_from)
        table.revision = locked.bump()
        return game


def add_game(table, game_doc, state, created_from="", **kept):
    """Store a checked game in the table, adding its players who are not members
    (latecomers who joined it too).

    The caller holds the table's lock and counts the change (`Table.bump`):
    one import may add several games.
    """
    try:
        table.add_missing_members(everyone_seated(state))
    except MemberError as error:
        raise TableError(error.message) from None
    return Game.store(game_doc, state, created_from, table, bump_table=False, **kept)


def everyone_seated(state):
    """The names of everyone who sat in a game: its first players, then its latecomers."""
    return [player.name for player in state.players]


# ---------------------------------------------------------------- games from the table


def start_game(
    table, fmt, table_rules, seats, first_dealer, name=None, created_from="", *, made_against
):
    """A new game of the table; every seat must be a member. Raises MemberError or RuleError,
    or StaleTable if the table changed since the revision `made_against`."""
    with transaction.atomic():
        locked = table.locked_at(made_against)
        locked.seat_check(seats)
        game = Game.create(  # the table's revision is bumped with the game
            fmt,
            table_rules,
            seats,
            first_dealer,
            name=name,
            created_from=created_from,
            table=locked,
        )
        table.revision = locked.revision
        return game


def play_again(table, previous, created_from="", *, made_against):
    """`previous` played again (Game.play_again), a change to the table made against
    its revision `made_against` (StaleTable if it changed since)."""
    with transaction.atomic():
        table.locked_at(made_against)
        game = previous.play_again(created_from)
        table.refresh_from_db(fields=["revision"])
        return game
