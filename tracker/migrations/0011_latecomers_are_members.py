from django.db import migrations


def seat_latecomers_as_members(apps, schema_editor):
    """Every player of a table's game is a member of the table (tables.md). 0008
    read only a game's first players; a latecomer seated by "Add a player" is a
    join event, not a player row, so a table whose latecomer is no member yet is
    mended now (its settle-up could not balance: the table page answered 500)."""
    Table = apps.get_model("tracker", "Table")
    Member = apps.get_model("tracker", "Member")
    Player = apps.get_model("tracker", "Player")
    Event = apps.get_model("tracker", "Event")
    for table in Table.objects.all():
        known = {name.casefold() for name in table.members.values_list("name", flat=True)}
        order = max(table.members.values_list("order", flat=True), default=0)
        firsts = Player.objects.filter(game__table=table).order_by("game_id", "seat")
        joins = Event.objects.filter(game__table=table, type="join").order_by("game_id", "position")
        names = list(firsts.values_list("name", flat=True))
        names += [data.get("player", "") for data in joins.values_list("data", flat=True)]
        for name in names:
            if name and name.casefold() not in known:
                known.add(name.casefold())
                order += 1
                Member.objects.create(table=table, name=name, order=order)


class Migration(migrations.Migration):
    dependencies = [("tracker", "0010_removed_games")]

    operations = [migrations.RunPython(seat_latecomers_as_members, migrations.RunPython.noop)]
