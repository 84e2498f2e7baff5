from django.contrib import admin

from .models import Event, Game, Member, Player, Table


class PlayerInline(admin.TabularInline):
    model = Player
    extra = 0


class EventInline(admin.TabularInline):
    model = Event
    extra = 0
    fields = ["position", "serial", "type", "data"]


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["name", "format", "revision", "created_at", "updated_at"]
    list_filter = ["format"]
    search_fields = ["name", "players__name"]
    readonly_fields = ["edit_token", "view_token", "created_at", "updated_at"]
    inlines = [PlayerInline, EventInline]


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["game", "position", "serial", "type", "created_at"]
    list_filter = ["type"]


class MemberInline(admin.TabularInline):
    model = Member
    extra = 0


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ["name", "revision", "created_at", "updated_at"]
    search_fields = ["name", "members__name"]
    readonly_fields = ["edit_token", "view_token", "created_at", "updated_at"]
    inlines = [MemberInline]
