"""Forms turn what was typed into events and table rules for the rules engine.

They check only what the engine cannot see (is it a number at all?); every
rule is left to the rules engine (`tracker/rules/`), whose refusals are put back beside the field
they name, so the pages and the import command refuse with the same words.
"""

from html import escape

from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext

from . import i18n, rules
from .urltag import cached_reverse

# One tap picks the format: (key, label, format, fixed rules), from the registry.
FORMAT_CHOICES = [
    (preset.key, preset.label, spec.name, preset.fixed) for preset, spec in rules.PRESETS.values()
]
FORMATS_BY_KEY = {key: (label, fmt, fixed) for key, label, fmt, fixed in FORMAT_CHOICES}

# Table rules the new-game form shows, per format, in the order shown.
TABLE_RULES = {name: list(spec.form_rules) for name, spec in rules.FORMATS.items()}
RULE_INPUTS = {name: dict(spec.rule_inputs) for name, spec in rules.FORMATS.items()}
_ALL_INPUTS = {key: i for inputs in RULE_INPUTS.values() for key, i in inputs.items()}
WHOLE_RULES = {key for key, i in _ALL_INPUTS.items() if i.kind == "whole"}
FLAG_RULES = {key for key, i in _ALL_INPUTS.items() if i.kind == "flag"}
# The rules typed beside a preset ("Pool, other limit"): read from every form.
TYPED_RULES = sorted({p.typed for p, _ in rules.PRESETS.values() if p.typed})
MAX_TYPED = 16  # characters: longer than any figure or choice the rules allow ("winner_collects")


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
    if value is None:
        return ""
    if value is True:
        return "on"
    if value is False:
        return ""
    return str(value)


def parse_whole(text):
    text = (text or "").strip()
    if len(text) > MAX_TYPED:
        raise ValueError
    return int(text)


class NewGame:
    """The new-game form: format, seats, first dealer and table rules.

    A plain class rather than a Django Form: the seats are a list the player
    edits (add, remove, move) by posting the form back, which works the same
    with and without JavaScript.
    """

    def __init__(self, data=None):
        self.errors = {}
        self.data = data
        if data is None:
            self.key = FORMAT_CHOICES[0][0]
            self.typed = {p.typed: p.initial for p, _ in rules.PRESETS.values() if p.typed}
            self.name = ""
            self.players = ["", "", "", ""]
            self.dealer = 0
            self.rules_for = self.key
            self.rule_values = {k: shown(v) for k, v in defaults_for(self.key).items()}
            return
        self.key = data.get("format", FORMAT_CHOICES[0][0])
        if self.key not in FORMATS_BY_KEY:
            self.errors["format"] = "Pick a format"
            self.key = FORMAT_CHOICES[0][0]
        self.typed = {key: (data.get(key) or "").strip()[:MAX_TYPED] for key in TYPED_RULES}
        self.name = (data.get("name") or "")[:200]
        self.players = [str(p)[:200] for p in data.getlist("player")][: rules.MAX_PLAYERS + 1]
        try:
            self.dealer = int(data.get("dealer", 0))
        except ValueError:
            self.dealer = 0
        self.rules_for = data.get("rules_for", self.key)
        if self.rules_for not in FORMATS_BY_KEY:
            self.rules_for = self.key
        # A rule not posted at all keeps the default it was filled with (a blank
        # box is posted, and means "none" for a rule that may be empty).
        filled = {k: shown(v) for k, v in self._defaults(self.rules_for).items()}
        self.rule_values = {
            key: (data.get(key) or "").strip()[:MAX_TYPED] if key in data else filled.get(key, "")
            for key in set().union(*TABLE_RULES.values())
        }
        # An unticked box is not posted at all: read the boxes only when the
        # form that shows them was posted.
        self.rules_shown = bool(data.get("rules_shown"))
        for key in FLAG_RULES:
            if self.rules_shown:
                self.rule_values[key] = "on" if data.get(key) else ""
            else:
                self.rule_values[key] = shown(self._defaults(self.rules_for).get(key))

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
        keys = {"format"} | {f"rules.{k}" for k in TYPED_RULES if k not in TABLE_RULES[self.fmt]}
        return [message for key, message in self.errors.items() if key in keys]

    # -- the seat list, edited by posting the form back

    def edit_seats(self, action):
        """Apply an add / remove / up / down button; returns True if it was one."""
        what, _, where = (action or "").partition("-")
        try:
            seat = int(where) if where else None
        except ValueError:
            return False
        players = self.players
        if what == "add" and len(players) < rules.MAX_PLAYERS:
            players.append("")
        elif what == "remove" and seat is not None and 0 <= seat < len(players):
            players.pop(seat)
            if self.dealer >= len(players) or self.dealer == seat:
                self.dealer = 0
            elif self.dealer > seat:
                self.dealer -= 1
        elif what in ("up", "down") and seat is not None and 0 <= seat < len(players):
            other = seat - 1 if what == "up" else seat + 1
            if 0 <= other < len(players):
                players[seat], players[other] = players[other], players[seat]
                if self.dealer in (seat, other):
                    self.dealer = other if self.dealer == seat else seat
        elif what != "refresh":
            return False
        if what == "refresh" or self.rules_for != self.key:
            self._refill_rules()
        return True

    def _refill_rules(self):
        """Show the new format's defaults where the rules were left as they were."""
        old = {k: shown(v) for k, v in self._defaults(self.rules_for).items()}
        new = {k: shown(v) for k, v in self._defaults(self.key).items()}
        for key in self.rule_values:
            if self.rule_values[key] == old.get(key, self.rule_values[key]):
                self.rule_values[key] = new.get(key, "")
        self.rules_for = self.key

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

    def table_rules(self):
        """The rules to give the engine: typed values, less those left at the defaults
        of the format they were filled for (so a format changed without JavaScript
        takes its own defaults)."""
        fmt, chosen = self._chosen()
        old = {k: shown(v) for k, v in self._defaults(self.rules_for).items()}
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
                    self.errors[f"rules.{key}"] = (
                        f"{rules.RULE_LABELS[key].capitalize()} must be a whole number"
                    )
            else:
                chosen[key] = typed
        return fmt, chosen

    def _chosen(self):
        preset = self.preset
        typed = None
        if preset.typed:
            text = self.typed.get(preset.typed, "")
            where = f"rules.{preset.typed}"
            if preset.decimal:
                typed = text or None  # an amount: the engine checks it, in its words
            else:
                try:
                    typed = parse_whole(text)
                except ValueError:
                    self.errors[where] = f"Type the {preset.typed_label.lower()}, a whole number"
        return format_rules(self.key, typed)

    def seats(self):
        """The typed names, trailing blank seats dropped, and the first dealer's name.

        A blank seat before a typed name is refused beside that seat: it would
        silently make a game with one seat fewer than the table sees.
        """
        names = [" ".join(p.split()) for p in self.players]
        last = max((i for i, n in enumerate(names) if n), default=-1)
        for i, n in enumerate(names[:last]):
            if not n:
                self.errors[f"player-{i}"] = gettext(
                    "Seat %(n)s has no name: type one, or remove the seat with ✕"
                ) % {"n": i + 1}
        dealer_name = names[self.dealer] if 0 <= self.dealer < len(names) else ""
        named = [n for n in names if n]
        return named, dealer_name if dealer_name else (named[0] if named else None)

    def add_error(self, error):
        """Put an engine refusal beside its field."""
        where = error.field or "form"
        if where.startswith("players"):
            where = "players"
        self.errors.setdefault(where, i18n.sentence(error))

    def check_rules(self, fmt, chosen):
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
                self.add_error(error)
                if key not in chosen:
                    return
                del chosen[key]

    @property
    def seat_rows(self):
        """(index, name, error) per seat, for the template."""
        return [(i, n, self.errors.get(f"player-{i}")) for i, n in enumerate(self.players)]

    @property
    def first_errors(self):
        """Every refusal, for the summary beside the Start button."""
        return list(dict.fromkeys(self.errors.values()))

    def rule_fields(self):
        """(key, label, value, help, error) for the table rules of the chosen format."""
        out = []
        inputs = RULE_INPUTS[self.fmt]
        for key in TABLE_RULES[self.fmt]:
            shown_as = inputs[key]
            out.append(
                {
                    "key": key,
                    "label": capitalized(gettext(rules.RULE_LABELS[key])),
                    "value": self.rule_values.get(key, ""),
                    "help": gettext(shown_as.help) if shown_as.help else "",
                    "error": self.errors.get(f"rules.{key}"),
                    "flag": shown_as.kind == "flag",
                    "choices": [(v, gettext(text)) for v, text in shown_as.choices] or None,
                    "numeric": shown_as.kind == "whole",
                }
            )
        return out


# The kind of a result typed as a number, beside the result words (first_drop, ...).
TYPED = rules.TYPED_RESULT


class DealEntry:
    """The deal form: a winner, and for every other player in, a typed figure or a word.

    Field names use seats (`winner` = seat, `r<seat>` = the result's kind,
    `p<seat>` = the typed figure), never names, so any name is safe in a form.
    What the format offers (result words, the "went rummy" mark, the hand
    calculator) comes from its format object.
    """

    def __init__(self, state, playing, data=None, event=None, say=gettext):
        self.state = state
        self.say = say  # the format's words in the reader's language (`scoreboard.say_in`)
        self.spec = state.spec
        self.playing = playing  # the players dealt this deal
        self.errors = {}
        self.winner = ""
        self.rummy = False
        self.kinds = {p.seat: TYPED for p in playing}
        self.points = {p.seat: "" for p in playing}
        if event is not None:
            winner = state.player(event["winner"])
            self.winner = str(winner.seat) if winner else ""
            self.rummy = event.get("rummy") is True
            for p in playing:
                result = event.get("results", {}).get(p.name)
                if isinstance(result, str):
                    self.kinds[p.seat] = result
                elif result is not None:
                    self.points[p.seat] = str(result)
        self.confirmed = False
        self.warnings = []
        self.blank = data is None and event is None  # nothing typed or filled in yet
        if data is not None:
            self.winner = (data.get("winner") or "")[:4]
            self.rummy = bool(data.get("rummy"))
            self.confirmed = data.get("confirm") == "1"
            for p in playing:
                kind = data.get(f"r{p.seat}") or TYPED
                self.kinds[p.seat] = kind if kind in rules.RESULT_WORDS else TYPED
                self.points[p.seat] = (data.get(f"p{p.seat}") or "").strip()[:MAX_TYPED]
            self._check_posted(data)

    def _check_posted(self, data):
        """Refuse what a form never sends: a field given twice, a result for a
        player not dealt in (rules.md: refused, not ignored)."""
        many = getattr(data, "getlist", lambda key: [data.get(key)])
        if len(many("winner")) > 1:
            self.errors["winner"] = "Tap one winner only: the deal named more than one"
        if len(many("rummy")) > 1:
            self.errors["rummy"] = "Went rummy was sent twice: tick it once"
        for p in self.playing:
            if len(many(f"r{p.seat}")) > 1 or len(many(f"p{p.seat}")) > 1:
                self.errors[p.seat] = f"{p.name}: give one result only"
        dealt = {p.seat for p in self.playing}
        for p in self.state.players:
            if p.seat in dealt:
                continue
            typed = (data.get(f"p{p.seat}") or "").strip()
            kind = data.get(f"r{p.seat}") or TYPED
            if typed or kind != TYPED:
                why = self.spec.not_playing_for(self.state, p)
                self.errors[f"out-{p.seat}"] = f"{p.name} {why} and has no result"

    typed_kind = TYPED

    @property
    def prompt(self):
        return self.say(self.spec.deal_prompt)

    @property
    def placeholder(self):
        return self.say(self.spec.result_short)

    @property
    def result_noun(self):
        return self.say(self.spec.result_noun)

    @property
    def calculator(self):
        """Whether "Count cards" is offered (not where every card counts)."""
        return self.spec.calculator

    @property
    def rummy_offered(self):
        return self.spec.rummy_mark(self.state.rules)

    @property
    def playing_names(self):
        return [p.name for p in self.playing]

    @property
    def playing_list(self):
        """ "Ravi and Kiran", in the reader's language."""
        return i18n.phrase(rules.table.and_list(self.playing_names))

    def event(self):
        """The deal as an event for the engine, or None with self.errors filled.

        Every refusal is found at once: each result is asked of the engine on
        its own, so each box gets its own message.
        """
        by_seat = {str(p.seat): p for p in self.playing}
        winner = by_seat.get(self.winner)
        if winner is None and "winner" not in self.errors:
            self.errors["winner"] = gettext("Tap the player who won the deal")
        results = {}
        for p in self.playing:
            if p is winner or p.seat in self.errors:
                continue
            kind = self.kinds[p.seat]
            typed = self.points[p.seat]
            if kind != TYPED:
                result = kind
            elif typed == "":
                if winner is not None:  # else this blank may be the winner's
                    self.errors[p.seat] = f"{p.name}: {gettext(self.spec.missing_result)}"
                continue
            else:
                try:
                    result = parse_whole(typed)
                except ValueError:
                    self.errors[p.seat] = gettext("%(name)s: %(noun)s must be a whole number") % {
                        "name": p.name,
                        "noun": self.result_noun,
                    }
                    continue
            try:
                self.spec.result(self.state, p, result, f"results.{p.name}")
            except rules.RuleError as error:
                self.errors[p.seat] = i18n.for_player(error)
                continue
            results[p.name] = result
        if self.errors:
            return None
        for name, result in results.items():
            warning = self.spec.drop_warning(self.state, self.state.player(name), result)
            if warning:
                self.warnings.append(i18n.phrase(warning))
        if self.warnings and not self.confirmed:
            return None
        event = {"type": "deal", "winner": winner.name, "results": results}
        if self.rummy:
            event["rummy"] = True  # the engine refuses it where going rummy is off
        return event

    @property
    def untouched(self):
        """Nothing typed, filled in or refused yet: the blank form shown after
        each deal, the same for the same players, game and deal (`{% kept %}`)."""
        return self.blank and not self.errors and not self.warnings

    def blank_shown(self):
        """What a blank form's rows show besides the language and the game's link:
        the players dealt in, the result buttons and the words of the format."""
        return (
            tuple((p.seat, p.name) for p in self.playing),
            tuple(self.buttons()),
            str(self.result_noun),
            str(self.placeholder),
            self.calculator,
        )

    @property
    def needs_confirm(self):
        """A warning to read before saving (a drop for a player who must play)."""
        return bool(self.warnings) and not self.confirmed and not self.errors

    @property
    def other_errors(self):
        """Refusals with no box of their own (a result sent for a player who is out)."""
        return [m for k, m in self.errors.items() if isinstance(k, str) and k.startswith("out-")]

    def add_error(self, error):
        """Put an engine refusal beside the player (or the winner, or the mark) it names."""
        player = self.state.player(error.player) if error.player else None
        if player is not None and player.seat in self.kinds:
            self.errors[player.seat] = i18n.for_player(error)
        elif error.field in ("winner", "rummy"):
            self.errors[error.field] = i18n.sentence(error)
        else:
            self.errors["form"] = i18n.sentence(error)

    def rows(self):
        """One row per player dealt in, for the template."""
        buttons = _chip_parts(self.buttons())
        out = []
        for p in self.playing:
            out.append(
                {
                    "player": p,
                    "won": self.winner == str(p.seat),
                    "kind": self.kinds[p.seat],
                    "typed": self.points[p.seat],
                    "error": self.errors.get(p.seat),
                    "chips": _word_chips(p.seat, self.kinds[p.seat], buttons),
                }
            )
        return out

    def buttons(self):
        """The one-tap results with this game's values."""
        return self.spec.result_buttons(self.state.rules)


def _chip_parts(buttons):
    """Each one-tap result's word and its markup after the checked mark, escaped
    and translated once per form, not once a player."""
    return [
        (
            word,
            f'value="{escape(str(word))}"',
            f"><span>{escape(gettext(label))}</span> <b>{escape(str(value))}</b></label>",
        )
        for word, label, value in buttons
    ]


def _word_chips(seat, kind, parts):
    """A player's one-tap results (First drop 20, ...), the chosen one checked.

    Built here rather than looped in the template: six players of four chips
    each were a third of the deal form's rendering time (bench/README.md).
    `parts`: `_chip_parts` of the format's `result_buttons`.
    """
    head = f'<label class="chip word"><input type="radio" name="r{int(seat)}" '
    # Safe: the seat is a number, the words, labels and values escaped by _chip_parts.
    return mark_safe(
        "".join(
            f"{head}{value}{' checked' if kind == word else ''}{tail}"
            for word, value, tail in parts
        )
    )


_BLANK_ROWS = {}  # the rows of a blank deal form, by what they show: see deal_rows_html
BLANK_ROWS_KEPT = 512


def deal_rows_html(entry, count_token=None):
    """The deal form's rows, one a player dealt in: Won, the typed figure, the
    word chips, "Count cards" (with the game's edit token) and the row's error.

    Laid out here, not looped in deal_fields.html: three {% blocktranslate %}
    and a {% url %} a row were most of the deal form's rendering (bench/README.md).
    The words are the template's msgids, each value escaped as the template did.
    A blank form's rows (nothing typed, no error) are the same deal after deal
    for the same players, so they are laid out once per process for them.
    """
    if not entry.untouched:
        return _deal_rows_html(entry, count_token)
    key = (get_language(), count_token, entry.blank_shown())
    html = _BLANK_ROWS.get(key)
    if html is None:
        if len(_BLANK_ROWS) >= BLANK_ROWS_KEPT:
            _BLANK_ROWS.clear()
        html = _BLANK_ROWS[key] = _deal_rows_html(entry, count_token)
    return html


def _deal_rows_html(entry, count_token):
    won, points = escape(gettext("Won")), escape(gettext("Points"))
    group_label, hidden_label = gettext("%(name)s's result"), gettext("%(name)s's %(noun)s")
    count_label = gettext("Count %(name)s's cards")
    noun = conditional_escape(entry.result_noun)
    placeholder = conditional_escape(entry.placeholder)
    typed_kind = escape(entry.typed_kind)
    counts = count_token is not None and entry.calculator
    out = []
    for row in entry.rows():
        p, error = row["player"], row["error"]
        seat, name = int(p.seat), conditional_escape(p.name)
        invalid = f' aria-invalid="true" aria-describedby="err-{seat}"' if error else ""
        count = ""
        if counts:
            url = escape(cached_reverse("count_cards", [count_token, p.seat]))
            label = count_label % {"name": name}
            count = f'<a class="count" href="{url}" data-slot="calc-slot">{label}</a>'
        shown_error = (
            f'<p class="error" id="err-{seat}" role="alert">{conditional_escape(error)}</p>'
            if error
            else ""
        )
        group = group_label % {"name": name}
        hidden = hidden_label % {"name": name, "noun": noun}
        out.append(
            f'\n<div class="deal-row{" has-error" if error else ""}">\n'
            f'<label class="win"><input type="radio" name="winner" value="{seat}"'
            f'{" checked" if row["won"] else ""}><span class="who">{name}</span>'
            f'<span class="won-tag">{won}</span></label>\n'
            f'<div class="result" role="group" aria-label="{group}">\n'
            f'<label class="points"><span class="visually-hidden">{hidden}</span>'
            f'<input name="p{seat}" value="{conditional_escape(row["typed"])}" inputmode="numeric" '
            f'pattern="[0-9]*" maxlength="3" placeholder="{placeholder}" autocomplete="off"'
            f"{invalid}></label>\n"
            f'<label class="chip word hidden-radio"><input type="radio" name="r{seat}" '
            f'value="{typed_kind}"{" checked" if row["kind"] == entry.typed_kind else ""}>'
            f"<span>{points}</span></label>\n"
            f"{row['chips']}\n</div>\n{count}\n{shown_error}\n</div>\n"
        )
    return mark_safe("".join(out))  # safe: every value in it is escaped


def split_shares_typed(state, data):
    """Typed custom shares, by name, for the players still in."""
    return {
        p.name: (data.get(f"s{p.seat}") or "").strip()[:MAX_TYPED] for p in state.players if p.is_in
    }


def split_share_errors(state, typed):
    """Each typed share's own refusal, by name, asked of the engine one at a time
    (the other shares set to 0), so every bad share is named beside its box."""
    errors = {}
    for name, value in typed.items():
        if value == "":
            continue
        trial = {n: (value if n == name else "0") for n in typed}
        try:
            state.split_shares("custom", trial)
        except rules.RuleError as error:
            if error.player == name:
                errors[name] = i18n.sentence(error)
    return errors


class JoinEntry:
    """The "Add a player" form: the new player's name, and the seat they sit after.

    `after` is the name of a seated player, or "" for after the last seat;
    the engine checks both, and its refusal is shown beside the field it names.
    """

    def __init__(self, state, data=None):
        self.state = state
        self.errors = {}
        self.name = ""
        self.after = ""
        if data is not None:
            self.name = (data.get("name") or "")[:100]
            self.after = (data.get("after") or "")[:100]

    @property
    def seats(self):
        """(name, label) of each seat a new player may sit after, in seat order."""
        return [(p.name, p.name) for p in self.state.players]

    @property
    def seat_options_html(self):
        """The "Sits" choice's options after the first ("After Ravi", ...), the
        chosen one selected: laid out here, a {% blocktranslate %} a seat."""
        after = gettext("After %(label)s")
        return mark_safe(  # safe: every value is escaped
            "".join(
                f'<option value="{conditional_escape(value)}"'
                f"{' selected' if value == self.after else ''}>"
                f"{after % {'label': conditional_escape(label)}}</option>\n"
                for value, label in self.seats
            )
        )

    def event(self, check_name=True):
        """The join for the engine, or None with self.errors filled (a blank name)."""
        if check_name and not self.name.strip():
            self.errors["name"] = "Type the new player's name"
            return None
        return {"type": "join", "player": self.name, "after": self.after or None}

    def add_error(self, error):
        where = "after" if error.field == "after" else "name"
        message = i18n.refusal(error)
        if not error.message.startswith(" ".join(self.name.split())):
            message = message[0].upper() + message[1:]  # never a name as typed: "asha ..."
        self.errors[where] = message
