from django.db import migrations, models


class Migration(migrations.Migration):
    """A table's revision: bumped by every change to it, posted back by its forms."""

    dependencies = [("tracker", "0006_join_events")]

    operations = [
        migrations.AddField(
            model_name="table",
            name="revision",
            field=models.PositiveIntegerField(default=0),
        ),
    ]
