from django.db import migrations, models


class Migration(migrations.Migration):
    """The events of people coming and going: join, sit out, back in, leave."""

    dependencies = [("tracker", "0005_tables")]

    operations = [
        migrations.AlterField(
            model_name="event",
            name="type",
            field=models.CharField(
                choices=[
                    ("deal", "Deal"),
                    ("rejoin", "Rejoin"),
                    ("split", "Split"),
                    ("end", "End"),
                    ("join", "Join"),
                    ("sit_out", "Sit out"),
                    ("sit_in", "Back in"),
                    ("leave", "Leave"),
                ],
                max_length=10,
            ),
        ),
    ]
