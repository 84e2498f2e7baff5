from django.db import migrations, models


class Migration(migrations.Migration):
    """Each client's allowance of new games and tables (tracker/allowance.py)."""

    dependencies = [
        ("tracker", "0008_joiners_are_members"),
    ]

    operations = [
        migrations.CreateModel(
            name="Allowance",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "client",
                    models.CharField(help_text="Keyed hash of the client's address.", max_length=64),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[("games", "games"), ("tables", "tables")], max_length=10
                    ),
                ),
                (
                    "full_at",
                    models.DateTimeField(
                        help_text="When the client may make a full hour's worth again."
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("client", "kind"), name="one_allowance")
                ],
            },
        ),
    ]
