from django.apps import AppConfig


class TrackerConfig(AppConfig):
    name = "tracker"
    verbose_name = "Rummy score tracker"

    def ready(self):
        # The pushed updates hear of every game's and table's new revision
        # through the models' signals (tracker/live/).
        from . import live  # noqa: F401
