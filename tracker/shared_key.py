"""One SECRET_KEY for every server on a database.

A phone's "Your games" and its language live in cookies signed with
SECRET_KEY: a server with another key reads none of them (a game opened on
one server is missing from "Your games" on the other). So the database keeps
a fingerprint of the key its servers use (an HMAC of a fixed text under the
key: the key cannot be had back from it), written by the first server that
looks, and a server with another key is refused by Django's checks on the
database, which `migrate` runs (so `make run` stops there) and
`manage.py check --database default` runs.

A key changed on purpose is moved to SECRET_KEY_FALLBACKS for a while (as
Django's docs say, so the cookies signed before still read): a server whose
old key is the one recorded then records its new key.
"""

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError, models
from django.utils.crypto import constant_time_compare, salted_hmac


class SharedKey(models.Model):
    """The fingerprint of the SECRET_KEY every server of this database uses (one row)."""

    fingerprint = models.CharField(max_length=64)

    def __str__(self):
        return self.fingerprint[:8]


def fingerprint(key):
    return salted_hmac("tracker.shared_key", "one key for every server", secret=key).hexdigest()


def key_refused():
    """Why this server's SECRET_KEY is not its database's, or None (recorded when new)."""
    mine = fingerprint(settings.SECRET_KEY)
    try:
        kept, _ = SharedKey.objects.get_or_create(pk=1, defaults={"fingerprint": mine})
    except DatabaseError:
        return None  # not migrated yet: migrate checks again once it has
    if constant_time_compare(kept.fingerprint, mine):
        return None
    if any(
        constant_time_compare(kept.fingerprint, fingerprint(old))
        for old in settings.SECRET_KEY_FALLBACKS
    ):
        SharedKey.objects.filter(pk=1).update(fingerprint=mine)  # the key was changed on purpose
        return None
    return (
        "SECRET_KEY is not the key the other servers on this database use: a phone's "
        '"Your games" and language would be lost moving between them.'
    )


@checks.register(checks.Tags.database)
def one_key_for_every_server(app_configs, databases=None, **kwargs):
    if not databases or "default" not in databases:
        return []
    refused = key_refused()
    if refused is None:
        return []
    hint = (
        "Give every server the same SECRET_KEY (the first server's, e.g. its .secret_key "
        "file); to change it on purpose, put the old one in SECRET_KEY_FALLBACKS "
        "(docs/several-servers.md)."
    )
    return [checks.Error(refused, hint=hint, id="tracker.E001")]


def record_after_migrate(sender, using="default", **kwargs):
    """migrate made the table: the key of the server that migrated is recorded (or
    refused) at once, so two servers migrating in turn cannot both pass unrecorded."""
    if using == "default" and (refused := key_refused()) is not None:
        raise ImproperlyConfigured(refused)
