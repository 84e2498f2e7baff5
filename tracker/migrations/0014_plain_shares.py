from decimal import Decimal, InvalidOperation

from django.db import migrations

CENT = Decimal("0.01")


def plain_shares(apps, schema_editor):
    """A custom split's shares are plain amounts, stored as money is ("100.00"):
    the engine now refuses 1E+2, +100, 1_00 or other digits than 0-9 (issue 37),
    which it took before and stored as sent. Each such share is written in the
    one form now, the same amount, so every history stored before still replays.
    A share that is no amount at all was refused then too, and is not here."""
    Event = apps.get_model("tracker", "Event")
    for event in Event.objects.filter(type="split").iterator():
        shares = event.data.get("shares")
        if event.data.get("method") != "custom" or not isinstance(shares, dict):
            continue
        plain = {}
        for name, share in shares.items():
            try:
                amount = Decimal(str(share).strip())
            except InvalidOperation:
                amount = None
            ok = amount is not None and amount.is_finite() and not isinstance(share, bool)
            plain[name] = str(amount.quantize(CENT)) if ok else share
        if plain != shares:
            event.data = {**event.data, "shares": plain}
            event.save(update_fields=["data"])


class Migration(migrations.Migration):
    dependencies = [("tracker", "0013_shared_key")]

    operations = [migrations.RunPython(plain_shares, migrations.RunPython.noop)]
