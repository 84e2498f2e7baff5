"""The admin, for the server's owner: mounted at admin/ only with ADMIN_ENABLED
(tracker/urls.py), its logins throttled per address, and every model read-only.

Read-only, because a game's history changes only through the model methods that
move its revision (Game.add_event, replace_event, delete_event ...): a row
edited here would change what a game replays to behind the engine's back, with
no phone told and every form made against it still taken as current. So the
admin shows tables, games, their players and events, and changes nothing.
"""

from django.contrib import admin
from django.http import HttpResponse
from django.utils.translation import gettext, gettext_noop

from . import allowance
from .models import Event, Game, Member, Player, Table

TOO_MANY_LOGINS = gettext_noop(
    "Too many attempts to log in from this address: try again in an hour."
)


class AdminSite(admin.AdminSite):
    """Django's admin, each login attempt charged to the address it came from."""

    site_header = "Rummy score tracker"

    def login(self, request, extra_context=None):
        if request.method == "POST":
            try:  # counted before the password is checked: that check is what costs
                allowance.take_one(allowance.client_key(request), "logins")
            except allowance.Spent:
                text = gettext(TOO_MANY_LOGINS)
                return HttpResponse(text, status=429, content_type="text/plain; charset=utf-8")
        return super().login(request, extra_context)


site = AdminSite(name="admin")


class ReadOnly:
    """Shown, never added, changed or deleted here (the module's docstring says why)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class PlayerInline(ReadOnly, admin.TabularInline):
    model = Player
    extra = 0


class EventInline(ReadOnly, admin.TabularInline):
    model = Event
    extra = 0
    fields = ["position", "serial", "type", "data"]


@admin.register(Game, site=site)
class GameAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["name", "format", "revision", "created_at", "updated_at"]
    list_filter = ["format"]
    search_fields = ["name", "players__name"]
    inlines = [PlayerInline, EventInline]


@admin.register(Event, site=site)
class EventAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["game", "position", "serial", "type", "created_at"]
    list_filter = ["type"]


@admin.register(Player, site=site)
class PlayerAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["name", "game", "seat"]
    search_fields = ["name"]


class MemberInline(ReadOnly, admin.TabularInline):
    model = Member
    extra = 0


@admin.register(Table, site=site)
class TableAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["name", "revision", "created_at", "updated_at"]
    search_fields = ["name", "members__name"]
    inlines = [MemberInline]


@admin.register(Member, site=site)
class MemberAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["name", "table", "order"]
    search_fields = ["name"]
