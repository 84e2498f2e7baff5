import hashlib

from django.db import migrations, models


def fill_keys(apps, schema_editor):
    Game = apps.get_model("tracker", "Game")
    for game in Game.objects.all():
        game.edit_key = hashlib.sha256(game.edit_token.encode()).hexdigest()
        game.view_key = hashlib.sha256(game.view_token.encode()).hexdigest()
        game.save(update_fields=["edit_key", "view_key"])


class Migration(migrations.Migration):
    dependencies = [("tracker", "0001_games")]

    operations = [
        migrations.AddField(
            model_name="game",
            name="edit_key",
            field=models.CharField(editable=False, max_length=64, null=True),
        ),
        migrations.AddField(
            model_name="game",
            name="view_key",
            field=models.CharField(editable=False, max_length=64, null=True),
        ),
        migrations.AddField(
            model_name="game",
            name="created_from",
            field=models.CharField(
                blank=True,
                editable=False,
                help_text="Keyed hash of the creator's address.",
                max_length=64,
            ),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="game",
            name="edit_key",
            field=models.CharField(editable=False, max_length=64, unique=True),
        ),
        migrations.AlterField(
            model_name="game",
            name="view_key",
            field=models.CharField(editable=False, max_length=64, unique=True),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(fields=["created_from", "created_at"], name="game_creations"),
        ),
    ]
