from django.db import migrations, models


class Migration(migrations.Migration):
    """Basic Rummy joins the format choices (they come from tracker.rules.FORMATS)."""

    dependencies = [
        ("tracker", "0003_event_ids"),
    ]

    operations = [
        migrations.AlterField(
            model_name="game",
            name="format",
            field=models.CharField(
                choices=[
                    ("pool", "Pool"),
                    ("deals", "Deals"),
                    ("points", "Points"),
                    ("basic", "Basic Rummy"),
                ],
                max_length=10,
            ),
        ),
    ]
