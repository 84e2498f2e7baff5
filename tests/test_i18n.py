"""English and Hindi (issue 14, part 1): Accept-Language, the switch, the
fallbacks, every page in Hindi, and the engine's refusals translated at the
edge while the documents and commands keep English."""

import ast
import io
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import translation

from tests.languages import LOCALE, NAMES, TRANSLATED, untranslated
from tests.views.test_games import deal_data, new_game, post_deal, text
from tests.views.test_tables import table_game
from tracker import i18n, rules
from tracker.models import Game, Table

pytestmark = pytest.mark.django_db

PLAYERS = ("Asha", "Ravi", "Meena", "Kiran")


def hindi():
    return Client(HTTP_ACCEPT_LANGUAGE="hi")


def lang_of(response):
    return re.search(r'<html lang="([^"]+)"', response.content.decode()).group(1)


# ------------------------------------------------------------ choosing the language


def test_the_browser_language_picks_hindi():
    response = hindi().get("/")
    assert response.status_code == 200
    assert lang_of(response) == "hi"
    page = text(response)
    assert "नया गेम" in page and "आपके गेम" in page
    assert "New game" not in page


def test_without_a_preference_the_page_is_english(client):
    response = client.get("/")
    assert lang_of(response) == "en"
    assert "New game" in text(response)


@pytest.mark.parametrize("header", ["xx", "fr-FR,fr;q=0.9", "zz-ZZ", "*"])
def test_an_unknown_language_falls_back_to_english(header):
    response = Client(HTTP_ACCEPT_LANGUAGE=header).get("/")
    assert lang_of(response) == "en"
    assert "New game" in text(response)


def test_hindi_with_a_region_is_hindi():
    response = Client(HTTP_ACCEPT_LANGUAGE="hi-IN,hi;q=0.9,en;q=0.8").get("/")
    assert lang_of(response) == "hi"


@pytest.mark.parametrize(
    "header, language, words",
    [
        ("ta", "ta", ["புதிய ஆட்டம்", "உங்கள் ஆட்டங்கள்"]),
        ("ta-IN,ta;q=0.9,en;q=0.8", "ta", ["புதிய ஆட்டம்"]),
        ("te", "te", ["కొత్త ఆట", "మీ ఆటలు"]),
        ("te-IN,en;q=0.5", "te", ["కొత్త ఆట"]),
        # The first language the browser prefers that the page has.
        ("fr-FR,fr;q=0.9,te;q=0.8,hi;q=0.7", "te", ["కొత్త ఆట"]),
        ("ml-IN,ta;q=0.8,en;q=0.5", "ta", ["புதிய ஆட்டம்"]),
        ("en-IN,ta;q=0.8", "en", ["New game"]),
    ],
)
def test_the_browser_language_picks_tamil_and_telugu_too(header, language, words):
    response = Client(HTTP_ACCEPT_LANGUAGE=header).get("/")
    assert lang_of(response) == language
    page = text(response)
    assert all(word in page for word in words), (header, words)
    if language != "en":
        assert "New game" not in page


def test_the_switch_is_on_every_page_and_posts_with_csrf(client):
    game = new_game(client)
    for url in ("/", "/new/", "/import/", "/calculator/", game.get_absolute_url()):
        page = client.get(url).content.decode()
        form = re.search(r'<form class="language".*?</form>', page, re.S)
        assert form, url
        form = form.group(0)
        assert 'method="post"' in form and 'action="/language/"' in form
        assert 'name="csrfmiddlewaretoken"' in form
        for code, name in NAMES.items():
            # Each language in its own name, whatever the page is in.
            assert f'<button name="language" value="{code}" lang="{code}"' in form, code
            assert f">{name}</button>" in form, name
        assert f'name="next" value="{url}"' in form
    tamil = Client(HTTP_ACCEPT_LANGUAGE="ta").get("/").content.decode()
    assert '<button name="language" value="ta" lang="ta" aria-current="true">தமிழ்</button>' in tamil
    assert ">English</button>" in tamil and ">తెలుగు</button>" in tamil


def test_the_switch_is_remembered_in_a_cookie():
    client = Client(enforce_csrf_checks=True)
    page = client.get("/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = client.post(
        "/language/", {"language": "hi", "next": "/calculator/", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302 and response["Location"] == "/calculator/"
    assert client.cookies["django_language"].value == "hi"
    # Later visits, with no Accept-Language at all, stay in Hindi.
    response = client.get("/")
    assert lang_of(response) == "hi" and "नया गेम" in text(response)
    # And back to English, even where the browser asks for Hindi.
    client.post("/language/", {"language": "en", "next": "/", "csrfmiddlewaretoken": token})
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="hi")
    assert lang_of(response) == "en" and "New game" in text(response)


@pytest.mark.parametrize("language, home", [("ta", "புதிய ஆட்டம்"), ("te", "కొత్త ఆట")])
def test_the_switch_to_tamil_or_telugu_is_remembered(language, home):
    client = Client(enforce_csrf_checks=True)
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="hi").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = client.post(
        "/language/", {"language": language, "next": "/", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302
    # The cookie wins over the browser's Hindi.
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="hi")
    assert lang_of(response) == language and home in text(response)


def test_the_switch_needs_the_csrf_token():
    client = Client(enforce_csrf_checks=True)
    response = client.post("/language/", {"language": "hi", "next": "/"})
    assert response.status_code == 403
    assert "django_language" not in client.cookies


def test_switching_to_an_unknown_language_keeps_english(client):
    response = client.post("/language/", {"language": "xx", "next": "/"})
    assert response.status_code == 302
    assert "django_language" not in client.cookies
    assert lang_of(client.get("/")) == "en"


def test_the_switch_never_leaves_the_site(client):
    response = client.post("/language/", {"language": "hi", "next": "https://evil.example/"})
    assert response.status_code == 302
    assert "evil.example" not in response["Location"]


def test_a_cached_game_page_is_not_shown_in_the_other_language(client):
    game = new_game(client)
    english = client.get(game.get_absolute_url())
    hindi_page = client.get(game.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="hi")
    assert lang_of(english) == "en" and lang_of(hindi_page) == "hi"
    assert "रमी स्कोर" in text(hindi_page) and "रमी स्कोर" not in text(english)


def test_the_words_worked_out_once_follow_each_readers_language(client):
    # {% translate %} of a fixed word is looked up once per language (tracker/templatetags/once.py):
    # English, then Hindi, then English again, each reader gets its own words.
    game = new_game(client)
    post_deal(client, game, "Asha", Ravi=20, Meena=30, Kiran=40)
    watch = f"/w/{game.view_token}/live/"
    for language, words, not_words in (
        ("en", ["Scores", "Player", "Deals", "Rummy score"], ["स्कोर", "खिलाड़ी", "डील्स"]),
        ("hi", ["स्कोर", "खिलाड़ी", "डील्स", "रमी स्कोर"], ["Scores", "Rummy score"]),
        ("en", ["Scores", "Player", "Deals", "Rummy score"], ["स्कोर", "खिलाड़ी", "डील्स"]),
    ):
        page = client.get(game.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language)
        board = client.get(watch, HTTP_ACCEPT_LANGUAGE=language, HTTP_HX_REQUEST="true")
        for response, shown_words in ((page, words), (board, words[:3])):
            shown = response.content.decode()
            assert all(word in shown for word in shown_words), (language, shown_words)
            assert not any(word in shown for word in not_words), (language, not_words)


# ------------------------------------------------------------ dates


@pytest.mark.parametrize(
    "language, date, not_words",
    [
        ("en", "3 December 2026", ["Thu", "Dec "]),
        # Not Django's "दिसमबर" (its Hindi "F"), nor the weekday "गुरू".
        ("hi", "3 दिसंबर 2026", ["दिसमबर", "गुरू"]),
        # Django's Tamil has no short weekdays: a weekday would be English ("Thu").
        ("ta", "3 டிசம்பர் 2026", ["Thu", "Dec"]),
        ("te", "3 డిసెంబర్ 2026", ["గురు", "డిసెం."]),
    ],
)
def test_dates_read_as_each_language_writes_them(language, date, not_words):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    game = new_game(client, players=PLAYERS)
    table = Table.start("Nani", ["Asha", "Ravi", "Meena"])
    in_table = table_game(client, table, ["Asha", "Ravi", "Meena"])
    # 3 December 2026, 21:30 in India (the default TIME_ZONE), 16:00 UTC.
    evening = datetime(2026, 12, 3, 16, 0, tzinfo=UTC)
    Game.objects.filter(pk__in=[game.pk, in_table.pk]).update(
        created_at=evening, updated_at=evening
    )
    home = text(client.get("/"))
    listed = re.findall(r"<time datetime=\"2026-12-03T21:30:00\+05:30\">([^<]*)</time>", home)
    assert listed == [date, date], listed  # both games on this phone's list
    tables = text(client.get(table.get_absolute_url()))
    assert re.search(f"<time [^>]*>{date}</time>", tables), language
    shown = " ".join(re.findall(r"<time [^>]*>([^<]*)</time>", home + tables))
    assert not any(word in shown for word in not_words), shown


def test_a_game_left_unnamed_reads_in_the_readers_language():
    """Issue 26.18: a game's default name is the format's words, shown in the
    reader's language; the name a family typed is shown as typed, and the game
    document keeps the stored English default (other tools read it)."""
    pool = Game.create("pool", {"pool_limit": 101}, list(PLAYERS))
    again = Game.create("pool", {"pool_limit": 101}, list(PLAYERS), name="Pool 101 2")
    points = Game.create("points", {}, list(PLAYERS))
    typed = Game.create("points", {}, list(PLAYERS), name="Diwali pool")
    titles = {
        "hi": ["पूल 101", "पूल 101 2", "पॉइंट्स रमी", "Diwali pool"],
        "ta": ["பூல் 101", "பூல் 101 2", "பாயிண்ட்ஸ் ரம்மி", "Diwali pool"],
        "te": ["పూల్ 101", "పూల్ 101 2", "పాయింట్స్ రమ్మీ", "Diwali pool"],
        "en": ["Pool 101", "Pool 101 2", "Points rummy", "Diwali pool"],
    }
    for language, names in titles.items():
        client = Client(HTTP_ACCEPT_LANGUAGE=language)
        for game, name in zip([pool, again, points, typed], names, strict=True):
            page = text(client.get(game.get_absolute_url()))
            assert f'<h1 id="game-title">{name}</h1>' in page, (language, name)
            assert f"<title>{name} · " in page, (language, name)
    document = json.loads(
        Client(HTTP_ACCEPT_LANGUAGE="hi").get(f"{pool.get_absolute_url()}game.json").content
    )
    assert document["name"] == "Pool 101"


# ------------------------------------------------------------ the catalogues


def catalogue(language):
    return (LOCALE / language / "LC_MESSAGES" / "django.po").read_text(encoding="utf-8")


def po_entries(language):
    """(msgid, the whole entry, its msgstr lines) of every message of a catalogue."""
    out = []
    for entry in catalogue(language).split("\n\n")[1:]:
        lines = [line for line in entry.splitlines() if not line.startswith("#")]
        msgid = "".join(re.findall(r'"(.*)"', lines[0]))
        strs = [line for line in lines if line.startswith("msgstr")]
        out.append((msgid, entry, strs))
    return out


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated_and_none_is_fuzzy(language):
    entries = po_entries(language)
    assert len(entries) > 600
    for msgid, entry, strs in entries:
        assert "#, fuzzy" not in entry, (language, msgid)
        assert strs, (language, msgid)
        for line in strs:
            assert not line.endswith(' ""'), f"no {language} for {msgid!r}"


def test_every_language_has_every_message():
    # `make makemessages` collects the same English into each catalogue: a msgid
    # missing from one would show English on that language's pages.
    ids = {language: {msgid for msgid, _, _ in po_entries(language)} for language in TRANSLATED}
    for language in TRANSLATED:
        assert ids[language] == ids["hi"], (
            language,
            sorted(ids["hi"] - ids[language])[:5],
            sorted(ids[language] - ids["hi"])[:5],
        )


@pytest.mark.parametrize(
    "language, words, digits",
    [
        (
            "hi",
            ("जीत", "ड्रॉप", "पूल", "डील", "बाहर", "दोबारा शामिल", "फुल काउंट", "शो"),
            "[\u0966-\u096f]",
        ),
        (
            "ta",
            ("ஜெயித்தார்", "டிராப்", "பூல்", "டீல்", "அவுட்", "மீண்டும் சேர", "ஃபுல் கவுண்ட்", "ஷோ"),
            "[\u0be6-\u0bef]",
        ),
        (
            "te",
            ("గెలిచారు", "డ్రాప్", "పూల్", "డీల్", "ఔట్", "మళ్ళీ చేర", "ఫుల్ కౌంట్", "షో"),
            "[\u0c66-\u0c6f]",
        ),
    ],
)
def test_the_family_words(language, words, digits):
    text = catalogue(language)
    for word in words:
        assert word in text, (language, word)
    # Digits stay 0-9: none of the script's own digits anywhere.
    assert not re.search(digits, text)


def test_a_missing_translation_shows_the_english_words():
    with translation.override("hi"):
        # A message with no Hindi in the catalogue: its English, never empty or an id.
        error = rules.RuleError("%(name)s sat on the cards", params={"name": "Ravi"})
        assert i18n.refusal(error) == "Ravi sat on the cards"
        assert translation.gettext("A sentence nobody translated") == "A sentence nobody translated"


def test_a_translation_that_breaks_its_places_falls_back_to_english(monkeypatch):
    monkeypatch.setattr(i18n, "gettext", lambda text: "%(nobody)s गलत")
    error = rules.RuleError("%(name)s is not at this table", params={"name": "Ravi"})
    assert i18n.refusal(error) == "Ravi is not at this table"


# ------------------------------------------------------------ the engine at the edge


def test_the_engine_words_its_refusals_in_english_with_their_parts():
    with translation.override("hi"), pytest.raises(rules.RuleError) as caught:
        rules.normalize_rules("pool", {"first_drop": -1})
    error = caught.value
    assert error.message == "first drop must not be negative"
    assert error.template == "%(label)s must not be negative"
    assert error.params == {"label": "first drop"}
    with translation.override("hi"):
        assert i18n.refusal(error) == "फ़र्स्ट ड्रॉप माइनस में नहीं हो सकता"
    with translation.override("en"):
        assert i18n.refusal(error) == "first drop must not be negative"


def test_the_rules_package_imports_nothing_from_django():
    root = Path(__file__).resolve().parent.parent / "tracker" / "rules"
    for path in root.glob("*.py"):
        assert "django" not in path.read_text(), path.name


def test_engine_refusals_are_shown_in_hindi_on_the_deal_form():
    client = hindi()
    game = new_game(client, players=PLAYERS)
    # 90 points in pool 101: the most a loser can have is the full count, 80.
    response = post_deal(client, game, "Asha", Ravi=90, Meena=2, Kiran=2)
    page = text(response)
    assert "Ravi: पॉइंट 0 या 2 से 80 के बीच होने चाहिए" in page, page[:3000]
    assert "must be" not in page
    assert game.events.count() == 0


def test_the_must_play_warning_is_in_hindi():
    client = hindi()
    game = new_game(client, players=PLAYERS)
    post_deal(client, game, "Asha", Ravi=80, Meena=10, Kiran=10)
    post_deal(client, game, "Asha", Ravi=4, Meena=10, Kiran=10)  # Ravi 84, no drop left
    response = post_deal(client, game, "Asha", Ravi="first_drop", Meena=10, Kiran=10)
    assert response.status_code == 422
    page = text(response)
    # 84 + 20 = 104, past 101: the drop would put Ravi out.
    assert "Ravi का कोई ड्रॉप नहीं बचा (खेलना ही होगा): ड्रॉप से Ravi बाहर हो जाएगा" in page
    assert "(84 + 20 = 104 ≥ 101)" in page
    assert "no drops left" not in page
    assert game.events.count() == 2


def test_a_refusal_that_names_a_reason_translates_the_reason_too():
    with translation.override("hi"):
        state = rules.replay("pool", {"pool_limit": 101}, ["Asha", "Ravi"], [])
        with pytest.raises(rules.RuleError) as caught:
            rules.apply(state, {"type": "rejoin", "player": "Ravi"})
        assert i18n.refusal(caught.value) == "Ravi दोबारा शामिल नहीं हो सकते: Ravi अभी खेल में हैं"
        assert caught.value.message == "Ravi cannot rejoin: Ravi is still in"


def test_commands_and_documents_stay_english(client, tmp_path):
    game = new_game(client, players=PLAYERS)
    hindi().post(f"/g/{game.edit_token}/deal/", deal_data(game, "Asha", Ravi=10, Meena=2, Kiran=2))
    with translation.override("hi"):
        out = io.StringIO()
        call_command("export_game", game.edit_token, stdout=out)
        document = json.loads(out.getvalue())
        assert document["format"] == "pool"
        csv = client.get(f"/g/{game.edit_token}/game.csv", HTTP_ACCEPT_LANGUAGE="hi")
        lines = csv.content.decode("utf-8-sig").splitlines()
        assert lines[0].startswith("schema,")
        assert any(line.startswith("event,") for line in lines)  # the headers stay English
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({**document, "players": ["Asha"]}))
        with pytest.raises(CommandError) as caught:
            call_command("import_game", str(bad), stdout=io.StringIO())
    assert "a game needs at least 2 players" in str(caught.value)


# ------------------------------------------------------------ every page in Hindi


def games_of_each_format(client):
    """A game of each format, a deal played in each, made by `client`'s posts."""
    pool = new_game(client, players=PLAYERS)
    post_deal(client, pool, "Asha", Ravi=30, Meena="first_drop", Kiran=80)
    deals = new_game(client, fmt="deals-2", players=PLAYERS)
    post_deal(client, deals, "Ravi", Asha=20, Meena="middle_drop", Kiran=5)
    points = new_game(client, fmt="points", players=PLAYERS, point_value="0.5")
    post_deal(client, points, "Meena", Asha=12, Ravi="full_count", Kiran=3)
    basic = new_game(client, fmt="basic-100", players=PLAYERS)
    post_deal(client, basic, "Kiran", Asha=12, Ravi=4, Meena=30)
    return {"pool": pool, "deals": deals, "points": points, "basic": basic}


def pages(client):
    """(url, names on it) for every screen, over games of each format."""
    games = list(games_of_each_format(client).values())
    pool = games[0]
    table = Table.start("Nani", ["Asha", "Ravi", "Meena"])
    names = [*PLAYERS, *(g.name for g in games), "Nani"]
    urls = ["/", "/new/", "/import/", "/calculator/", "/offline/", "/tables/new/"]
    for g in games:
        urls += [g.get_absolute_url(), g.get_view_url()]
        urls.append(f"/g/{g.edit_token}/event/{g.events.first().serial}/")
    urls += [f"/g/{pool.edit_token}/split/", f"/g/{pool.edit_token}/count/1/"]
    urls += [table.get_absolute_url(), table.get_view_url(), f"/t/{table.edit_token}/new/"]
    urls += ["/g/no-such-game/"]
    return urls, names


GAME_SCREENS = re.compile(r"^/(g|w)/[^/]+/(event/\d+/|split/)?$|^/new/$")


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("screens", ["other", "game"])
def test_every_page_renders_with_no_english_left(screens, language):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    urls, names = pages(client)
    problems = []
    for url in urls:
        if (screens == "game") != bool(GAME_SCREENS.match(url) and url != "/g/no-such-game/"):
            continue
        response = client.get(url)
        assert response.status_code in (200, 404), (url, response.status_code)
        assert lang_of(response) == language, url
        page = response.content.decode()
        assert "%(" not in page, url  # never a message id with its places
        left = untranslated(page, names)
        if left:
            problems.append(f"{url}:\n  " + "\n  ".join(left))
    assert not problems, f"English left on {language} pages:\n" + "\n".join(problems)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_page_renders_in_the_language_chosen_by_the_switch(language):
    client = Client()
    client.post("/language/", {"language": language, "next": "/"})
    urls, _ = pages(client)
    for url in urls:
        response = client.get(url)
        assert response.status_code in (200, 404), url
        assert lang_of(response) == language, url


def test_the_charts_speak_hindi(client):
    game = new_game(client, players=PLAYERS)
    post_deal(client, game, "Asha", Ravi=30, Meena="first_drop", Kiran=80)
    svg = client.get(f"/g/{game.edit_token}/chart.svg", HTTP_ACCEPT_LANGUAGE="hi").content.decode()
    assert "हर डील के बाद कुल" in svg
    assert ">डील<" in svg
    assert "1 डील में हर खिलाड़ी का कुल" in svg
    english = client.get(f"/g/{game.edit_token}/chart.svg").content.decode()
    assert ">Deal<" in english


@pytest.mark.parametrize(
    "language, words",
    [("hi", "कुछ गड़बड़"), ("ta", "ஏதோ தவறு நடந்துவிட்டது"), ("te", "ఏదో పొరపాటు జరిగింది")],
)
def test_the_500_page_is_in_each_language(language, words):
    from django.template.loader import render_to_string

    with translation.override(language):
        page = render_to_string("500.html")
    assert f'<html lang="{language}">' in page and words in page
    assert "tracker.css" in page  # styled as every other page
    assert not untranslated(page)


def test_no_game_is_left_half_saved_by_a_hindi_refusal():
    assert Game.objects.count() == 0


# ------------------------------------------------------------ what review found in English


def test_the_calculator_refuses_a_card_in_hindi():
    # A third ace of spades: two decks hold two.
    page = text(hindi().get("/calculator/", {"cards": "AS AS", "add": "AS"}))
    assert "AS 3 बार है: दो गड्डियों में एक पत्ता ज़्यादा से ज़्यादा 2 बार होता है।" in page
    assert not untranslated(page), untranslated(page)
    english = text(Client().get("/calculator/", {"cards": "AS AS", "add": "AS"}))
    assert "AS appears 3 times: two decks hold at most 2." in english


def test_the_calculator_names_an_unknown_card_in_hindi():
    page = text(hindi().get("/calculator/", {"add": "ZZ"}))
    assert "&quot;ZZ&quot; कोई पत्ता नहीं है: पत्ता (A, 2-10 या T, J, Q, K) और रंग" in page
    assert "write a rank" not in page and "unknown card" not in page
    english = text(Client().get("/calculator/", {"add": "ZZ"}))
    assert "Unknown card &quot;ZZ&quot;: write a rank (A, 2-10 or T, J, Q, K)" in english


CSV_HEAD = (
    "schema,rummy-tracker.game/1\r\n"
    "game,Pool 101\r\n"
    "format,pool\r\n"
    "players,Asha,Ravi,Meena,Kiran\r\n"
    "first dealer,Asha\r\n"
    "\r\n"
    "event,deal,dealer,winner,detail,Asha result,Ravi result,Meena result,Kiran result\r\n"
)


def upload(client, body):
    from django.core.files.uploadedfile import SimpleUploadedFile

    file = SimpleUploadedFile("game.csv", (CSV_HEAD + body).encode(), content_type="text/csv")
    return client.post("/import/", {"file": file})


def test_a_bad_csv_row_is_refused_in_hindi():
    # Row 8: a cell in column K, past the header's last column, I.
    response = upload(hindi(), "deal,1,Asha,Asha,,,30,first_drop,80,,9\r\n")
    assert response.status_code == 422
    page = text(response)
    assert "नहीं लाया गया: पंक्ति 8, कॉलम K: यह सेल शीर्षक के आख़िरी कॉलम के बाद है।" in page
    assert not untranslated(page), untranslated(page)
    english = text(upload(Client(), "deal,1,Asha,Asha,,,30,first_drop,80,,9\r\n"))
    assert (
        "Not imported: row 8, column K: this cell is past the last column of the header." in english
    )
    assert Game.objects.count() == 0


def test_an_engine_refusal_in_a_csv_row_is_placed_and_translated():
    # Ravi's 90 in pool 101: a loser has at most the full count, 80.
    response = upload(hindi(), "deal,1,Asha,Asha,,,90,2,2\r\n")
    assert response.status_code == 422
    page = text(response)
    assert (
        "नहीं लाया गया: पंक्ति 8 (डील 1), कॉलम G (Ravi result): पॉइंट 0 या 2 से 80 के बीच होने चाहिए।"
    ) in page, page[page.find("error") - 200 :][:800]
    english = text(upload(Client(), "deal,1,Asha,Asha,,,90,2,2\r\n"))
    assert (
        "Not imported: row 8 (deal 1), column G (Ravi result): "
        "points must be 0 or between 2 and 80."
    ) in english
    assert Game.objects.count() == 0


def stale_deal(client, game):
    """Another phone saves a deal; this one then posts a deal made before it."""
    made_for = game.revision
    post_deal(Client(), game, "Ravi", Asha=10, Meena=2, Kiran=2)
    return client.post(
        f"/g/{game.edit_token}/deal/", deal_data(game, "Asha", version=made_for, Ravi=5, Meena=2)
    )


def test_the_stale_notice_says_in_hindi_which_deal_the_other_phone_saved():
    client = hindi()
    game = new_game(client, players=PLAYERS)
    post_deal(client, game, "Asha", Ravi=30, Meena=2, Kiran=2)
    game.refresh_from_db()
    response = stale_deal(client, game)
    assert response.status_code == 409
    page = text(response)
    assert "किसी और ने अभी डील 2 सहेजी है। नया स्कोर यह है।" in page
    assert "Someone else" not in page and "saved deal" not in page
    english = Client()
    game.refresh_from_db()
    answer = stale_deal(english, game)
    assert "Someone else just saved deal 3. Here is the new score." in text(answer)
    assert game.events.count() == 3  # the two stale posts saved nothing


@pytest.mark.parametrize(
    "change, english, hindi_words",
    [
        (
            {"change": "changed", "event": "deal", "n": 4},
            "Someone else just changed deal 4.",
            "किसी और ने अभी डील 4 बदली है।",
        ),
        (
            {"change": "undone", "event": "deal", "n": 2},
            "Someone else just deleted deal 2.",
            "किसी और ने अभी डील 2 मिटाई है।",
        ),
        (
            {"change": "undone", "event": "rejoin", "name": "Ravi"},
            "Someone else just undid Ravi's rejoin.",
            "किसी और ने अभी Ravi का दोबारा शामिल होना वापस लिया है।",
        ),
        (
            {"change": "added", "event": "join", "name": "Dev"},
            "Someone else just added Dev.",
            "किसी और ने अभी Dev को जोड़ा है।",
        ),
        (
            {"change": "added", "event": "sit_out", "name": "Dev"},
            "Someone else just sat Dev out.",
            "किसी और ने अभी Dev को बाहर बिठाया है।",
        ),
        ({}, "Someone else just changed the game.", "किसी और ने अभी गेम बदला है।"),
        ({"change": "removed"}, "Someone else just changed the game.", "किसी और ने अभी गेम बदला है।"),
    ],
)
def test_every_stored_change_is_worded_in_both_languages(change, english, hindi_words):
    with translation.override("en"):
        assert i18n.someone_else(change) == english
    with translation.override("hi"):
        assert i18n.someone_else(change) == hindi_words


def test_a_sit_out_is_not_called_the_end_of_the_session():
    client = Client()
    game = new_game(client, fmt="points", players=PLAYERS, point_value="1")
    post_deal(client, game, "Asha", Ravi=10, Meena=2, Kiran=2)
    game.refresh_from_db()
    response = client.post(
        f"/g/{game.edit_token}/sit-out/", {"player": "Kiran", "version": game.revision}
    )
    assert response.status_code in (200, 302), response.content.decode()[:500]
    assert Game.objects.get(pk=game.pk).last_change == {
        "change": "added",
        "event": "sit_out",
        "name": "Kiran",
    }


def test_a_delete_that_breaks_a_rejoin_is_refused_in_hindi():
    client = hindi()
    game = new_game(client, players=PLAYERS)
    post_deal(client, game, "Asha", Ravi=80, Meena=2, Kiran=2)
    post_deal(client, game, "Asha", Ravi=80, Meena=2, Kiran=2)  # Ravi 160: out
    game.refresh_from_db()
    response = client.post(
        f"/g/{game.edit_token}/rejoin/", {"version": game.revision, "player": "Ravi"}
    )
    assert game.events.count() == 3, text(response)[:2000]
    first = game.events.get(position=0).serial
    game.refresh_from_db()
    response = client.post(
        f"/g/{game.edit_token}/event/{first}/delete/", {"version": game.revision}, follow=True
    )
    page = text(response)
    # Without deal 1 Ravi has 80: still in, so the rejoin after deal 2 would not stand.
    assert (
        "नहीं मिटाया: डील 2 के बाद का दोबारा शामिल होना अब सही नहीं रहेगा "
        "(Ravi दोबारा शामिल नहीं हो सकते: Ravi अभी खेल में हैं)।"
    ) in page
    assert game.events.count() == 3


def test_the_table_lists_a_basic_rummy_game_in_hindi():
    client = hindi()
    table = Table.start("Nani", ["Asha", "Ravi", "Meena"])
    table_game(client, table, ["Asha", "Ravi", "Meena"], fmt="basic-100")
    page = text(client.get(table.get_absolute_url()))
    # The game's name stays as it was made ("Basic Rummy to 100"); its format is translated.
    assert re.search(r'<span class="meta"><time [^>]*>[^<]*</time> · बेसिक रमी, 100 तक</span>', page)
    english = text(Client().get(table.get_absolute_url()))
    assert re.search(r"</time> · Basic Rummy to 100</span>", english)


def test_a_bad_game_document_is_refused_in_hindi():
    from django.core.files.uploadedfile import SimpleUploadedFile

    def post(client):
        body = b'{"schema": "rummy-tracker.game/1", "colour": "green"}'
        file = SimpleUploadedFile("game.json", body, content_type="application/json")
        return text(client.post("/import/", {"file": file}))

    assert "नहीं लाया गया: colour गेम की फ़ाइल का हिस्सा नहीं है।" in post(hindi())
    assert "Not imported: colour is not part of a game document." in post(Client())
    assert Game.objects.count() == 0


def test_a_deal_posted_after_the_game_ended_is_refused_in_hindi():
    client = hindi()
    game = new_game(client, players=("Asha", "Ravi"))
    post_deal(client, game, "Asha", Ravi=80)
    post_deal(client, game, "Asha", Ravi=80)  # Ravi 160: out, Asha wins
    response = post_deal(client, game, "Ravi", Asha=5)
    assert response.status_code == 422
    assert "गेम ख़त्म हो चुका है: अब और डील नहीं।" in text(response)
    english = post_deal(Client(), game, "Ravi", Asha=5)
    assert "The game is over: no more deals." in text(english)
    assert game.events.count() == 2


# ------------------------------------------------------------ refused forms, in Hindi


def refused_forms(client):
    """A refused post to every form a family fills in, each with a few mistakes."""
    from tests.views.test_tables import make_table, version

    game = new_game(client, players=PLAYERS)
    post_deal(client, game, "Asha", Ravi=30, Meena=10, Kiran=10)
    three = new_game(client, players=PLAYERS[:3])
    post_deal(client, three, "Asha", Ravi=30, Meena=10)
    table = make_table(client, members=PLAYERS)
    deal = game.events.get().serial
    v = str(Game.objects.get(pk=game.pk).revision)
    return [
        ("/new/", {"format": "pool-101", "rules_for": "pool-101", "player": ["Asha", "Asha"]}),
        (
            "/new/",
            {"format": "pool-101", "rules_for": "pool-101", "player": ["", ""], "rules_shown": "1"}
            | {"entry_fee": "lots", "first_drop": "-3"},
        ),
        (f"/g/{game.edit_token}/deal/", {"version": v, "winner": "", "r1": "points", "p1": "x"}),
        (f"/g/{game.edit_token}/event/{deal}/", {"version": v, "winner": "0", "p1": "999"}),
        (f"/g/{game.edit_token}/join/", {"version": v, "name": "Asha"}),
        (f"/g/{game.edit_token}/split/", {"version": v, "confirm": "1"}),  # 4 still in
        (
            f"/g/{three.edit_token}/split/",
            {"version": str(Game.objects.get(pk=three.pk).revision), "confirm": "1"}
            | {"method": "custom", "s0": "-5", "s1": "lots"},
        ),
        ("/tables/new/", {"name": "", "members": "Asha\nAsha"}),
        (f"/t/{table.edit_token}/members/", {"version": version(table), "name": "Asha"}),
        (f"/t/{table.edit_token}/new/", {"version": version(table), "format": "pool-101"}),
    ]


@pytest.mark.parametrize("language", TRANSLATED)
def test_refused_forms_say_what_was_wrong_in_each_language(language):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    problems = []
    for url, data in refused_forms(client):
        response = client.post(url, data, follow=True)
        assert response.redirect_chain or response.status_code in (400, 409, 422), url
        assert response.status_code != 500, url
        page = response.content.decode()
        assert lang_of(response) == language, url
        left = untranslated(page, (*PLAYERS, "Pool 101", "Nani's table"))
        if left:
            problems.append(f"POST {url} {data}:\n  " + "\n  ".join(left))
    assert not problems, f"English left on refused {language} forms:\n" + "\n".join(problems)


# ------------------------------------------------------------ every kind of history row, translated


def example_games():
    from tests.conftest import example_paths, load_example, our_example_paths

    for path in [*example_paths(), *our_example_paths()]:
        doc = load_example(path)
        doc.pop("state", None)
        joiners = [e["player"] for e in doc["history"] if e["type"] == "join"]
        yield path.stem, Game.import_document(doc), [*doc["players"], *joiners]


@pytest.mark.parametrize(
    "language, rejoined, undo",
    [
        ("hi", "D 62 पर दोबारा शामिल", "इसे वापस लें? उसके बाद का हर आँकड़ा फिर से निकाला जाएगा।"),
        (
            "ta",
            "D 62-இல் மீண்டும் சேர்ந்தார்",
            "இதை ரத்து செய்யவா? அதற்குப் பின் வரும் ஒவ்வொரு எண்ணும் மீண்டும் கணக்கிடப்படும்.",
        ),
        ("te", "D 62 తో మళ్ళీ చేరారు", "దీన్ని రద్దు చేయాలా? దాని తర్వాతి అంకెలన్నీ మళ్ళీ లెక్కవుతాయి."),
    ],
)
def test_every_worked_example_reads_in_each_language_with_its_history(language, rejoined, undo):
    """Rejoins, splits, joins, sit-outs, leaves and ended sessions in the history
    (and their Undo confirmations) are words a family reads: none left in English."""
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    problems = []
    games = {}
    for name, game, players in example_games():
        games[name] = game
        for url in (game.get_absolute_url() + "?history=all", game.get_view_url() + "?history=all"):
            page = client.get(url).content.decode()
            left = untranslated(page, (*players, game.name))
            if left:
                problems.append(f"{name} {url[:3]}:\n  " + "\n  ".join(left))
    assert not problems, f"English left on {language} game pages:\n" + "\n".join(problems)
    # The same rows in English: in example 02, D and C rejoin at H + 1 = 62 (its README).
    rejoin = games["02-pool-101-rejoin"]
    english = text(Client().get(rejoin.get_absolute_url()))
    assert "D rejoined at 62" in english and "C rejoined at 62" in english
    assert "Undo this? Every figure after it is worked out again." in english
    translated = text(client.get(rejoin.get_absolute_url()))
    assert rejoined in translated and undo in translated


def upload_head(client, head):
    from django.core.files.uploadedfile import SimpleUploadedFile

    file = SimpleUploadedFile("game.csv", head.encode(), content_type="text/csv")
    return client.post("/import/", {"file": file})


def test_a_refused_rule_row_of_a_csv_is_placed_and_translated():
    # Row 6: a rule row after the first dealer, with a yes where rejoin takes true or false.
    head = CSV_HEAD.replace("\r\n\r\n", "\r\nrule rejoin,yes\r\n\r\n", 1)
    response = upload_head(hindi(), head)
    assert response.status_code == 422
    page = text(response)
    assert "नहीं लाया गया: पंक्ति 6, कॉलम B (rule rejoin): दोबारा शामिल हाँ या ना होना चाहिए।" in page
    # The rule's key stays as the file has it, like a column's header.
    assert not untranslated(page, ("rule rejoin",)), untranslated(page, ("rule rejoin",))
    english = text(upload_head(Client(), head))
    assert "Not imported: row 6, column B (rule rejoin): rejoin must be true or false." in english
    # A key that is not a game CSV's: the refusal lists the rows it has, rule rows among them.
    bad = CSV_HEAD.replace("\r\n\r\n", "\r\nrules of the house,none\r\n\r\n", 1)
    page = text(upload_head(hindi(), bad))
    assert "पंक्ति 6, कॉलम A: &#x27;rules of the house&#x27; गेम की CSV में नहीं होता" in page
    assert "first dealer और rule NAME (टेबल के हर नियम की एक पंक्ति) हैं" in page
    assert Game.objects.count() == 0


# ------------------------------------------------------------ the live board after a save


def test_watchers_in_two_languages_each_see_every_new_deal_in_their_own(client):
    # A phone saves in English; a watcher reading Hindi and one reading English each
    # fetch the board as their stream tells them of a new revision.
    game = new_game(client)
    watch = f"/w/{game.view_token}/live/?v=0"
    readers = {"hi": Client(HTTP_ACCEPT_LANGUAGE="hi"), "en": Client(HTTP_ACCEPT_LANGUAGE="en")}
    words = {"hi": ("डील्स", "2 डील हुईं"), "en": ("Deals", "2 deals played")}
    post_deal(client, game, "Asha", htmx=True, Ravi=20, Meena=30, Kiran=40)
    for language, first in (("hi", "1 डील हुई"), ("en", "1 deal played")):
        board = text(readers[language].get(watch, HTTP_HX_REQUEST="true"))
        assert first in board and re.search(r"Kiran.*?<td class=\"num\">40</td>", board)
    post_deal(client, game, "Asha", htmx=True, Ravi=10, Meena=5, Kiran=2)
    for language, reader in readers.items():
        board = text(reader.get(watch, HTTP_HX_REQUEST="true"))
        heading, played = words[language]
        other_heading, other_played = words["en" if language == "hi" else "hi"]
        assert heading in board and played in board
        assert other_heading not in board and other_played not in board
        # Pool 101: Kiran 40 + 2, Meena 30 + 5, Ravi 20 + 10.
        assert re.search(r"Kiran.*?<td class=\"num\">42</td>", board)
        assert re.search(r"Meena.*?<td class=\"num\">35</td>", board)
        assert "csrfmiddlewaretoken" not in board


# ------------------------------------------------------------ every refusal, every change


def engine_templates():
    """Every refusal template of the rules package (`N_("...")`), and the places
    where a RuleError is made from anything else (words put together)."""
    templates, loose = set(), []
    for path in sorted((Path(rules.__file__).parent).glob("*.py")):
        tree = ast.parse(path.read_text())
        marked = set()  # the names assigned a template: `template = N_(...)`
        for node in ast.walk(tree):
            if called(node, "N_") and isinstance(node.args[0], ast.Constant):
                templates.add(node.args[0].value)
            if isinstance(node, ast.Assign) and is_template(node.value, set()):
                marked.update(t.id for t in node.targets if isinstance(t, ast.Name))
        loose += [
            f"{path.name}:{node.lineno}"
            for node in ast.walk(tree)
            if called(node, "RuleError") and not (node.args and is_template(node.args[0], marked))
        ]
    return templates, loose


def called(node, name):
    return isinstance(node, ast.Call) and getattr(node.func, "id", None) == name


def is_template(node, marked):
    if called(node, "N_"):
        return True
    if isinstance(node, ast.IfExp):
        return is_template(node.body, marked) and is_template(node.orelse, marked)
    return isinstance(node, ast.Name) and node.id in marked  # given a template above


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_engine_refusal_reads_in_each_language(language):
    templates, loose = engine_templates()
    assert not loose, f"refusals not made from a template: {loose}"
    assert len(templates) > 100
    with translation.override(language):
        worded = [t for t in templates if re.search("[A-Za-z]", re.sub(r"%\(\w+\)s", "", t))]
        english = sorted(t for t in worded if translation.gettext(t) == t)
    assert not english, english[:5]


@pytest.mark.parametrize(
    "language, words",
    [
        ("hi", "Ravi पहले से खेल रहे हैं"),
        ("ta", "Ravi ஏற்கெனவே ஆடுகிறார்"),
        ("te", "Ravi ఇప్పటికే ఆడుతున్నారు"),
    ],
)
def test_bringing_back_a_player_already_in_is_refused_in_each_language(language, words):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    game = new_game(client, fmt="points", players=PLAYERS, point_value="1")
    answer = client.post(
        f"/g/{game.edit_token}/sit-in/",
        {"player": "Ravi", "version": game.revision},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 422
    assert words in text(answer) and "already in" not in text(answer)


def every_change():
    """Each kind of change a phone can make, made through the model, and the
    English the stale notice says of it."""
    game = Game.create("points", {}, ["Asha", "Ravi", "Meena"])
    pool = Game.create("pool", {"pool_limit": 101, "entry_fee": "50"}, ["Asha", "Ravi", "Meena"])
    said = []

    def note(game, english):
        game.refresh_from_db()
        said.append((game.last_change, english))

    def add(game, event):
        game.add_event(event, game.revision)

    add(game, {"type": "deal", "winner": "Asha", "results": {"Ravi": 10, "Meena": 5}})
    note(game, "Someone else just saved deal 1.")
    game.replace_event(1, {"type": "deal", "winner": "Ravi", "results": {"Asha": 3, "Meena": 5}}, 1)
    note(game, "Someone else just changed deal 1.")
    for event, done, undone in [
        ({"type": "join", "player": "Dev", "after": None}, "added Dev", "undid adding Dev"),
        ({"type": "sit_out", "player": "Dev"}, "sat Dev out", "undid Dev sitting out"),
        ({"type": "sit_in", "player": "Dev"}, "brought Dev back in", "undid Dev coming back in"),
        ({"type": "leave", "player": "Dev"}, "noted that Dev left", "undid Dev leaving"),
    ]:
        add(game, event)
        note(game, f"Someone else just {done}.")
        game.delete_event(game.events.order_by("position").last().serial, game.revision)
        note(game, f"Someone else just {undone}.")
        add(game, event)
    add(game, {"type": "end"})
    note(game, "Someone else just ended the session.")
    game.delete_event(game.events.order_by("position").last().serial, game.revision)
    note(game, "Someone else just undid the end of the session.")
    game.delete_event(1, game.revision)
    note(game, "Someone else just deleted deal 1.")
    add(pool, {"type": "deal", "winner": "Asha", "results": {"Ravi": 80, "Meena": 40}})
    add(pool, {"type": "deal", "winner": "Asha", "results": {"Ravi": 30, "Meena": 2}})
    add(pool, {"type": "rejoin", "player": "Ravi"})
    note(pool, "Someone else just rejoined Ravi.")
    pool.delete_event(pool.events.order_by("position").last().serial, pool.revision)
    note(pool, "Someone else just undid Ravi's rejoin.")
    add(pool, {"type": "split", "method": "equal"})
    note(pool, "Someone else just split the pot.")
    pool.delete_event(pool.events.order_by("position").last().serial, pool.revision)
    note(pool, "Someone else just undid the split.")
    return said


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_change_another_phone_makes_is_said_in_each_language(language):
    said = every_change()
    assert len(said) == 17
    for change, english in said:
        with translation.override("en"):
            assert i18n.someone_else(change) == english
        with translation.override(language):
            shown = i18n.someone_else(change)
        assert shown != english and not untranslated(shown, ("Dev", "Ravi")), (change, shown)
