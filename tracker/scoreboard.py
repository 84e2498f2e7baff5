"""What the game screen shows, laid out from the engine's state.

Pure presentation of figures the engine computed: nothing is scored here.
The markup laid out here is marked safe as `SafeString(...)`, which is what
Django's `mark_safe` gives a str, without its check for a lazy argument (a
wrapper, `any` and a generator each time; a fresh board marks some sixty).
The columns, badges and lines that differ between formats come from the
game's format object (`state.spec`, see tracker/rules/base.py), so the
template loops over them and never names a format.
"""

from html import escape

from django.utils.html import conditional_escape
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext, gettext_noop

from .i18n import phrase
from .rules import FORMATS, MAX_PLAYERS, RESULT_LABELS, money
from .rules.money_format import format_money
from .urltag import cached_reverse

SHORT_RESULTS = dict(RESULT_LABELS)


def standings(state, language=None):
    """One line per seat: the figures a family reads at a glance. `language`:
    the active one, when the caller has read it (`_words`)."""
    spec = state.spec
    leaders = set(state.leaders) if state.deals_played else set()
    next_dealer = state.next_dealer
    words = _words(language)
    lines = []
    for p in state.players:
        line = {
            "name": p.name,
            "seat": p.seat,
            "total": p.total,
            "out": p.status == "out",  # out of a pool game
            "away": p.status in ("sitting_out", "left"),  # points: not dealt in, balance kept
            "deals_next": p.name == next_dealer,
            "leader": p.name in leaders and not state.split,
            "winner": p.name == state.winner,
            "badges": [(said(text), kind) for text, kind in spec.badges(state, p)],
        }
        line["cells"] = [_cell(c) for c in spec.cells(state, p, line)]
        classes = ["out"] if line["out"] else []
        classes += ["away"] if line["away"] else []
        classes += ["leader"] if line["leader"] else []
        classes += spec.row_classes(state, p)
        classes += ["winner"] if line["winner"] else []
        line["classes"] = " ".join(classes)
        line["marks"] = _name_marks(line, state.finished, bool(state.winner), words)
        line["cells_html"] = _standing_cells_html(line["cells"])
        line["row_html"] = SafeString(  # safe: the classes are words, the rest escaped
            f'\n<tr class="{escape(line["classes"])}">\n<th scope="row">{escape(p.name)}'
            f"{line['marks']}</th>\n{line['cells_html']}\n</tr>\n"
        )
        lines.append(line)
    return lines


def standings_html(lines):
    """The standings' rows in one piece, for the board's table body; and the
    history's head, a box a player. Laid out here, not looped in the template:
    each loop of the template's was a loop, a lookup and an escape a line."""
    return SafeString("".join(line["row_html"] for line in lines))  # safe: laid out escaped


def name_heads_html(lines):
    """The history's head: a box a player, named as the standings name them."""
    heads = (f'<th scope="col">{escape(line["name"])}</th>' for line in lines)
    return SafeString("".join(heads))  # safe: every name escaped


def column_heads_html(columns):
    """The board's heads after "Player": a box a column of the format."""
    heads = (f'<th scope="col">{conditional_escape(column)}</th>' for column in columns)
    return SafeString("".join(heads))  # safe: escaped as the template escapes them


_FORMAT_LABELS = {name: spec.label for name, spec in FORMATS.items()}


def format_label(format_name, say=None):
    """The format's name in the reader's language, as `{% translate
    game.get_format_display %}` printed it (looked up, escaped, its percent
    signs kept), without the model's display method and the template's
    lookups of a method (each one an error raised and caught)."""
    label = str(_FORMAT_LABELS.get(format_name, format_name))
    shown = conditional_escape((say or gettext)(label.replace("%", "%%")))
    return SafeString(shown.replace("%%", "%"))  # safe: escaped above


def _name_marks(line, finished, has_winner, words=None):
    """The badges after a standing's name (Leader, Deals next, the format's own),
    laid out here so the template prints them in one go (bench/README.md).
    A finished game without a winner (a points session) has no "Winner": the
    top balance is only that."""
    words = words or _words()
    marks = []
    if line["leader"]:
        if not finished:
            lead = words["Leader"]
        else:
            lead = words["Winner"] if has_winner else words["Top balance"]
        marks.append(f' <span class="badge lead">{escape(lead)}</span>')
    elif line["winner"]:
        marks.append(f' <span class="badge lead">{escape(words["Winner"])}</span>')
    if line["deals_next"]:
        marks.append(f' <span class="badge dealer">{escape(words["Deals next"])}</span>')
    for text, kind in line["badges"]:
        css = f"badge {escape(str(kind))}" if kind else "badge"
        marks.append(f' <span class="{css}">{escape(str(text))}</span>')
    return SafeString("".join(marks))  # safe: every value in it is escaped


def _standing_cells_html(cells):
    """A standing's figures, one box a column of the format (`spec.cells`)."""
    out = []
    for c in cells:
        badge = c.get("badge")
        tail = (
            f' <span class="badge {escape(str(badge[1]))}">{escape(str(badge[0]))}</span>'
            if badge
            else ""
        )
        out.append(f'<td class="num">{escape(str(c["text"]))}{tail}</td>')
    return SafeString("".join(out))  # safe: every value in it is escaped


def seating(state, pot_after_join):
    """Who may join, sit out, come back or leave now (rules.md "People come and go").

    `joinable`: whether "Add a player" is offered; `join_note` says why not, or
    what a joiner starts at in pool. `players`: per player the changes offered.
    """
    spec = state.spec
    out = {
        "joinable": False,
        "join_note": "",
        "players": [],
        "sits_out": spec.sits_out,
        "away": False,  # someone sits out: the list is shown open
    }
    if state.finished:
        return out
    if spec.takes_joins:
        why = spec.join_refusal(state)
        if len(state.players) >= MAX_PLAYERS:
            why = gettext("a game has at most %(n)s players") % {"n": MAX_PLAYERS}
        if why:
            out["join_note"] = gettext("Nobody can join now: %(why)s.") % {"why": said(why)}
        else:
            out["joinable"] = True
            # Pool: a joiner starts at H + 1 and pays in; points: balance 0, nothing to say.
            start = spec.join_total(state)
            notes = [gettext("A new player starts at %(n)s") % {"n": start}] if start else []
            if pot_after_join != money(state.pot):
                pot = format_money(pot_after_join, state.rules)
                notes.append(gettext("the pot becomes %(pot)s") % {"pot": pot})
            note = "; ".join(notes)
            out["join_note"] = note[:1].upper() + note[1:] + "." if note else ""
    if spec.sits_out:
        dealt_in = len(state.in_players)
        for p in state.players:
            if p.status == "left":
                continue
            out["players"].append(
                {
                    "name": p.name,
                    "away": p.status == "sitting_out",
                    # At least two must stay dealt in.
                    "can_go": p.status != "in" or dealt_in > 2,
                }
            )
        out["away"] = any(p["away"] for p in out["players"])
    return out


def layout(state, pot, say=None):
    """The parts of the board that differ between formats, for the template."""
    spec = state.spec
    say = say or said
    return {
        "meta": say(spec.meta(state, pot)),
        "columns": [say(c) for c in spec.columns(state)],
        "tie_note": say(spec.tie_breaker_note(state)) if state.tie_breaker else None,
        "settles": spec.settles,
        "settlement_note": say(spec.settlement_note(state)),
    }


def said(text):
    """Words of the format module in the reader's language: a Phrase with its
    places, or words marked N_ (plain English words are looked up too)."""
    if not text or not isinstance(text, str):
        return text
    if hasattr(text, "template"):
        return phrase(text)
    return gettext(text)


SAID_MANY = 4096  # words `say_in` keeps; past that it starts again
_SAID = {}  # (language, msgid): what gettext gave it


def say_in(language):
    """`said` in `language` (the active one), each plain msgid looked up once
    per language and process, as {% translate %} keeps its own: a fresh board's
    context asks for some ten (the columns, the notes, the figure's name, the
    settlement's line), and each gettext reads the language from a thread-local.
    A Phrase, with its places, is put together each time."""

    def say(text):
        if type(text) is not str or not text:
            return said(text)
        key = (language, text)
        found = _SAID.get(key)
        if found is None:
            if len(_SAID) >= SAID_MANY:
                _SAID.clear()
            found = _SAID[key] = gettext(text)
        return found

    return say


def _cell(cell):
    if isinstance(cell, dict) and cell.get("badge"):
        text, kind = cell["badge"]
        return {**cell, "badge": (said(text), kind)}
    return cell


def result_text(result, say=None):
    if isinstance(result, str):
        return (say or said)(SHORT_RESULTS.get(result, result))
    return str(result)


RECENT = 12  # events the game screen lists; the rest are one tap away


def history(state, limit=None, language=None):
    """The events, newest first (the newest `limit` of them), with each
    player's result and figure after it."""
    names = [p.name for p in state.players]
    say = say_in(language or get_language())
    badges = _deal_badges(language)
    rows = []
    for row in state.recent_rows(limit) if limit else state.rows:
        entry = {
            "position": row.index,
            "type": row.type,
            "number": row.number,
            "dealer": row.dealer,
            "winner": row.winner,
            "player": row.player,
            "after": row.after,
            "start_total": row.start_total,
            "tie_breaker": row.tie_breaker,
            "went_out": row.went_out,
        }
        if row.type == "deal":
            entry["won_label"] = say(state.spec.won_label(row))
            entry["cells_html"] = _cells_html(row, names, entry["won_label"], say, badges)
        elif row.type == "join":
            if row.after:
                seat = gettext("after %(name)s") % {"name": row.after}
            else:
                seat = gettext("at the end of the table")
            figure = f"{gettext(state.spec.figure_name).lower()} {row.totals.get(row.player)}"
            entry["text"] = gettext("%(name)s joined, %(seat)s (%(figure)s)") % {
                "name": row.player,
                "seat": seat,
                "figure": figure,
            }
        elif row.type == "split":
            entry["method"] = row.results.get("method")
            entry["shares"] = [(name, money(share)) for name, share in row.shares.items()]
        rows.append(entry)
    rows.reverse()
    return rows


def deal_summary(state, row):
    """One line for a deal, as the other phone saved it: "deal 3: Meena won; Asha 2, Ravi 3"."""
    if row.type != "deal":
        return None
    results = ", ".join(f"{name} {result_text(result)}" for name, result in row.results.items())
    return gettext("deal %(n)s: %(winner)s won; %(results)s.") % {
        "n": row.number,
        "winner": row.winner,
        "results": results,
    }


def _deal_badges(language=None):
    """The dealer's and the went-out badge of a history box, in the reader's language."""
    words = _words(language)
    return words["dealt badge"], words["out badge"]


_WORDS = {}  # language: the board's and the history's own words in it (`_words`)


def _words(language=None):
    """The words every board and history lays out the same, looked up once per
    language and process, as {% translate %} keeps its own (templatetags/once.py):
    each gettext reads the language from a thread-local, and a fresh board asked
    for a dozen of these. `language`: the active one, when the caller has read it
    (a thread-local too)."""
    language = language or get_language()
    words = _WORDS.get(language)
    if words is None:
        dealt_word, dealt_letter, out_word = gettext("dealt"), gettext("D"), gettext("Out")
        tie_word = gettext("tie")
        words = {
            "Leader": gettext("Leader"),
            "Winner": gettext("Winner"),
            "Top balance": gettext("Top balance"),
            "Deals next": gettext("Deals next"),
            "Edit deal %(n)s": gettext("Edit deal %(n)s"),
            "tie": f"<small>{escape(tie_word)}</small>",
            "dealt badge": (
                f'<span class="badge dealer" title="{escape(dealt_word)}">'
                f"{escape(dealt_letter)}</span>"
            ),
            "out badge": f'<span class="badge">{escape(out_word)}</span>',
        }
        _WORDS[language] = words
    return words


# A history box's classes, by (won, sat out, went out).
_BOX_CLASSES = {
    (won, sat_out, out): " ".join(
        k for k, on in (("won", won), ("sat-out", sat_out), ("went-out", out)) if on
    )
    for won in (False, True)
    for sat_out in (False, True)
    for out in (False, True)
}


def _after_text(after):
    """A box's figure after the deal, escaped: none before a joiner sat down."""
    if type(after) is int:  # a whole number needs no escaping
        return str(after)
    return "" if after is None else escape(str(after))


def _cells_html(row, names, won_label, say=None, badges=None):
    """A deal row's boxes, one a player: the result, then the figure after it.

    Built here, not in the template: 6 players and 12 rows are 72 boxes, and
    the template engine took longer over them than everything else a fresh
    scoreboard costs (bench/README.md). Straight from the engine's row, with
    no box of dicts in between.
    """
    out = []
    won_label = escape(str(won_label))
    dealt, went_out = badges or _deal_badges()
    results, totals, gone = row.results, row.totals, row.went_out
    for name in names:
        won = name == row.winner
        played = won or name in results
        is_out = name in gone
        if won:
            shown = won_label
        elif played:
            result = results[name]
            # a whole number needs no escaping, nor a word looked up
            shown = str(result) if type(result) is int else escape(str(result_text(result, say)))
        else:
            shown = "\u2013"  # an en dash: sat out
        css = _BOX_CLASSES[won, not played, is_out]
        after = _after_text(totals.get(name))
        marks = (dealt if name == row.dealer else "") + (went_out if is_out else "")
        out.append(
            f'<td class="{css}"><span class="res">{shown}</span>'
            f'<span class="after">{after}</span>{marks}</td>'
        )
    return SafeString("".join(out))  # safe: every value in it is escaped


def banner(state):
    """The game-over line, or None while the game goes on."""
    if not state.finished:
        return None
    if state.split:
        shares = ", ".join(f"{n} {format_money(s, state.rules)}" for n, s in state.split.items())
        return gettext("Game over: split the pot (%(shares)s).") % {"shares": shares}
    if state.winner:
        if state.pot:
            pot = format_money(money(state.pot), state.rules)
            return gettext("%(name)s wins the pot of %(pot)s!") % {"name": state.winner, "pot": pot}
        return gettext("%(name)s wins!") % {"name": state.winner}
    return gettext("Session ended. Settle up below.")


def rejoin_notes(state):
    """Why each player who is out is not offered a rejoin now ("Ravi can't rejoin: ...")."""
    if state.finished:
        return []
    offered = set(state.can_rejoin)
    notes = []
    for p in state.players:
        if p.status != "out" or p.name in offered:
            continue
        why = state.rejoin_refusal(p.name)
        if why:
            notes.append(
                gettext("%(name)s can't rejoin: %(why)s.") % {"name": p.name, "why": said(why)}
            )
    return notes


def what_moved(before, after, changed):
    """What a correction at history index `changed` moved besides that deal,
    for the notice after it ("Ravi's rejoin start moved 66 → 71"), or None."""
    lines = []
    for old, new in zip(before.rows, after.rows, strict=False):
        if old.index == changed:
            continue
        if old.type == "rejoin" and old.start_total != new.start_total:
            moved = gettext("%(name)s's rejoin start moved %(old)s → %(new)s")
            lines.append(
                moved % {"name": old.player, "old": old.start_total, "new": new.start_total}
            )
    for old, new in zip(before.players, after.players, strict=False):
        if old.status != new.status:
            if new.status == "out":
                lines.append(gettext("%(name)s is now out") % {"name": new.name})
            elif old.status == "out":
                lines.append(gettext("%(name)s is back in") % {"name": new.name})
    if before.winner != after.winner:
        if after.winner:
            lines.append(gettext("%(name)s now wins the game") % {"name": after.winner})
        else:
            lines.append(gettext("the game is no longer over"))
    if not lines:
        return None
    text = "; ".join(lines)
    return gettext("Saved. %(what)s.") % {"what": text[:1].upper() + text[1:]}


def figure_plural(state, say=None):
    """The figure's name in the plural, for "Chart of the totals" (chips stay chips)."""
    name = state.spec.figure_name.lower()
    translated = (say or gettext)(state.spec.figure_name)
    if translated != state.spec.figure_name:
        return translated  # Hindi has no -s plural to add
    return name if name.endswith("s") else f"{name}s"


def settlement(state, say=None):
    """Who pays whom, each with its line (`html`: "<strong>Asha</strong> pays
    <strong>Ravi</strong> ₹120"), laid out here: a {% blocktranslate %} and a
    money filter a payment were a fifth of the view link's board (bench/README.md)."""
    line = (say or gettext)(
        gettext_noop("<strong>%(payer)s</strong> pays <strong>%(payee)s</strong> %(amount)s")
    )
    pays = []
    for payer, payee, amount in state.settlement:
        amount = money(amount)
        shown = format_money(amount, state.rules)
        places = {"payer": escape(payer), "payee": escape(payee), "amount": escape(shown)}
        html = SafeString(line % places)  # safe: the translation is ours, every value escaped
        pays.append({"from": payer, "to": payee, "amount": amount, "html": html})
    return pays


def settlement_html(pays):
    """The settlement's payments as the items of its list, in one piece."""
    return SafeString("".join(f"<li>{pay['html']}</li>" for pay in pays))  # safe: laid out escaped


def figure_name(state, say=None):
    return (say or gettext)(state.spec.figure_name)


def seating_items_html(players, urls):
    """The "Who plays the next deal" list's items: per player a Sit out (or
    Back in) button and a Leave button behind its question.

    The list is one form (the template's, with the CSRF token and the version
    once): each button names its player and posts to its own change with
    `formaction`, which browsers and htmx both follow. One form, not two a
    player: htmx sets up each form of the page when it starts (bench/README.md,
    issue 14). Laid out here, not looped in the template: six players' buttons
    were the most of the edit board's rendering, a {% blocktranslate %} each.
    The words are the template's msgids, each value escaped as
    {% blocktranslate %} escapes it.
    """
    sit_in, sit_out, leave = (escape(urls[k]) for k in ("sit_in", "sit_out", "leave"))
    away_badge = f' <span class="badge">{escape(gettext("Sits out"))}</span>'
    back_in, sit_out_word, leave_word = (
        escape(gettext("Back in")),
        escape(gettext("Sit out")),
        escape(gettext("Leave")),
    )
    back_in_label, sit_out_label = gettext("Back in %(name)s"), gettext("Sit out %(name)s")
    leave_label, yes_leaves = gettext("Leave %(name)s"), gettext("Yes, %(name)s leaves")
    goes_home = gettext("%(name)s goes home for good? Their balance stays in the settlement.")
    out = []
    for p in players:
        name = escape(p["name"])
        first = second = ""
        if p["away"]:
            first = _seat_button(sit_in, name, back_in_label % {"name": name}, back_in)
        elif p["can_go"]:
            first = _seat_button(sit_out, name, sit_out_label % {"name": name}, sit_out_word)
        if p["can_go"]:
            label, ask, yes = (t % {"name": name} for t in (leave_label, goes_home, yes_leaves))
            second = (
                f'\n<details class="confirm"><summary class="button small secondary" '
                f'aria-label="{label}">{leave_word}</summary>\n'
                f'<div class="ask"><p>{ask}</p><button class="danger small" name="player" '
                f'value="{name}" formaction="{leave}">{yes}</button></div>\n</details>\n'
            )
        badge = away_badge if p["away"] else ""
        out.append(f'\n<li>\n<span class="who">{name}{badge}</span>\n{first}\n{second}\n</li>\n')
    return SafeString("".join(out))  # safe: every value in it is escaped


def _seat_button(action, name, label, word):
    """A seat's one button (Sit out, Back in): posts the player's name to `action`."""
    return (
        f'<button class="small secondary" name="player" value="{name}" '
        f'formaction="{action}" aria-label="{label}">{word}</button>'
    )


def with_deal_heads(rows, can_edit, edit_token, language=None):
    """The history rows, each deal laid out whole (`html`): its first box, its
    number, on the edit link an Edit link to it, then its boxes. Laid out here,
    not in the template: two {% url %} and a {% blocktranslate %} a row, then
    the row's own tags and values (bench/README.md). `language`: the active
    one, when the caller has read it."""
    words = _words(language)
    edit_label = words["Edit deal %(n)s"] if can_edit else ""
    edit_url = _edit_url(edit_token) if can_edit else None
    tie = words["tie"]  # a tie-breaker deal is marked under its number
    for row in rows:
        if row["type"] == "deal":
            url = edit_url(row["event_id"]) if can_edit else ""
            head = _deal_head_html(row, edit_label, url, tie)
            row["html"] = SafeString(
                f'\n<tr id="event-{int(row["event_id"])}">\n{head}\n{row["cells_html"]}\n</tr>\n'
            )
    return rows


def history_rows_html(rows):
    """The history's rows in one piece, as the template's loop printed them (a
    line before and after each), when every row is laid out whole (`html`, a
    deal); else None, and the template lays out the other events itself."""
    if not all("html" in row for row in rows):
        return None
    return SafeString("".join(f"\n{row['html']}\n" for row in rows))  # safe: laid out escaped


_AN_EVENT = 918273645  # an event id no real one is confused with: only its place is used


def _edit_url(edit_token):
    """The address of a deal's Edit screen by its event id, reversed once per
    render, not once per row: the id is the link's last part
    (`g/<token>/event/<id>/`), after the token, so it is cut at the last
    place the stand-in id is found."""
    before, _, after = cached_reverse("edit_deal", [edit_token, _AN_EVENT]).rpartition(
        str(_AN_EVENT)
    )
    return lambda event_id: f"{before}{int(event_id)}{after}"


def _deal_head_html(row, edit_label, edit_url, tie):
    number = escape(str(row["number"]))
    if edit_label:
        url = escape(edit_url)
        label = edit_label % {"n": number}
        head = (
            f'<a class="change" href="{url}" data-slot="change-slot" aria-label="{label}">'
            f'{number} <span aria-hidden="true">\u270e</span></a>'
        )
    else:
        head = number
    tie = tie if row["tie_breaker"] else ""
    return SafeString(f'<th scope="row" class="change-col">{head}{tie}</th>')
