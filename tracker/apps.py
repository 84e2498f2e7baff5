from django.apps import AppConfig
from django.db.models.signals import post_migrate


class TrackerConfig(AppConfig):
    name = "tracker"
    verbose_name = "Rummy score tracker"

    def ready(self):
        # The pushed updates hear of every game's and table's new revision
        # through the models' signals (tracker/live/).
        from . import live  # noqa: F401
        from .shared_key import record_after_migrate

        # One SECRET_KEY for every server on the database (tracker/shared_key.py).
        post_migrate.connect(record_after_migrate, sender=self)
