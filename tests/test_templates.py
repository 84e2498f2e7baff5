"""The templates stay readable (issue 28): no line over 160 characters, and
whatever a line opens (an HTML element, a template block) is indented inside it."""

import itertools
import re
from pathlib import Path

import pytest

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
FILES = sorted(path for path in TEMPLATES.rglob("*") if path.is_file())
LONGEST = 160

# Elements with no end tag: they never hold the lines after them.
VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}
# Template tags that hold the lines up to their {% end... %}.
BLOCKS = {
    "if",
    "for",
    "with",
    "block",
    "partialdef",
    "blocktranslate",
    "blocktrans",
    "spaceless",
    "comment",
}
MIDDLE = r"\{%-?\s*(else|elif|empty|plural)\b"
# A line that closes or carries on the block above it, rather than sitting inside it.
CLOSES = re.compile(rf"</|{MIDDLE}|\{{%-?\s*end\w*")

HTML_TAG = re.compile(r"<(/?)([a-zA-Z][\w-]*)")
SELF_CLOSED = re.compile(r"<[a-zA-Z][^<>]*/>")  # an SVG template's <line .../>: holds nothing
TEMPLATE_TAG = re.compile(r"\{%-?\s*(\w+)")
TEMPLATE_CODE = re.compile(r"\{%.*?%\}|\{\{.*?\}\}|\{#.*?#\}")
WRAPPED_TAG = re.compile(r"<[a-zA-Z/][^>]*$")  # a tag left unfinished at the end of the line
COMMENT = re.compile(r"\{%\s*comment\b.*?\{%\s*endcomment\s*%\}", re.S)


def name(path):
    return path.relative_to(TEMPLATES.parent)


def indent(line):
    return len(line) - len(line.lstrip(" "))


def opens(line):
    """Whether the line leaves an HTML element or a template block open."""
    depth = 0
    for closing, tag in HTML_TAG.findall(SELF_CLOSED.sub("", TEMPLATE_CODE.sub("", line))):
        if tag.lower() not in VOID:
            depth += -1 if closing else 1
    for tag in TEMPLATE_TAG.findall(re.sub(r"\{#.*?#\}", "", line)):
        if tag in BLOCKS:
            depth += 1
        elif tag.startswith("end") and tag[3:] in BLOCKS:
            depth -= 1
    return depth > 0 or (depth == 0 and re.match(MIDDLE, line.strip()) is not None)


def logical_lines(source):
    """(number, indent, text) of each non-blank line, a tag wrapped over several
    lines read as one line; and (number, problem) of each wrapped line that is
    not indented under the tag's first line."""
    # A comment is prose: a "<button>" in it opens nothing.
    source = COMMENT.sub(lambda comment: comment.group(0).replace("<", "&lt;"), source)
    lines = source.splitlines()
    found, problems = [], []
    number = 0
    while number < len(lines):
        first, text = number, lines[number]
        while WRAPPED_TAG.search(TEMPLATE_CODE.sub("", text)) and number + 1 < len(lines):
            number += 1
            if indent(lines[number]) <= indent(lines[first]):
                problems.append(
                    (number + 1, f"a tag wrapped from line {first + 1} is not indented")
                )
            text += " " + lines[number].strip()
        if text.strip():
            found.append((first + 1, indent(text), text))
        number += 1
    return found, problems


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(name(path)))
def test_no_template_line_is_over_160_characters(path):
    long = [
        f"{name(path)}:{number}: {len(line)} characters"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if len(line) > LONGEST
    ]
    assert not long, f"lines over {LONGEST} characters:\n" + "\n".join(long)


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(name(path)))
def test_what_a_line_opens_is_indented_inside_it(path):
    lines, problems = logical_lines(path.read_text())
    for (number, depth, text), (next_number, next_depth, next_text) in itertools.pairwise(lines):
        if opens(text) and not CLOSES.match(next_text.strip()) and next_depth <= depth:
            problems.append(
                (next_number, f"not indented inside line {number}: {text.strip()[:60]}")
            )
    assert not problems, "\n".join(
        f"{name(path)}:{number}: {problem}" for number, problem in problems
    )
