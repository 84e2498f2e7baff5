"""The rules package is pure Python: it imports the standard library and itself only.

style.md: the engine takes plain data and returns plain data: no Django, no
database, no I/O, no storage formats (no pickling). Every module of
tracker/rules/ is read as source (not imported) and every import in it,
at the top or inside a function, is checked.
"""

import ast
import sys
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "tracker" / "rules"
PACKAGE = ("tracker", "rules")

# Standard modules that read or write files, sockets or stored bytes: an engine
# that takes and returns plain data has no use for them.
NO_IO = {
    "bz2",
    "copyreg",
    "csv",
    "dbm",
    "gzip",
    "http",
    "io",
    "json",
    "lzma",
    "marshal",
    "os",
    "pathlib",
    "pickle",
    "shelve",
    "shutil",
    "socket",
    "sqlite3",
    "tempfile",
    "urllib",
    "zlib",
}


def modules():
    return sorted(RULES.rglob("*.py"))


def imports(source, path):
    """(line, the module imported, made absolute) for every import in `source`,
    the text of the module at `path`."""
    here = (*PACKAGE, *path.relative_to(RULES).parent.parts)
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # `from . import x`, `from ..models import y`
                base = here[: len(here) - node.level + 1]
                yield node.lineno, ".".join([*base, *filter(None, [node.module])])
            else:
                yield node.lineno, node.module


def outside(module):
    """Why `module` may not be imported by the rules package, or None."""
    parts = tuple(module.split("."))
    if parts[: len(PACKAGE)] == PACKAGE:
        return None
    if parts[0] not in sys.stdlib_module_names:
        return "not the standard library"
    if parts[0] in NO_IO:
        return "input, output or a storage format"
    return None


def test_the_rules_package_has_modules_to_check():
    names = {path.name for path in modules()}
    assert {"engine.py", "state.py", "pool.py", "hand.py", "money_format.py"} <= names


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(RULES)))
def test_a_rules_module_imports_the_standard_library_and_the_package_only(path):
    wrong = [
        f"{path.relative_to(RULES.parent.parent)}:{line}: {module} ({why})"
        for line, module in imports(path.read_text(), path)
        if (why := outside(module))
    ]
    assert wrong == []


@pytest.mark.parametrize(
    "module, why",
    [
        ("tracker.rules.table", None),
        ("decimal", None),
        ("__future__", None),
        ("collections.abc", None),
        ("django.utils.translation", "not the standard library"),
        ("tracker.models", "not the standard library"),
        ("hypothesis", "not the standard library"),
        ("pickle", "input, output or a storage format"),
        ("os.path", "input, output or a storage format"),
    ],
)
def test_what_the_check_lets_through_and_what_it_refuses(module, why):
    assert outside(module) == why


def test_a_relative_import_that_leaves_the_package_is_read_as_where_it_goes():
    """`from ..models import Game` in tracker/rules/x.py is tracker.models."""
    source = "from . import pool\nfrom .table import N_\nfrom ..models import Game\n"
    found = list(imports(source, RULES / "x.py"))
    assert found == [(1, "tracker.rules"), (2, "tracker.rules.table"), (3, "tracker.models")]
    assert [outside(module) for _, module in found] == [None, None, "not the standard library"]
