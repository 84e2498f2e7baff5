from django.db import migrations


def seat_joiners_as_members(apps, schema_editor):
    """Every player of a table's game is a member of the table (tables.md): a
    player who joined a table's game before joining made them one is made one now."""
    Table = apps.get_model("tracker", "Table")
    Member = apps.get_model("tracker", "Member")
    Player = apps.get_model("tracker", "Player")
    for table in Table.objects.all():
        known = {name.casefold() for name in table.members.values_list("name", flat=True)}
        order = max(table.members.values_list("order", flat=True), default=0)
        for name in Player.objects.filter(game__table=table).values_list("name", flat=True):
            if name.casefold() not in known:
                known.add(name.casefold())
                order += 1
                Member.objects.create(table=table, name=name, order=order)


class Migration(migrations.Migration):
    dependencies = [("tracker", "0007_table_revision")]

    operations = [migrations.RunPython(seat_joiners_as_members, migrations.RunPython.noop)]
