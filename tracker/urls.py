from django.contrib import admin
from django.urls import path, re_path
from django.views.i18n import set_language

from . import offline, views
from . import table_views as tv

urlpatterns = [
    path("", views.home, name="home"),
    path("new/", views.new_game, name="new_game"),
    path("import/", views.import_game, name="import_game"),
    path("calculator/", views.calculator, name="calculator"),
    path("g/<str:token>/", views.game, name="game"),
    path("g/<str:token>/deal/", views.add_deal, name="add_deal"),
    # An event is named by its id, which never moves, never by its place in the history.
    path("g/<str:token>/event/<int:event_id>/", views.edit_deal, name="edit_deal"),
    path("g/<str:token>/event/<int:event_id>/delete/", views.delete_event, name="delete_event"),
    path("g/<str:token>/rejoin/", views.rejoin, name="rejoin"),
    path("g/<str:token>/join/", views.join, name="join"),
    path("g/<str:token>/sit-out/", views.sit_out, name="sit_out"),
    path("g/<str:token>/sit-in/", views.sit_in, name="sit_in"),
    path("g/<str:token>/leave/", views.leave, name="leave"),
    path("g/<str:token>/count/<int:seat>/", views.count_cards, name="count_cards"),
    path("g/<str:token>/split/", views.split, name="split"),
    path("g/<str:token>/end/", views.end_session, name="end_session"),
    path("g/<str:token>/live/", views.live, name="live"),
    path("g/<str:token>/game.json", views.download_json, {"can_edit": True}, name="json"),
    path("g/<str:token>/game.csv", views.download_csv, {"can_edit": True}, name="csv"),
    path("g/<str:token>/chart.svg", views.chart, {"can_edit": True}, name="chart"),
    re_path(r"^g/(?P<token>[^/]+)/qr/(?P<kind>edit|view)\.svg$", views.qr_code, name="qr"),
    path("w/<str:token>/", views.watch, name="watch"),
    path("w/<str:token>/live/", views.watch_live, name="watch_live"),
    path("w/<str:token>/game.json", views.download_json, {"can_edit": False}, name="watch_json"),
    path("w/<str:token>/game.csv", views.download_csv, {"can_edit": False}, name="watch_csv"),
    path("w/<str:token>/chart.svg", views.chart, {"can_edit": False}, name="watch_chart"),
    path("w/<str:token>/qr.svg", views.watch_qr_code, name="watch_qr"),
    path("tables/new/", tv.new_table, name="new_table"),
    path("tables/import/", tv.import_table, name="import_table"),
    path("t/<str:token>/", tv.table_page, name="table"),
    path("t/<str:token>/new/", tv.new_table_game, name="table_new_game"),
    path("t/<str:token>/members/", tv.add_member, name="add_member"),
    path("t/<str:token>/members/<int:member>/remove/", tv.remove_member, name="remove_member"),
    path("t/<str:token>/again/<int:game>/", tv.play_again, name="play_again"),
    path("t/<str:token>/upload/", tv.upload, name="table_upload"),
    path("t/<str:token>/table.json", tv.download, {"can_edit": True}, name="table_json"),
    re_path(
        r"^t/(?P<token>[^/]+)/(?P<kind>wins|money)\.svg$",
        tv.chart,
        {"can_edit": True},
        name="table_chart",
    ),
    re_path(r"^t/(?P<token>[^/]+)/qr/(?P<kind>edit|view)\.svg$", tv.qr_code, name="table_qr"),
    path("tw/<str:token>/", tv.watch_table, name="watch_table"),
    path("tw/<str:token>/table.json", tv.download, {"can_edit": False}, name="watch_table_json"),
    re_path(
        r"^tw/(?P<token>[^/]+)/(?P<kind>wins|money)\.svg$",
        tv.chart,
        {"can_edit": False},
        name="watch_table_chart",
    ),
    path("tw/<str:token>/qr.svg", tv.watch_qr_code, name="watch_table_qr"),
    # The English / हिंदी switch in every page's header (a POST with CSRF).
    path("language/", set_language, name="set_language"),
    path("favicon.ico", views.favicon),
    path("sw.js", offline.service_worker, name="service_worker"),
    path("offline/", offline.offline, name="offline"),
    path("admin/", admin.site.urls),
]

handler404 = "tracker.views.not_found"
