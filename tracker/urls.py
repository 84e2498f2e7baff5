from django.conf import settings
from django.urls import URLPattern, URLResolver, path, re_path
from django.views.i18n import set_language

from .views import calculator, changes, games, live, offline, tables, theme, tv

EDIT, VIEW = {"can_edit": True}, {"can_edit": False}


def edit_and_view_links(edit: str, view: str, screens: list[tuple]) -> list[URLPattern]:
    """The same screens under the edit link (`edit`/<token>/...) and under the view
    link, which serves them read only."""
    return [
        path(f"{edit}/<str:token>/{route}", function, EDIT, name=edit_name)
        for route, function, edit_name, _ in screens
    ] + [
        path(f"{view}/<str:token>/{route}", function, VIEW, name=view_name)
        for route, function, _, view_name in screens
    ]


# A screen: (route, view, its name under the edit link, its name under the view link).
GAME_SCREENS = [
    ("", games.game, "game", "watch"),
    ("live/", live.live, "live", "watch_live"),
    ("game.json", games.download_json, "json", "watch_json"),
    ("game.csv", games.download_csv, "csv", "watch_csv"),
    ("chart.svg", games.chart, "chart", "watch_chart"),
]
TABLE_SCREENS = [
    ("", tables.table_page, "table", "watch_table"),
    ("table.json", tables.download_table, "table_json", "watch_table_json"),
    ("table.csv", tables.download_table_csv, "table_csv", "watch_table_csv"),
]

urlpatterns: list[URLPattern | URLResolver] = [
    path("", games.home, name="home"),
    path("new/", games.new_game, name="new_game"),
    path("import/", games.import_game, name="import_game"),
    path("calculator/", calculator.calculator, name="calculator"),
    # A game's edit link (g/) and view link (w/): the same screens, the view link reads only.
    *edit_and_view_links("g", "w", GAME_SCREENS),
    re_path(r"^g/(?P<token>[^/]+)/qr/(?P<kind>edit|view)\.svg$", games.qr_code, EDIT, name="qr"),
    path("w/<str:token>/qr.svg", games.qr_code, VIEW, name="watch_qr"),
    # The TV screen: the view link's scoreboard read from across the room.
    path("w/<str:token>/tv/", tv.tv_page, {"kind": "game"}, name="watch_tv"),
    path("w/<str:token>/tv/live/", tv.tv_live, {"kind": "game"}, name="watch_tv_live"),
    # Changes to a game, from its edit link. An event is named by its id, which
    # never moves, never by its place in the history.
    path("g/<str:token>/deal/", changes.add_deal, name="add_deal"),
    path("g/<str:token>/event/<int:event_id>/", changes.edit_deal, name="edit_deal"),
    path("g/<str:token>/event/<int:event_id>/delete/", changes.delete_event, name="delete_event"),
    path("g/<str:token>/rejoin/", changes.one_event, {"kind": "rejoin"}, name="rejoin"),
    path("g/<str:token>/join/", changes.join, name="join"),
    path("g/<str:token>/sit-out/", changes.one_event, {"kind": "sit_out"}, name="sit_out"),
    path("g/<str:token>/sit-in/", changes.one_event, {"kind": "sit_in"}, name="sit_in"),
    path("g/<str:token>/leave/", changes.one_event, {"kind": "leave"}, name="leave"),
    path("g/<str:token>/split/", changes.split, name="split"),
    path("g/<str:token>/end/", changes.one_event, {"kind": "end"}, name="end_session"),
    path("g/<str:token>/remove/", changes.remove_game, name="remove_game"),
    path("g/<str:token>/put-back/", changes.put_back, name="put_back"),
    path("g/<str:token>/again/", games.play_again, name="game_again"),
    path("g/<str:token>/count/<int:seat>/", calculator.count_cards, name="count_cards"),
    # A family's table: edit link (t/) and view link (tw/).
    path("tables/new/", tables.new_table, name="new_table"),
    path("tables/import/", tables.import_table, name="import_table"),
    path("t/<str:token>/new/", tables.new_table_game, name="table_new_game"),
    path("t/<str:token>/members/", tables.add_member, name="add_member"),
    path("t/<str:token>/members/<int:member>/remove/", tables.remove_member, name="remove_member"),
    path("t/<str:token>/again/<int:game>/", tables.play_again, name="play_again"),
    path("t/<str:token>/upload/", tables.upload, name="table_upload"),
    *edit_and_view_links("t", "tw", TABLE_SCREENS),
    re_path(
        r"^t/(?P<token>[^/]+)/(?P<kind>wins|money)\.svg$", tables.chart, EDIT, name="table_chart"
    ),
    re_path(
        r"^t/(?P<token>[^/]+)/qr/(?P<kind>edit|view)\.svg$", tables.qr_code, EDIT, name="table_qr"
    ),
    re_path(
        r"^tw/(?P<token>[^/]+)/(?P<kind>wins|money)\.svg$",
        tables.chart,
        VIEW,
        name="watch_table_chart",
    ),
    path("tw/<str:token>/qr.svg", tables.qr_code, VIEW, name="watch_table_qr"),
    path("tw/<str:token>/tv/", tv.tv_page, {"kind": "table"}, name="watch_table_tv"),
    path("tw/<str:token>/tv/live/", tv.tv_live, {"kind": "table"}, name="watch_table_tv_live"),
    # The streams of pushed updates, served by tracker/asgi.py before Django.
    re_path(r"^(?P<kind>g|w|t|tw)/(?P<token>[^/]+)/stream$", live.no_stream, name="no_stream"),
    # The language switch in every page's header (a POST with CSRF).
    path("language/", set_language, name="set_language"),
    # The theme switch at the foot of every page (light, dark, as the phone).
    path("theme/", theme.set_theme, name="set_theme"),
    path("favicon.ico", games.favicon),
    re_path(r"^manifest-(?P<language>[a-z]{2})\.webmanifest$", offline.manifest, name="manifest"),
    # The installed app's splash and bar in the dark theme's colours.
    re_path(
        r"^manifest-(?P<language>[a-z]{2})-dark\.webmanifest$",
        offline.manifest,
        {"theme": "dark"},
        name="manifest_dark",
    ),
    path("sw.js", offline.service_worker, name="service_worker"),
    path("offline/", offline.offline, name="offline"),
]

if settings.ADMIN_ENABLED:  # off by default: no login page for anyone to try (tracker/admin.py)
    from .admin import site

    urlpatterns.append(path("admin/", site.urls))

handler404 = "tracker.views.games.not_found"
