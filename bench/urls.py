"""The app's URLs plus `bench/baseline/`: the least a Django view can do here."""

from django.http import HttpResponse
from django.urls import path

from tracker.models import Game
from tracker.urls import handler404
from tracker.urls import urlpatterns as app_urlpatterns

__all__ = ["handler404", "urlpatterns"]


def baseline(request):
    """Read one game row from the same database and answer a few bytes: the one-row baseline."""
    game = Game.objects.only("id", "revision").order_by("pk").first()
    return HttpResponse(f"ok {game.revision if game else '-'}\n", content_type="text/plain")


urlpatterns = [*app_urlpatterns, path("bench/baseline/", baseline)]
