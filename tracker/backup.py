"""Backup and restore of every table and game, with their links (`manage.py backup DIR`).

A backup folder holds one JSON document per table (`tables/<id>.json`, the
table document of shared/docs/tables.md) and per game (`games/<id>.json`,
the game document of shared/docs/game-json.md), plus `index.json`, which
alone carries what the documents leave out: each one's edit and view
tokens, its dates, and which table a game belongs to. `restore` replays
every game through the rules engine and brings back the same links.

The tokens are the links, so a backup is private: the folder and its
subfolders are made 0700 and every file 0600, in a folder that is new or
empty (no stale file of an older backup is left beside them). `restore`
checks every entry of `index.json`, and that every file it names is a
regular file no larger than its limit, before it restores anything; it reads
no file through a symbolic link, nor past its limit.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import prefetch_related_objects
from django.utils.dateparse import parse_datetime

from . import rules, tables
from .documents import game_json
from .models import Game, Member, MemberError, Table

SCHEMA = "rummy-tracker.backup/1"
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")  # whole: re.fullmatch, never a trailing newline
FILE = re.compile(r"(tables|games)/[0-9]+\.json")
CREATED_FROM = re.compile(r"[0-9a-f]{64}|")  # a keyed hash of an address, or none
ENTRY_KEYS = {
    "tables": {"file", "name", "edit_token", "view_token", "created_at", "updated_at", "revision"},
    "games": {"file", "name", "edit_token", "view_token", "table", "created_from"}
    | {"created_at", "updated_at", "revision"},
}


class BackupError(ValueError):
    pass


def _dates(row):
    return {"created_at": row.created_at.isoformat(), "updated_at": row.updated_at.isoformat()}


def write(folder):
    """Write every table and game into `folder`; returns (tables, games) counted."""
    folder = Path(folder)
    _private_folder(folder)
    index = {"schema": SCHEMA, "tables": [], "games": []}
    table_files = {}
    for table in Table.objects.order_by("pk"):
        name = f"tables/{table.pk}.json"
        # Compact: the largest table's document is well within TABLE_FILE_MAX_BYTES.
        _write_private(folder / name, game_json.dumps(tables.export(table), compact=True))
        table_files[table.pk] = name
        index["tables"].append(
            {
                "file": name,
                "name": table.name,
                "edit_token": table.edit_token,
                "view_token": table.view_token,
                "revision": table.revision,
                **_dates(table),
            }
        )
    games = list(Game.objects.order_by("created_at", "pk"))
    for start in range(0, len(games), 200):  # a few hundred games read at a time
        chunk = games[start : start + 200]
        prefetch_related_objects(chunk, "players", "events")
        for game in chunk:
            name = f"games/{game.pk}.json"
            _write_private(folder / name, game_json.dumps(game.as_document()))
            index["games"].append(
                {
                    "file": name,
                    "name": game.name,
                    "edit_token": game.edit_token,
                    "view_token": game.view_token,
                    "table": table_files.get(game.table_id),
                    "created_from": game.created_from,
                    "revision": game.revision,
                    **_dates(game),
                }
            )
    _write_private(folder / "index.json", game_json.dumps(index))
    return len(index["tables"]), len(index["games"])


def _private_folder(folder):
    """The backup folder and its two subfolders, 0700; a folder that has files is refused."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise BackupError(f"{folder} is not a folder")
    if folder.exists() and any(folder.iterdir()):
        raise BackupError(f"{folder} is not empty: back up into a new or empty folder")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)  # an empty folder that was there already
    for part in ("tables", "games"):
        (folder / part).mkdir(mode=0o700)


def _write_private(path, text):
    """A new file readable by its owner alone (0600), never through a link."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with open(fd, "w", encoding="utf-8") as out:
        out.write(text)


def _most_bytes(name):
    """The largest a file of the backup may be: a game's or a table's as an
    upload takes it (GAME_FILE_MAX_BYTES, TABLE_FILE_MAX_BYTES), the index's
    BACKUP_INDEX_MAX_BYTES."""
    if name.startswith("games/"):
        return settings.GAME_FILE_MAX_BYTES
    if name.startswith("tables/"):
        return settings.TABLE_FILE_MAX_BYTES
    return settings.BACKUP_INDEX_MAX_BYTES


def _open(folder, name):
    """An open descriptor of a file of the backup, and the most bytes it may hold.

    Refused: a symbolic link (to the file or its folder), anything but a regular
    file (a FIFO, opened without waiting for a writer, or a device), a file
    larger than its limit."""
    path = folder / name
    for step in (path.parent, path):
        if step != folder and step.is_symlink():
            raise BackupError(f"{name}: a symbolic link: a backup holds its files themselves")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        raise BackupError(f"cannot read {name}: {error}") from None
    found, most = os.fstat(fd), _most_bytes(name)
    refused = None
    if not stat.S_ISREG(found.st_mode):
        refused = f"{name}: not a regular file: a backup holds plain files only"
    elif found.st_size > most:
        refused = f"{name}: {found.st_size} bytes: a backup's file holds at most {most}"
    if refused:
        os.close(fd)
        raise BackupError(refused)
    return fd, most


def _read(folder, name):
    """The document in a file of the backup, read no further than its limit."""
    fd, most = _open(folder, name)
    try:
        with open(fd, "rb") as handle:
            data = handle.read(most + 1)  # a file that grew since it was looked at stops here
        if len(data) > most:
            raise BackupError(f"{name}: more than {most} bytes: a backup's file holds at most that")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise BackupError(f"cannot read {name}: {error}") from None
    try:
        return game_json.loads(text)
    except rules.RuleError as error:
        raise BackupError(f"{name}: {error}") from None


def _check_files(folder, entries):
    """Every file the index names is a regular file within its limit, looked at
    before anything is restored (each is read again, within its limit, when restored)."""
    for kept in entries:
        os.close(_open(folder, kept["file"])[0])


def _checked_index(index):
    """Every entry of index.json checked before anything is restored: the types,
    the tokens to the letter, each file, token and table named once. Returns
    (tables, games): each entry's file, tokens, dates (and the game's table)."""
    if not isinstance(index, dict) or index.get("schema") != SCHEMA:
        raise BackupError(f'index.json: schema must be "{SCHEMA}"')
    unknown = sorted(set(index) - {"schema", "tables", "games"}, key=str)
    if unknown:
        raise BackupError(f"index.json: {unknown[0]!r} is not part of a backup's index")
    seen = {}  # a file or token -> where it was first given
    checked = {}
    for part, keys in ENTRY_KEYS.items():
        entries = index.get(part, [])
        if not isinstance(entries, list):
            raise BackupError(f"index.json: {part} must be a list")
        checked[part] = []
        for number, entry in enumerate(entries):
            where = f"index.json: {part}[{number}]"
            if not isinstance(entry, dict):
                raise BackupError(f"{where} must be an object")
            unknown = sorted(set(entry) - keys, key=str)
            if unknown:
                raise BackupError(f"{where}: {unknown[0]!r} is not part of an entry")
            name = entry.get("file")
            if not isinstance(name, str) or not FILE.fullmatch(name) or name.split("/")[0] != part:
                raise BackupError(f"{where}: file {name!r} is not a file of {part}/")
            kept = {"file": name, **_kept(entry, f"index.json: {name}")}
            if part == "games":
                kept.update(_game_extras(entry, name, checked["tables"]))
            for key in ("file", "edit_token", "view_token"):
                if kept[key] in seen:
                    raise BackupError(
                        f"index.json: {name}: its {key.replace('_', ' ')} is given twice"
                        f" (also in {seen[kept[key]]})"
                    )
                seen[kept[key]] = name
            checked[part].append(kept)
    return checked["tables"], checked["games"]


def _kept(entry, where):
    out = {}
    for key in ("edit_token", "view_token"):
        token = entry.get(key)
        if not isinstance(token, str) or not TOKEN.fullmatch(token):
            raise BackupError(f"{where}: {key} is not a link's token")
        out[key] = token
    for key in ("created_at", "updated_at"):
        value = entry.get(key)
        try:
            when = parse_datetime(value) if isinstance(value, str) else None
        except ValueError:  # well formed, out of range: "2026-13-45T..."
            when = None
        if when is None or when.tzinfo is None:
            raise BackupError(f"{where}: {key} is not a date and time with its time zone")
        out[key] = when
    # The revision it was at (a backup made before it was written has none):
    # restored past it, so no phone's page or form made before the backup is
    # ever taken for the restored one.
    revision = entry.get("revision", 0)
    if type(revision) is not int or not 0 <= revision < 2**31 - 2:
        raise BackupError(f"{where}: revision is not a whole number")
    out["revision"] = revision
    return out


def _game_extras(entry, name, tables_checked):
    table = entry.get("table")
    if table is not None and (
        not isinstance(table, str) or table not in {t["file"] for t in tables_checked}
    ):
        raise BackupError(f"index.json: {name}: its table {table!r} is not a table of index.json")
    created_from = entry.get("created_from", "")
    if not isinstance(created_from, str) or not CREATED_FROM.fullmatch(created_from):
        raise BackupError(f"index.json: {name}: created_from is not a keyed hash of an address")
    return {"table": table, "created_from": created_from}


def _dated(model, row, kept):
    """Put back the dates that auto_now fields set on saving."""
    dates = {k: kept[k] for k in ("created_at", "updated_at")}
    model.objects.filter(pk=row.pk).update(**dates)


@transaction.atomic
def restore(folder):
    """Bring back every table and game of a backup, with the same links; all or nothing."""
    folder = Path(folder)
    if not folder.is_dir():
        raise BackupError(f"{folder} is not a folder")
    table_entries, game_entries = _checked_index(_read(folder, "index.json"))
    have_tables, have_games = Table.objects.count(), Game.objects.count()
    if have_tables or have_games:
        raise BackupError(
            f"restore needs an empty database: it has {have_games} games and {have_tables} tables"
        )
    _check_files(folder, [*table_entries, *game_entries])
    restored = {}
    for kept in table_entries:
        name = kept["file"]
        doc = _read(folder, name)
        if not isinstance(doc, dict) or doc.get("schema") != tables.SCHEMA:
            raise BackupError(f'{name}: schema must be "{tables.SCHEMA}"')
        try:
            members = Table.check_members(doc.get("members") or [])
            title = game_json.check_name(doc.get("name"))
        except (MemberError, rules.RuleError) as error:
            raise BackupError(f"{name}: {getattr(error, 'message', error)}") from None
        table = Table.objects.create(
            name=title,
            edit_token=kept["edit_token"],
            view_token=kept["view_token"],
            revision=kept["revision"] + 1,
        )
        Member.objects.bulk_create(
            Member(table=table, name=n, order=i) for i, n in enumerate(members, start=1)
        )
        restored[name] = (table, kept)
    for kept in game_entries:
        name = kept["file"]
        try:
            game_doc, state = game_json.read(_read(folder, name))
        except rules.RuleError as error:
            raise BackupError(f"{name}: {error}") from None
        tokens = {k: kept[k] for k in ("edit_token", "view_token", "revision")}
        if kept["table"] is None:
            game = Game.store(game_doc, state, kept["created_from"], **tokens)
        else:
            table = restored[kept["table"]][0]
            try:
                game = tables.add_game(table, game_doc, state, kept["created_from"], **tokens)
            except tables.TableError as error:
                raise BackupError(f"{name}: {error.message}") from None
        _dated(Game, game, kept)
    for table, kept in restored.values():
        _dated(Table, table, kept)
    return len(restored), len(game_entries)
