"""The code reads top-down: no module of tracker/ imports one that imports it
back, and Django's own pages (the admin) work as Django ships them."""

import ast
from pathlib import Path

import pytest

TRACKER = Path(__file__).resolve().parent.parent / "tracker"


def module_name(path):
    parts = path.relative_to(TRACKER.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path, modules):
    """The tracker modules `path` imports, anywhere in it (a function's import too)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    tree = ast.parse(path.read_text())
    # What only the type checker reads (`if TYPE_CHECKING:`) is no import at run time.
    for guard in ast.walk(tree):
        if isinstance(guard, ast.If) and getattr(guard.test, "id", "") == "TYPE_CHECKING":
            guard.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def test_no_module_of_the_tracker_imports_one_that_imports_it_back():
    paths = [p for p in TRACKER.rglob("*.py") if "migrations" not in p.parts]
    modules = {module_name(p): p for p in paths}
    graph = {name: imports_of(path, modules) for name, path in modules.items()}
    # A package imports its own modules only by their names: not an edge back.
    for name in graph:
        graph[name] = {t for t in graph[name] if not (name.startswith(t + ".") and t in modules)}
    cycles = []

    def visit(name, trail):
        if name in trail:
            cycles.append(" -> ".join([*trail[trail.index(name) :], name]))
            return
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, [*trail, name])
        done.add(name)

    done = set()
    for name in sorted(graph):
        visit(name, [])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


@pytest.mark.django_db
def test_the_admin_login_page_answers(client, admin_on):
    response = client.get("/admin/login/")
    assert response.status_code == 200
    assert 'name="username"' in response.content.decode()
