"""A game's last change noted as data ({"change": "added", "event": "deal", "n": 3})
instead of English words read back by patterns: the words stored before are
read once, here, by the patterns they were written with."""

import re

from django.db import migrations, models

# The words each change was stored in, and what they noted.
WORDS = [
    (r"saved deal (?P<n>\d+)", "added", "deal"),
    (r"changed deal (?P<n>\d+)", "changed", "deal"),
    (r"deleted deal (?P<n>\d+)", "undone", "deal"),
    (r"undid (?P<name>.+)'s rejoin", "undone", "rejoin"),
    (r"rejoined (?P<name>.+)", "added", "rejoin"),
    (r"split the pot", "added", "split"),
    (r"undid the split", "undone", "split"),
    (r"ended the session", "added", "end"),
    (r"undid the end of the session", "undone", "end"),
    (r"undid adding (?P<name>.+)", "undone", "join"),
    (r"added (?P<name>.+)", "added", "join"),
    (r"undid (?P<name>.+) sitting out", "undone", "sit_out"),
    (r"sat (?P<name>.+) out", "added", "sit_out"),
    (r"undid (?P<name>.+) coming back in", "undone", "sit_in"),
    (r"brought (?P<name>.+) back in", "added", "sit_in"),
    (r"undid (?P<name>.+) leaving", "undone", "leave"),
    (r"noted that (?P<name>.+) left", "added", "leave"),
    (r"put the game back", "put_back", None),
    (r"removed the game", "removed", None),
]


def noted(words):
    for pattern, change, event in WORDS:
        found = re.fullmatch(pattern, words or "")
        if found:
            data = {"change": change, **({"event": event} if event else {})}
            for key, value in found.groupdict().items():
                data[key] = int(value) if key == "n" else value
            return data
    return {}


def words_to_data(apps, schema_editor):
    Game = apps.get_model("tracker", "Game")
    for game in Game.objects.exclude(last_change="").only("pk", "last_change"):
        Game.objects.filter(pk=game.pk).update(change=noted(game.last_change))


class Migration(migrations.Migration):
    dependencies = [("tracker", "0011_latecomers_are_members")]

    operations = [
        migrations.AddField(
            model_name="game",
            name="change",
            field=models.JSONField(blank=True, default=dict, editable=False),
        ),
        migrations.RunPython(words_to_data, migrations.RunPython.noop),
        migrations.RemoveField(model_name="game", name="last_change"),
        migrations.RenameField(model_name="game", old_name="change", new_name="last_change"),
    ]
