from django.contrib import admin
from django.urls import path, re_path

from . import offline, views

urlpatterns = [
    path("", views.home, name="home"),
    path("new/", views.new_game, name="new_game"),
    path("import/", views.import_game, name="import_game"),
    path("calculator/", views.calculator, name="calculator"),
    path("g/<str:token>/", views.game, name="game"),
    path("g/<str:token>/deal/", views.add_deal, name="add_deal"),
    path("g/<str:token>/deal/<int:position>/", views.edit_deal, name="edit_deal"),
    path("g/<str:token>/event/<int:position>/delete/", views.delete_event, name="delete_event"),
    path("g/<str:token>/rejoin/", views.rejoin, name="rejoin"),
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
    path("favicon.ico", views.favicon),
    path("sw.js", offline.service_worker, name="service_worker"),
    path("offline/", offline.offline, name="offline"),
    path("admin/", admin.site.urls),
]

handler404 = "tracker.views.not_found"
