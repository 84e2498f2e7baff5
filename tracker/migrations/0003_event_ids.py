from django.db import migrations, models


def number_events(apps, schema_editor):
    """Give every stored event its id: 1, 2, ... in history order, per game.

    New ids are the revision after the change that adds the event, so a game's
    revision is raised, if need be, to at least its highest id.
    """
    Game = apps.get_model("tracker", "Game")
    Event = apps.get_model("tracker", "Event")
    for game in Game.objects.all().iterator():
        events = list(Event.objects.filter(game=game).order_by("position"))
        for serial, event in enumerate(events, start=1):
            event.serial = serial
        Event.objects.bulk_update(events, ["serial"], batch_size=500)
        if game.revision < len(events):
            game.revision = len(events)
            game.save(update_fields=["revision"])


class Migration(migrations.Migration):
    dependencies = [("tracker", "0002_token_keys")]

    operations = [
        migrations.AddField(
            model_name="game",
            name="last_change",
            field=models.CharField(blank=True, default="", editable=False, max_length=80),
        ),
        migrations.AddField(
            model_name="event",
            name="serial",
            field=models.PositiveIntegerField(null=True),
        ),
        migrations.RunPython(number_events, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="event",
            name="serial",
            field=models.PositiveIntegerField(
                help_text="The event's id in its game, in links and forms: never moves, never reused."
            ),
        ),
        migrations.AddConstraint(
            model_name="event",
            constraint=models.UniqueConstraint(fields=("game", "serial"), name="one_event_per_id"),
        ),
    ]
