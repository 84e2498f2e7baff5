"""How many new games and tables one client may make: its allowance.

A client is known by a keyed hash of its address (`client_key`): enough to
count, nothing to leak. Behind a reverse proxy (`BEHIND_PROXY`) the address
is the one the trusted proxy appended to X-Forwarded-For, counted back
`TRUSTED_PROXIES` hops from the right: whatever the client wrote itself
stands to the left of it and is never read.

The allowance is a bucket of GAMES_PER_HOUR games (and as many tables; and,
apart, ADMIN_LOGINS_PER_HOUR attempts at the admin's login) that fills again
at that rate: up to GAMES_PER_HOUR at once, then one more every
3600 / GAMES_PER_HOUR seconds. It is kept in the database, so it holds across
workers and servers, as one row per client and kind holding the time the
bucket is full again (`full_at`): making n games moves that time on by n
steps, and is refused when it would be more than a full bucket ahead of now.

`charge` is called inside the transaction that makes the games, with the
client's row locked (`select_for_update`) on PostgreSQL; SQLite's IMMEDIATE
transactions already serialise every writer. So two posts at once cannot
both take the last game, and a game whose transaction is rolled back was
never charged. An upload that is refused is charged all the same
(`charge_refused`), in a transaction of its own.
"""

from __future__ import annotations

import hmac
from datetime import timedelta

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

KINDS = ("games", "tables", "logins")  # logins: attempts at the admin's (ADMIN_LOGINS_PER_HOUR)


class Spent(Exception):
    """This client's allowance has no room for what it asked to make."""


class Allowance(models.Model):
    client = models.CharField(max_length=64, help_text="Keyed hash of the client's address.")
    kind = models.CharField(max_length=10, choices=[(k, k) for k in KINDS])
    full_at = models.DateTimeField(help_text="When the client may make a full hour's worth again.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["client", "kind"], name="one_allowance")]

    def __str__(self):
        return f"{self.kind} of {self.client[:8]}"


def client_address(request):
    """The client's address: the peer's, or behind a proxy the one it appended."""
    return address_in(request.META)


def address_in(meta):
    """The client's address from REMOTE_ADDR and HTTP_X_FORWARDED_FOR of a WSGI environ."""
    address = meta.get("REMOTE_ADDR", "")
    hops = settings.TRUSTED_PROXIES if settings.BEHIND_PROXY else 0
    if hops:
        chain = meta.get("HTTP_X_FORWARDED_FOR", "").split(",")
        chain = [entry.strip() for entry in chain if entry.strip()]
        if chain:
            address = chain[-min(hops, len(chain))]
    return address


def client_key(request):
    """A keyed hash of the client's address, kept as a game's `created_from`."""
    address = client_address(request).encode()
    return hmac.new(settings.SECRET_KEY.encode(), address, "sha256").hexdigest()


def _per_hour(kind):
    """The bucket's size, and how many it fills again by in an hour."""
    return settings.ADMIN_LOGINS_PER_HOUR if kind == "logins" else settings.GAMES_PER_HOUR


def _step(kind="games"):
    """How long the bucket takes to fill again by one game (or table, or login)."""
    return timedelta(hours=1) / _per_hour(kind)


def _row(client, kind):
    """The client's row of that kind, locked to the end of the transaction."""
    now = timezone.now()
    # Made once; a second maker at the same moment waits on the first and adds nothing.
    Allowance.objects.bulk_create(
        [Allowance(client=client, kind=kind, full_at=now)], ignore_conflicts=True
    )
    return Allowance.objects.select_for_update().get(client=client, kind=kind), now


def has_room(client, count=1, kind="games"):
    """Whether `count` more would be allowed now (no lock: for refusing early,
    before a file is read or replayed; `charge` decides)."""
    if _per_hour(kind) < 1:
        return False
    found = Allowance.objects.filter(client=client, kind=kind).first()
    now = timezone.now()
    ahead = max(found.full_at, now) - now if found else timedelta(0)
    return ahead + _step(kind) * count <= _step(kind) * _per_hour(kind)


def charge(client, count=1, kind="games"):
    """Charge `count` new games (or tables) to the client, or raise Spent.

    Must be called inside the transaction that makes them: a rollback undoes
    the charge with them. A client of "" (the commands) is not counted."""
    if not client:
        return
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("charge() belongs inside the transaction that makes the games")
    if _per_hour(kind) < 1:
        raise Spent
    row, now = _row(client, kind)
    full_at = max(row.full_at, now) + _step(kind) * count
    if full_at - now > _step(kind) * _per_hour(kind):
        raise Spent
    row.full_at = full_at
    row.save(update_fields=["full_at"])


def charge_refused(client, count=1, kind="games"):
    """Charge a refused upload as the games it held (at most the whole allowance),
    so sending bad files over and over costs what making games would."""
    if not client or _per_hour(kind) < 1:
        return
    with transaction.atomic():
        row, now = _row(client, kind)
        full_at = max(row.full_at, now) + _step(kind) * max(count, 1)
        row.full_at = min(full_at, now + _step(kind) * _per_hour(kind))
        row.save(update_fields=["full_at"])


def take_one(client, kind):
    """Charge one attempt of `kind` (an admin login) now, in a transaction of its
    own, or raise Spent, charging nothing, when the client's bucket is empty."""
    with transaction.atomic():
        charge(client, 1, kind)
