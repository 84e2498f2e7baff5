"""Pushed updates: every phone on a game sees a saved deal at once.

A game screen, a view link and a table page each hold one Server-Sent Events
stream (tracker/live/stream.py, served by tracker/asgi.py beside Django). An
event says only that the game (or table) is at a new revision; the page then
fetches the part it already knows how to fetch. This module is the Django
side of it:

- `game_moved` and `table_moved`, called when a game's or table's revision is
  saved (the models' post_save signal), say so to every worker once the
  transaction commits (tracker/live/fanout.py);
- `find` checks a stream's link, `read_versions` reads revisions again (for
  the hubs, tracker/live/hub.py); both run on Django's threads.

A table's version is its revision plus its games' revisions (removed games
too): it moves with every change to the table and with every deal of its
games, so a table page hears of both, and it only ever grows (a removed game's
revision stays counted; the games deleted for good leave theirs to the table's
own revision: `Game.remove`).
"""

from django.db import close_old_connections, transaction
from django.db.models import F, Sum
from django.db.models.functions import Coalesce
from django.db.models.signals import post_delete, post_save

from ..models import Game, Table
from .hub import message

_fanout = None


def current_fanout():
    """This process's fan-out (tracker/live/fanout.py), made on first use."""
    global _fanout
    if _fanout is None:
        from .fanout import configured

        _fanout = configured()
    return _fanout


def _publish_on_commit(channel, read_version):
    def publish():
        current_fanout().publish(message(channel, read_version()))

    # robust: a fan-out that fails is logged, never turned into a failed save.
    transaction.on_commit(publish, robust=True)


def game_moved(game):
    """`game` is at a new revision (called in the transaction that moved it)."""
    revision = game.revision
    _publish_on_commit(("g", game.pk), lambda: revision)
    if game.table_id is not None:
        table_moved(game.table_id)


def table_moved(table_id):
    """The table (or one of its games) changed: its version is read once committed."""
    _publish_on_commit(("t", table_id), lambda: table_versions([table_id]).get(table_id))


def table_versions(pks):
    """{pk: version} of these tables: each one's revision and its games'."""
    found = (
        Table.objects.filter(pk__in=pks)
        .annotate(version=F("revision") + Coalesce(Sum("games__revision"), 0))
        .values_list("pk", "version")
    )
    return dict(found)


# -- what the streams ask, on Django's threads (tracker/asgi.py)


def find(kind, token):
    """(channel, version) of the game or table a stream's link opens, or None.

    `kind` is the link's: "g" (edit), "w" (view), "t" (table), "tw" (table view).
    Looked up as the pages look links up (by SHA-256, compared in constant time).
    Outside Django's requests: old connections are closed first, as a request does.
    """
    close_old_connections()
    if kind in ("g", "w"):
        game = Game.by_link(token, can_edit=kind == "g")
        if game is None or game.removed_at is not None:
            return None
        return ("g", game.pk), game.revision
    table = Table.by_link(token, can_edit=kind == "t")
    if table is None:
        return None
    return ("t", table.pk), table_versions([table.pk]).get(table.pk, table.revision)


CHUNK = 500  # ids in one IN (...)


def read_versions(channels):
    """{channel: version} of the games and tables still there."""
    close_old_connections()
    games = [pk for kind, pk in channels if kind == "g"]
    tables = [pk for kind, pk in channels if kind == "t"]
    versions = {}
    for start in range(0, len(games), CHUNK):
        rows = Game.objects.filter(pk__in=games[start : start + CHUNK])
        versions.update((("g", pk), rev) for pk, rev in rows.values_list("pk", "revision"))
    for start in range(0, len(tables), CHUNK):
        found = table_versions(tables[start : start + CHUNK])
        versions.update((("t", pk), version) for pk, version in found.items())
    return versions


def _saved(sender, instance, created, update_fields=None, **kwargs):
    """A game's or table's revision saved: the streams on it hear of it once committed."""
    if created or not update_fields or "revision" not in update_fields:
        return
    if sender is Game:
        game_moved(instance)
    else:
        table_moved(instance.pk)


post_save.connect(_saved, sender=Game, dispatch_uid="live-game-moved")
post_save.connect(_saved, sender=Table, dispatch_uid="live-table-moved")


def _deleted(sender, instance, **kwargs):
    """A game or table deleted (the admin): its streams end."""
    _publish_on_commit(("g" if sender.__name__ == "Game" else "t", instance.pk), lambda: None)


post_delete.connect(_deleted, sender="tracker.Game", dispatch_uid="live-game-deleted")
post_delete.connect(_deleted, sender="tracker.Table", dispatch_uid="live-table-deleted")
