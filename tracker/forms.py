"""The forms: what was typed, checked through Django's forms and turned into
events and table rules for the rules engine.

A form checks only what the engine cannot see (is it a number at all, was a
field sent twice?); every rule is left to the rules engine (`tracker/rules/`),
whose refusals are put back beside the field they name (`refuse`), so the
pages and the import command refuse with the same words. Every message goes
through gettext.

Field names use seats (`winner` = seat, `r<seat>` = a result's kind,
`p<seat>` = a typed figure, `s<seat>` = a typed share), never names, so any
name is safe in a form.
"""

import re

from django import forms
from django.core.validators import ProhibitNullCharactersValidator
from django.utils.translation import gettext, gettext_noop

from . import i18n, rules
from .documents import game_json
from .models import MemberError, Table, check_member_name
from .screens.scoreboard import said

# One tap picks the format: (key, label, format, fixed rules), from the registry.
FORMAT_CHOICES = [
    (preset.key, preset.label, spec.name, preset.fixed) for preset, spec in rules.PRESETS.values()
]
FORMATS_BY_KEY = {key: (label, fmt, fixed) for key, label, fmt, fixed in FORMAT_CHOICES}

# Table rules the new-game form shows, per format, in the order shown.
TABLE_RULES = {name: list(spec.form_rules) for name, spec in rules.FORMATS.items()}
RULE_INPUTS = {name: dict(spec.rule_inputs) for name, spec in rules.FORMATS.items()}
_ALL_INPUTS = {key: i for inputs in RULE_INPUTS.values() for key, i in inputs.items()}
ALL_RULES = sorted(_ALL_INPUTS)
FLAG_RULES = {key for key, i in _ALL_INPUTS.items() if i.kind == "flag"}
# The rules typed beside a preset ("Pool, other limit"): read from every form.
TYPED_RULES = sorted({p.typed for p, _ in rules.PRESETS.values() if p.typed})
MAX_TYPED = 16  # characters: longer than any figure or choice the rules allow ("winner_collects")
# The kind of a result typed as a number, beside the result words (first_drop, ...).
TYPED = rules.TYPED_RESULT


def format_rules(key, typed=None):
    """(format, rules) for a format key, with the rule typed beside it (a limit, a count)."""
    preset, spec = rules.PRESETS[key]
    chosen = dict(preset.fixed)
    if preset.typed and typed not in (None, ""):
        chosen[preset.typed] = typed
    return spec.name, chosen


def defaults_for(key, typed=None):
    """Every table rule's default for a format key, as the engine fills them."""
    fmt, chosen = format_rules(key, typed)
    try:
        return rules.normalize_rules(fmt, chosen)
    except rules.RuleError:
        return rules.normalize_rules(fmt, format_rules(key)[1])


def capitalized(text):
    """A label's first letter a capital (Hindi has none: unchanged)."""
    return text[:1].upper() + text[1:]


def shown(value):
    """A rule as the form shows it."""
    if value is None or value is False:
        return ""
    if value is True:
        return "on"
    return str(value)


def parse_whole(text):
    text = (text or "").strip()
    if len(text) > MAX_TYPED:
        raise ValueError
    return int(text)


def posted(data, key):
    """Every value `data` has for `key` (a form's field may be sent twice)."""
    return data.getlist(key) if hasattr(data, "getlist") else [data[key]] if key in data else []


class TextField(forms.CharField):
    """A typed box, cut to what any legitimate value needs: a longer one is refused
    by the rule that reads it, never with a message about its length."""

    def __init__(self, cut=MAX_TYPED, **kwargs):
        super().__init__(required=False, **kwargs)
        self.cut = cut
        # A control character is the rules' to refuse, in their words.
        self.validators = [
            v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)
        ]

    def to_python(self, value):
        return super().to_python(value)[: self.cut]


class FirstErrors:
    """`form.first_error(field)`: a field's message, as the pages show one beside its box."""

    def first_error(self, field):
        found = self.errors.get(field)
        return found[0] if found else None


# ---------------------------------------------------------------- a deal


class DealForm(FirstErrors, forms.Form):
    """The deal form: a winner, and for every other player dealt in a typed
    figure or a word (a drop, full count, wrong show). What the format offers
    (the words, the "went rummy" mark, the hand calculator) comes from its
    format object. `event` is the deal for the engine once the form is valid
    (None while a warning waits to be confirmed)."""

    winner = TextField(cut=4)
    rummy = forms.BooleanField(required=False)
    confirm = TextField(cut=1)

    typed_kind = TYPED

    def __init__(self, state, playing, data=None, event=None, values=None):
        """`data`: a deal posted to be saved; `event`: a stored deal to correct;
        `values`: a deal typed against an older version, shown again unchecked."""
        initial = values if values is not None else self._initial(state, playing, event)
        super().__init__(data, initial=initial)
        self.state = state
        self.spec = state.spec
        self.playing = playing  # the players dealt this deal
        self.warnings = []
        self.event = None
        for p in playing:
            self.fields[f"r{p.seat}"] = TextField()
            self.fields[f"p{p.seat}"] = TextField()

    @property
    def blank(self):
        """A fresh form for the next deal: nothing typed, nothing refused."""
        return not self.is_bound and not self.initial

    @staticmethod
    def _initial(state, playing, event):
        """A stored deal as its form shows it (a correction)."""
        if event is None:
            return {}
        winner = state.player(event["winner"])
        initial = {"winner": str(winner.seat) if winner else ""}
        initial["rummy"] = event.get("rummy") is True
        for p in playing:
            result = event.get("results", {}).get(p.name)
            if isinstance(result, str):
                initial[f"r{p.seat}"] = result
            elif result is not None:
                initial[f"p{p.seat}"] = str(result)
        return initial

    def kind(self, player):
        kind = self[f"r{player.seat}"].value() or TYPED
        return kind if kind in rules.RESULT_WORDS else TYPED

    def typed(self, player):
        return (self[f"p{player.seat}"].value() or "").strip()[:MAX_TYPED]

    @property
    def nothing_typed(self):
        """A form posted as it was shown blank: no winner, no result, no mark."""
        data = self.data
        return (
            not (data.get("winner") or data.get("rummy"))
            and all((data.get(f"r{p.seat}") or TYPED) == TYPED for p in self.state.players)
            and not any((data.get(f"p{p.seat}") or "").strip() for p in self.state.players)
        )

    def clean(self):
        """Every refusal at once: each result is asked of the engine on its own,
        so each box gets its own message."""
        self._refuse_what_no_form_sends()
        by_seat = {str(p.seat): p for p in self.playing}
        winner = by_seat.get(self.cleaned_data.get("winner", ""))
        if winner is None and not self.has_error("winner"):
            self.add_error("winner", gettext("Tap the player who won the deal"))
        results = {}
        for p in self.playing:
            box = f"p{p.seat}"
            if p is winner or self.has_error(box):
                continue
            kind, typed = self.kind(p), self.typed(p)
            if kind != TYPED:
                result = kind
            elif typed == "":
                if winner is not None:  # else this blank may be the winner's
                    self.add_error(box, f"{p.name}: {said(self.spec.missing_result)}")
                continue
            else:
                try:
                    result = parse_whole(typed)
                except ValueError:
                    self.add_error(
                        box,
                        gettext("%(name)s: %(noun)s must be a whole number")
                        % {"name": p.name, "noun": self.result_noun},
                    )
                    continue
            try:
                self.spec.result(self.state, p, result, f"results.{p.name}")
            except rules.RuleError as error:
                self.add_error(box, i18n.for_player(error))
                continue
            results[p.name] = result
        if self.errors or winner is None:
            return
        for name, result in results.items():
            warning = self.spec.drop_warning(self.state, self.state.player(name), result)
            if warning:
                self.warnings.append(i18n.phrase(warning))
        if self.warnings and self.cleaned_data.get("confirm") != "1":
            return
        self.event = {"type": "deal", "winner": winner.name, "results": results}
        if self.cleaned_data.get("rummy"):
            self.event["rummy"] = True  # the engine refuses it where going rummy is off

    def _refuse_what_no_form_sends(self):
        """A field given twice, a result for a player not dealt in (rules.md:
        refused, not ignored)."""
        data = self.data
        if len(posted(data, "winner")) > 1:
            self.add_error("winner", gettext("Tap one winner only: the deal named more than one"))
        if len(posted(data, "rummy")) > 1:
            self.add_error("rummy", gettext("Went rummy was sent twice: tick it once"))
        for p in self.playing:
            if len(posted(data, f"r{p.seat}")) > 1 or len(posted(data, f"p{p.seat}")) > 1:
                self.add_error(
                    f"p{p.seat}", gettext("%(name)s: give one result only") % {"name": p.name}
                )
        dealt = {p.seat for p in self.playing}
        for p in self.state.players:
            if p.seat in dealt:
                continue
            typed = (data.get(f"p{p.seat}") or "").strip()
            if typed or (data.get(f"r{p.seat}") or TYPED) != TYPED:
                why = said(self.spec.not_playing_for(self.state, p))
                self.add_error(
                    None,
                    gettext("%(name)s %(why)s and has no result") % {"name": p.name, "why": why},
                )

    def refuse(self, error):
        """Put an engine refusal beside the player (or the winner, or the mark) it names."""
        player = self.state.player(error.player) if error.player else None
        if player is not None and f"p{player.seat}" in self.fields:
            self.add_error(f"p{player.seat}", i18n.for_player(error))
        elif error.field in ("winner", "rummy"):
            self.add_error(error.field, i18n.sentence(error))
        else:
            self.add_error(None, i18n.sentence(error))

    @property
    def needs_confirm(self):
        """A warning to read before saving (a drop for a player who must play)."""
        return self.is_bound and bool(self.warnings) and not self.errors and self.event is None

    @property
    def prompt(self):
        return gettext(self.spec.deal_prompt)

    @property
    def placeholder(self):
        return gettext(self.spec.result_short)

    @property
    def result_noun(self):
        return gettext(self.spec.result_noun)

    @property
    def calculator(self):
        """Whether "Count cards" is offered (not where every card counts)."""
        return self.spec.calculator

    @property
    def rummy_offered(self):
        return self.spec.rummy_mark(self.state.rules)

    @property
    def rummy_ticked(self):
        return bool(self["rummy"].value())

    @property
    def playing_list(self):
        """ "Ravi and Kiran", in the reader's language."""
        return i18n.phrase(rules.table.and_list([p.name for p in self.playing]))

    def rows(self):
        """One row per player dealt in, for the template."""
        winner = self["winner"].value()
        noun = self.result_noun
        return [
            {
                "player": p,
                "seat": str(p.seat),
                "result_label": gettext("%(name)s's result") % {"name": p.name},
                "points_label": gettext("%(name)s's %(noun)s") % {"name": p.name, "noun": noun},
                "count_label": gettext("Count %(name)s's cards") % {"name": p.name},
                "won": winner == str(p.seat),
                "kind": self.kind(p),
                "typed": self.typed(p),
                "error": self.first_error(f"p{p.seat}"),
            }
            for p in self.playing
        ]

    def buttons(self):
        """The one-tap results with this game's values: (word, label, value), as shown."""
        return [
            (word, gettext(label), str(value))
            for word, label, value in self.spec.result_buttons(self.state.rules)
        ]


# ---------------------------------------------------------------- a new player


class JoinForm(FirstErrors, forms.Form):
    """ "Add a player": the new player's name, and the seat they sit after
    (a seated player's name, or blank for after the last seat). The engine
    checks both; `event` is the join for it once the form is valid."""

    name = TextField(cut=100)
    after = TextField(cut=100)

    def __init__(self, state, data=None, name_needed=True):
        super().__init__(data)
        self.state = state
        self.name_needed = name_needed
        self.event = None

    @property
    def seats(self):
        """The seats a new player may sit after, in seat order: (name, "After <name>")."""
        return [
            (p.name, gettext("After %(label)s") % {"label": p.name}) for p in self.state.players
        ]

    def clean(self):
        name = self.cleaned_data.get("name", "")
        if self.name_needed and not name.strip():
            self.add_error("name", gettext("Type the new player's name"))
            return
        after = self.cleaned_data.get("after") or None
        self.event = {"type": "join", "player": name, "after": after}

    def refuse(self, error):
        where = "after" if error.field == "after" else "name"
        message = i18n.refusal(error)
        typed = " ".join(self.cleaned_data.get("name", "").split())
        if not error.message.startswith(typed):
            message = message[0].upper() + message[1:]  # never a name as typed: "asha ..."
        self.add_error(where, message)


# ---------------------------------------------------------------- a split


class SplitForm(FirstErrors, forms.Form):
    """How the pot is split between the players still in: by drops left,
    equally, or in typed shares (one box a player)."""

    METHODS = [
        ("drops", gettext_noop("By drops left")),
        ("equal", gettext_noop("Equally")),
        ("custom", gettext_noop("Typed amounts")),
    ]

    method = TextField()

    def __init__(self, state, data=None):
        super().__init__(data)
        self.state = state
        self.players = [p for p in state.players if p.is_in]
        self.shares = None
        for p in self.players:
            self.fields[f"s{p.seat}"] = TextField()

    @property
    def chosen(self):
        method = (self.data.get("method") if self.is_bound else None) or "drops"
        return method if method in rules.SPLIT_METHODS else "drops"

    def typed(self):
        """The typed shares by name (custom only)."""
        if self.chosen != "custom":
            return None
        data = self.data
        return {p.name: (data.get(f"s{p.seat}") or "").strip()[:MAX_TYPED] for p in self.players}

    def check(self, refuse_blank):
        """The shares the engine gives; each typed share's refusal beside its box.
        `refuse_blank`: a split being made (not just shown) is refused when the
        shares do not stand; a preview says so only of what was typed."""
        typed = self.typed()
        self.full_clean()
        seats = {p.name: f"s{p.seat}" for p in self.players}
        if typed:
            for name, value in typed.items():  # each share asked on its own, the others 0
                if value == "":
                    continue
                trial = {n: (value if n == name else "0") for n in typed}
                try:
                    self.state.split_shares("custom", trial)
                except rules.RuleError as error:
                    if error.player == name:
                        self.add_error(seats[name], i18n.sentence(error))
        refused = None
        try:
            self.shares = self.state.split_shares(self.chosen, typed)
        except rules.RuleError as error:
            if refuse_blank or any(typed.values() if typed else []):
                refused = error
        box = seats.get(refused.player) if refused is not None else None
        if box and self.chosen == "custom" and not self.has_error(box):
            self.add_error(box, i18n.sentence(refused))
        if any(self.has_error(box) for box in seats.values()):  # each beside its box
            self.add_error(None, capitalized(gettext("check the shares marked above")))
        elif refused is not None:
            self.add_error(None, capitalized(i18n.for_player(refused)))
        return not self.errors

    @property
    def event(self):
        event = {"type": "split", "method": self.chosen}
        if self.chosen == "custom":
            event["shares"] = self.typed()
        return event

    def rows(self):
        typed = self.typed() or {}
        return [
            {
                "player": p,
                "typed": typed.get(p.name, ""),
                "share": (self.shares or {}).get(p.name),
                "error": self.first_error(f"s{p.seat}"),
            }
            for p in self.players
        ]


# ---------------------------------------------------------------- a new game


class NewGameForm(FirstErrors, forms.Form):
    """The new-game form: format, seats, first dealer and table rules.

    The seats are a list the player edits (add, remove, move) by posting the
    form back (`edit_seats`), which works the same with and without
    JavaScript. A rule not posted keeps the default it was filled with for
    the format the form showed (`rules_for`); a rule left at that default
    takes the new format's own when the format changes.
    """

    # The fields a refusal is shown beside; the rest of what is posted (the
    # seats as a list, the dealer, the rules filled for a format) is read in
    # __init__, as the seat buttons need it before anything is checked.
    format = TextField()
    name = TextField(cut=200)
    players = forms.Field(required=False)  # the seats as a whole
    seats = forms.Field(required=False)  # each seat's own, shown beside it (`seat_errors`)

    def __init__(self, data=None, values=None):
        """`data`: a form posted to be checked; `values`: a form posted to be
        shown again (a seat button), not checked."""
        super().__init__(data)
        for key in [*ALL_RULES, *TYPED_RULES]:
            self.fields.setdefault(key, TextField())
        self.seat_errors = {}
        data = data if data is not None else values
        if data is None:
            self.key = FORMAT_CHOICES[0][0]
            self.typed = {p.typed: p.initial for p, _ in rules.PRESETS.values() if p.typed}
            self.game_name = ""
            self.players_typed = ["", "", "", ""]
            self.dealer_seat = 0
            self.rules_for_key = self.key
            self.rule_values = {k: shown(v) for k, v in defaults_for(self.key).items()}
            return
        self.key = data.get("format", FORMAT_CHOICES[0][0])
        self.unknown_format = self.key not in FORMATS_BY_KEY
        if self.unknown_format:
            self.key = FORMAT_CHOICES[0][0]
        self.typed = {key: (data.get(key) or "").strip()[:MAX_TYPED] for key in TYPED_RULES}
        self.game_name = (data.get("name") or "")[:200]
        self.players_typed = [str(p)[:200] for p in posted(data, "player")][: rules.MAX_PLAYERS + 1]
        try:
            self.dealer_seat = int(data.get("dealer", 0))
        except ValueError:
            self.dealer_seat = 0
        self.rules_for_key = data.get("rules_for", self.key)
        if self.rules_for_key not in FORMATS_BY_KEY:
            self.rules_for_key = self.key
        # A rule not posted at all keeps the default it was filled with (a blank
        # box is posted, and means "none" for a rule that may be empty).
        filled = {k: shown(v) for k, v in self._defaults(self.rules_for_key).items()}
        self.rule_values = {
            key: (data.get(key) or "").strip()[:MAX_TYPED] if key in data else filled.get(key, "")
            for key in ALL_RULES
        }
        # An unticked box is not posted at all: read the boxes only when the
        # form that shows them was posted.
        rules_shown = bool(data.get("rules_shown"))
        for key in FLAG_RULES:
            if rules_shown:
                self.rule_values[key] = "on" if data.get(key) else ""
            else:
                self.rule_values[key] = filled.get(key, "")

    @property
    def fmt(self):
        return FORMATS_BY_KEY[self.key][1]

    @property
    def preset(self):
        """The preset tapped: its typed rule (`preset.typed`) is shown beside it."""
        return rules.PRESETS[self.key][0]

    @property
    def typed_value(self):
        return self.typed.get(self.preset.typed, "")

    @property
    def format_errors(self):
        """Refusals shown under the format: the format itself and the rule typed beside it
        (unless the table rules show that rule, where its refusal then goes)."""
        fields = ["format"] + [k for k in TYPED_RULES if k not in TABLE_RULES[self.fmt]]
        return [message for field in fields for message in self.errors.get(field, [])]

    # -- the seat list, edited by posting the form back

    def edit_seats(self, action):
        """Apply an add / remove / up / down button; returns True if it was one."""
        what, _, where = (action or "").partition("-")
        try:
            seat = int(where) if where else None
        except ValueError:
            return False
        players = self.players_typed
        if what == "add" and len(players) < rules.MAX_PLAYERS:
            players.append("")
        elif what == "remove" and seat is not None and 0 <= seat < len(players):
            players.pop(seat)
            if self.dealer_seat >= len(players) or self.dealer_seat == seat:
                self.dealer_seat = 0
            elif self.dealer_seat > seat:
                self.dealer_seat -= 1
        elif what in ("up", "down") and seat is not None and 0 <= seat < len(players):
            other = seat - 1 if what == "up" else seat + 1
            if 0 <= other < len(players):
                players[seat], players[other] = players[other], players[seat]
                if self.dealer_seat in (seat, other):
                    self.dealer_seat = other if self.dealer_seat == seat else seat
        elif what != "refresh":
            return False
        if what == "refresh" or self.rules_for_key != self.key:
            self._refill_rules()
        return True

    def _refill_rules(self):
        """Show the new format's defaults where the rules were left as they were."""
        old = {k: shown(v) for k, v in self._defaults(self.rules_for_key).items()}
        new = {k: shown(v) for k, v in self._defaults(self.key).items()}
        for key in self.rule_values:
            if self.rule_values[key] == old.get(key, self.rule_values[key]):
                self.rule_values[key] = new.get(key, "")
        self.rules_for_key = self.key

    def _defaults(self, key):
        preset = rules.PRESETS[key][0]
        typed = self.typed.get(preset.typed) or None
        if typed is not None and not preset.decimal:
            try:
                typed = int(typed)
            except ValueError:
                typed = None
        return defaults_for(key, typed)

    # -- checking

    def clean(self):
        """Every refusal at once, each beside its field: the format, each rule
        the engine refuses, each seat (`seats`)."""
        if getattr(self, "unknown_format", False):
            self.add_error("format", gettext("Pick a format"))
        self.fmt_chosen, self.rules_chosen = self._table_rules()
        self._check_rules(self.fmt_chosen, self.rules_chosen)
        self.names, self.first_dealer = self.seated()

    def _table_rules(self):
        """The rules to give the engine: typed values, less those left at the defaults
        of the format they were filled for (so a format changed without JavaScript
        takes its own defaults)."""
        fmt, chosen = self._chosen()
        old = {k: shown(v) for k, v in self._defaults(self.rules_for_key).items()}
        inputs = RULE_INPUTS[fmt]
        for key in TABLE_RULES[fmt]:
            typed = self.rule_values.get(key, "")
            if inputs[key].kind == "flag":
                # A checkbox left as filled keeps the default, as any other rule.
                if typed != old.get(key, typed):
                    chosen[key] = typed == "on"
                continue
            optional = inputs[key].optional
            if typed == old.get(key, typed) or (typed == "" and not optional):
                continue
            if typed == "" and optional:
                chosen[key] = None
            elif inputs[key].kind == "whole":
                try:
                    chosen[key] = parse_whole(typed)
                except ValueError:
                    label = capitalized(gettext(rules.RULE_LABELS[key]))
                    message = gettext("%(label)s must be a whole number") % {"label": label}
                    self.add_error(key, message)
            else:
                chosen[key] = typed
        return fmt, chosen

    def _chosen(self):
        preset = self.preset
        typed = None
        if preset.typed:
            text = self.typed.get(preset.typed, "")
            label = gettext(preset.typed_label)
            if preset.decimal:
                typed = text or None  # an amount: the engine checks it, in its words
            else:
                try:
                    typed = parse_whole(text)
                except ValueError:
                    message = gettext("Type the %(label)s, a whole number")
                    self.add_error(preset.typed, message % {"label": label.lower()})
        return format_rules(self.key, typed)

    def seated(self):
        """The typed names, trailing blank seats dropped, and the first dealer's name.

        Every seat's refusal at once, each beside its seat: a blank seat before a
        typed name (it would silently make a game with one seat fewer than the
        table sees), every blank seat while too few are named, and a name typed
        at an earlier seat already.
        """
        names = [" ".join(p.split()) for p in self.players_typed]
        last = max((i for i, n in enumerate(names) if n), default=-1)
        too_few = sum(1 for n in names if n) < rules.MIN_PLAYERS
        earlier = set()
        for i, n in enumerate(names):
            if not n and (i < last or too_few):
                self.seat_errors[i] = gettext(
                    "Seat %(n)s has no name: type one, or remove the seat with ✕"
                ) % {"n": i + 1}
            elif n and n.casefold() in earlier:
                message = gettext("%(name)s is at the table twice: names must differ")
                self.seat_errors[i] = capitalized(message % {"name": n})
            elif n:
                earlier.add(n.casefold())
        for message in self.seat_errors.values():
            self.add_error("seats", message)
        dealer = names[self.dealer_seat] if 0 <= self.dealer_seat < len(names) else ""
        named = [n for n in names if n]
        return named, dealer if dealer else (named[0] if named else None)

    def refuse(self, error):
        """Put an engine refusal beside its field (a rule, the players, the name)."""
        field = (error.field or "").removeprefix("rules.")
        if field.startswith("players") or field == "first_dealer":
            field = "players"
        if field not in self.fields:
            field = None
        if not self.has_error(field):
            self.add_error(field, i18n.sentence(error))

    def _check_rules(self, fmt, chosen):
        """Every refusal of the typed table rules at once, each beside its rule.

        The engine names the first bad rule; that rule is put back to its
        default and the rest asked again, so every bad rule is named.
        """
        chosen = dict(chosen)
        for _ in range(len(chosen) + 1):
            try:
                rules.normalize_rules(fmt, dict(chosen))
                return
            except rules.RuleError as error:
                key = (error.field or "").removeprefix("rules.")
                self.refuse(error)
                if key not in chosen:
                    return
                del chosen[key]

    @property
    def seat_rows(self):
        """(index, name, error) per seat, for the template."""
        return [(i, n, self.seat_errors.get(i)) for i, n in enumerate(self.players_typed)]

    @property
    def first_errors(self):
        """Every refusal, for the summary beside the Start button."""
        messages = [m for errors in self.errors.values() for m in errors]
        return list(dict.fromkeys(messages))

    def rule_fields(self):
        """(key, label, value, help, error) for the table rules of the chosen format."""
        out = []
        inputs = RULE_INPUTS[self.fmt]
        for key in TABLE_RULES[self.fmt]:
            shown_as = inputs[key]
            error = self.first_error(key)
            described_by = [f"help-{key}"] if shown_as.help else []
            described_by += [f"err-rule-{key}"] if error else []
            out.append(
                {
                    "key": key,
                    "label": capitalized(gettext(rules.RULE_LABELS[key])),
                    "value": self.rule_values.get(key, ""),
                    "help": gettext(shown_as.help) if shown_as.help else "",
                    "error": error,
                    "described_by": " ".join(described_by),
                    "flag": shown_as.kind == "flag",
                    "choices": [(v, gettext(text)) for v, text in shown_as.choices] or None,
                    "numeric": shown_as.kind == "whole",
                }
            )
        return out


def member_id(raw):
    """A member's number as the form posts it, or None."""
    return int(raw) if isinstance(raw, str) and re.fullmatch(r"[0-9]{1,12}", raw) else None


class TableGameForm(NewGameForm):
    """The new-game form with seats picked from the table's members, in their
    order. A fresh form ticks `ticked` (the members of the table's last game)."""

    def __init__(self, members, data=None, values=None, ticked=None):
        super().__init__(data, values)
        self.members = members
        data = data if data is not None else values
        if data is None:
            # No game yet: everyone (a game seats at most MAX_PLAYERS).
            wanted = set(ticked or []) or {m.pk for m in members[: rules.MAX_PLAYERS]}
            self.chosen = {m.pk for m in members if m.pk in wanted}
            self.dealer_id = next((m.pk for m in members if m.pk in self.chosen), None)
            self.unknown = False
            return
        ids = {member_id(raw) for raw in posted(data, "seat")[:200]}
        self.chosen = ids - {None}
        self.dealer_id = member_id(data.get("dealer"))
        self.unknown = bool(ids - {m.pk for m in members})  # None: not a member's number

    def seated(self):
        if self.unknown:
            self.add_error("players", gettext("That seat is not a member of this table"))
        names = [m.name for m in self.members if m.pk in self.chosen]
        dealer = next((m.name for m in self.members if m.pk == self.dealer_id), None)
        if dealer not in names:
            dealer = names[0] if names else None
        return names, dealer

    def seat_rows(self):
        return [
            {"member": m, "chosen": m.pk in self.chosen, "dealer": m.pk == self.dealer_id}
            for m in self.members
        ]


# ---------------------------------------------------------------- a table


class NewTableForm(FirstErrors, forms.Form):
    """A new family table: its name and its members, one a line. Every refusal
    at once, each beside its box."""

    name = TextField(cut=200)
    members = TextField(cut=5000)

    def clean_name(self):
        try:
            name = game_json.check_name(self.cleaned_data["name"])
        except rules.RuleError as error:
            raise forms.ValidationError(i18n.sentence(error)) from None
        if not name:
            raise forms.ValidationError(gettext("Give the table a name"))
        return name

    def clean_members(self):
        try:
            return Table.check_members(self.cleaned_data["members"].splitlines())
        except MemberError as error:
            raise forms.ValidationError(error.message) from None


class MemberForm(FirstErrors, forms.Form):
    """One more member of a table."""

    name = TextField(cut=200)

    def clean_name(self):
        try:
            return check_member_name(self.cleaned_data["name"])
        except MemberError as error:
            raise forms.ValidationError(error.message) from None
