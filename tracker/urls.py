from django.contrib import admin
from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("g/<str:token>/", views.game, name="game"),
    path("w/<str:token>/", views.watch, name="watch"),
    path("admin/", admin.site.urls),
]
