"""Backup and restore of every table and game, with their links (`manage.py backup DIR`).

A backup folder holds one JSON document per table (`tables/<id>.json`, the
table document of shared/docs/tables.md) and per game (`games/<id>.json`,
the game document of shared/docs/game-json.md), plus `index.json`, which
alone carries what the documents leave out: each one's edit and view
tokens, its dates, and which table a game belongs to. `restore` replays
every game through the rules engine and brings back the same links.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.db import transaction
from django.db.models import prefetch_related_objects
from django.utils.dateparse import parse_datetime

from . import document, rules, tables
from .models import Game, Member, MemberError, Table

SCHEMA = "rummy-tracker.backup/1"
TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


class BackupError(ValueError):
    pass


def _dates(row):
    return {"created_at": row.created_at.isoformat(), "updated_at": row.updated_at.isoformat()}


def write(folder):
    """Write every table and game into `folder`; returns (tables, games) counted."""
    folder = Path(folder)
    (folder / "tables").mkdir(parents=True, exist_ok=True)
    (folder / "games").mkdir(parents=True, exist_ok=True)
    index = {"schema": SCHEMA, "tables": [], "games": []}
    table_files = {}
    for table in Table.objects.order_by("pk"):
        name = f"tables/{table.pk}.json"
        (folder / name).write_text(document.dumps(tables.export(table)), encoding="utf-8")
        table_files[table.pk] = name
        index["tables"].append(
            {
                "file": name,
                "name": table.name,
                "edit_token": table.edit_token,
                "view_token": table.view_token,
                **_dates(table),
            }
        )
    games = list(Game.objects.order_by("created_at", "pk"))
    for start in range(0, len(games), 200):  # a few hundred games read at a time
        chunk = games[start : start + 200]
        prefetch_related_objects(chunk, "players", "events")
        for game in chunk:
            name = f"games/{game.pk}.json"
            (folder / name).write_text(document.dumps(game.as_document()), encoding="utf-8")
            index["games"].append(
                {
                    "file": name,
                    "name": game.name,
                    "edit_token": game.edit_token,
                    "view_token": game.view_token,
                    "table": table_files.get(game.table_id),
                    "created_from": game.created_from,
                    **_dates(game),
                }
            )
    (folder / "index.json").write_text(document.dumps(index), encoding="utf-8")
    return len(index["tables"]), len(index["games"])


def _load(folder, name):
    if not isinstance(name, str) or not re.fullmatch(r"(tables|games)/\d+\.json", name):
        raise BackupError(f"index.json: {name!r} is not a file of a backup")
    try:
        return document.loads((folder / name).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise BackupError(f"cannot read {name}: {error}") from None
    except rules.RuleError as error:
        raise BackupError(f"{name}: {error}") from None


def _kept(entry, where):
    out = {}
    for key in ("edit_token", "view_token"):
        token = entry.get(key)
        if not isinstance(token, str) or not TOKEN.match(token):
            raise BackupError(f"{where}: {key} is not a link's token")
        out[key] = token
    for key in ("created_at", "updated_at"):
        value = entry.get(key)
        when = parse_datetime(value) if isinstance(value, str) else None
        if when is None:
            raise BackupError(f"{where}: {key} is not a date and time")
        out[key] = when
    return out


def _dated(model, row, kept):
    """Put back the dates that auto_now fields set on saving."""
    dates = {k: kept[k] for k in ("created_at", "updated_at")}
    model.objects.filter(pk=row.pk).update(**dates)


@transaction.atomic
def restore(folder):
    """Bring back every table and game of a backup, with the same links; all or nothing."""
    folder = Path(folder)
    try:
        index = document.loads((folder / "index.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise BackupError(f"cannot read index.json: {error}") from None
    except rules.RuleError as error:
        raise BackupError(f"index.json: {error}") from None
    if not isinstance(index, dict) or index.get("schema") != SCHEMA:
        raise BackupError(f'index.json: schema must be "{SCHEMA}"')
    have_tables, have_games = Table.objects.count(), Game.objects.count()
    if have_tables or have_games:
        raise BackupError(
            f"restore needs an empty database: it has {have_games} games and {have_tables} tables"
        )
    restored = {}
    for entry in index.get("tables") or []:
        if not isinstance(entry, dict):
            raise BackupError("index.json: every table is an object")
        name = entry.get("file")
        doc = _load(folder, name)
        kept = _kept(entry, name)
        if not isinstance(doc, dict) or doc.get("schema") != tables.SCHEMA:
            raise BackupError(f'{name}: schema must be "{tables.SCHEMA}"')
        try:
            members = Table.check_members(doc.get("members") or [])
            title = document.check_name(doc.get("name"))
        except (MemberError, rules.RuleError) as error:
            raise BackupError(f"{name}: {getattr(error, 'message', error)}") from None
        table = Table.objects.create(
            name=title, edit_token=kept["edit_token"], view_token=kept["view_token"]
        )
        Member.objects.bulk_create(
            Member(table=table, name=n, order=i) for i, n in enumerate(members, start=1)
        )
        restored[name] = (table, kept)
    for entry in index.get("games") or []:
        if not isinstance(entry, dict):
            raise BackupError("index.json: every game is an object")
        name = entry.get("file")
        kept = _kept(entry, name)
        try:
            game_doc, state = document.read(_load(folder, name))
        except rules.RuleError as error:
            raise BackupError(f"{name}: {error}") from None
        table = restored.get(entry.get("table"), (None, None))[0]
        if entry.get("table") and table is None:
            raise BackupError(f"{name}: its table {entry['table']!r} is not in index.json")
        tokens = {k: kept[k] for k in ("edit_token", "view_token")}
        created_from = (
            entry.get("created_from") if isinstance(entry.get("created_from"), str) else ""
        )
        if table is None:
            game = Game.store(game_doc, state, created_from[:64], **tokens)
        else:
            try:
                game = tables.add_game(table, game_doc, state, created_from[:64], **tokens)
            except tables.TableError as error:
                raise BackupError(f"{name}: {error.message}") from None
        _dated(Game, game, kept)
    for table, kept in restored.values():
        _dated(Table, table, kept)
    return len(restored), len(index.get("games") or [])
