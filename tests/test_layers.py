"""The layers the tree shows: imports flow one way, and each game lives in its own package.

Read from the source with :mod:`ast` and :mod:`tokenize` (what Python itself reads):

- no circle of runtime imports among the product's modules (imports under
  ``TYPE_CHECKING`` are for the type checker only and do not count);
- an import inside a function says why on its line or the line above;
- the controller imports neither the page nor the composition root, the page not the
  root; the referee and the rules core import no game; the rules core imports only the
  standard library, and a game's rules only that and the core;
- a game's name (in code: names and strings, not comments or docstrings) appears outside
  its own packages (``controller/games/<game>/``, ``web_ui/games/<game>/``) only in the
  registries that list the games.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("controller", "web_ui", "pyramid_board", "firmware")
RIGS = ("firmware/sim/", "firmware/emulator/")
"""Test rigs kept beside the firmware; not in the wheel (tests/test_wheel.py)."""
GAMES = {"perlen": re.compile(r"perlen", re.I), "pyramidos": re.compile(r"pyramidos", re.I)}
"""Each game's package folder name and what its name looks like in code."""
REGISTRIES = ("controller/games/registry.py", "web_ui/games/registry.py")


@dataclass(frozen=True, slots=True)
class Import:
    module: str
    """The importing module."""
    target: str
    """The project's module it loads."""
    line: int
    in_function: bool


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    found = {}
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            if not path.relative_to(ROOT).as_posix().startswith(RIGS):
                found[_module_name(path)] = path
    return found


SOURCES = _sources()


def _resolve(name: str) -> str | None:
    """The project module ``name`` is, or is inside (``a.b.C`` -> ``a.b``)."""
    while name and name not in SOURCES:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def imports(module: str) -> Iterator[Import]:
    """Every runtime import of the project's modules in ``module``."""
    path = SOURCES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def walk(node: ast.AST, in_function: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for other in child.orelse:
                    yield from walk_one(other, in_function)
                continue
            yield from walk_one(child, in_function)

    def walk_one(child: ast.AST, in_function: bool) -> Iterator[Import]:
        inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
        targets: list[str] = []
        if isinstance(child, ast.Import):
            targets = [alias.name for alias in child.names]
        elif isinstance(child, ast.ImportFrom):
            base = child.module or ""
            if child.level:
                parts = package.split(".")[: len(package.split(".")) - child.level + 1]
                base = ".".join([*parts, base] if base else parts)
            # `from pkg import submodule` loads the submodule, not the package's names.
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in SOURCES else base for a in child.names
            ]
        for target in targets:
            resolved = _resolve(target)
            if resolved is not None and resolved != module:
                assert isinstance(child, ast.Import | ast.ImportFrom)
                yield Import(module, resolved, child.lineno, in_function)
        yield from walk(child, inside)

    yield from walk(ast.parse(path.read_text(encoding="utf-8")), False)


ALL_IMPORTS = [i for module in SOURCES for i in imports(module)]


def circles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    graph: dict[str, set[str]] = {m: set() for m in SOURCES}
    for i in ALL_IMPORTS:
        if not i.in_function:
            graph[i.module].add(i.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_circle_of_runtime_imports() -> None:
    assert circles() == []


def test_the_circle_check_can_fail() -> None:
    global ALL_IMPORTS
    saved = ALL_IMPORTS
    try:
        ALL_IMPORTS = [*saved, Import("controller.referee.game", "controller.referee", 1, False)]
        assert circles(), "a made-up import of the referee's face from below it"
    finally:
        ALL_IMPORTS = saved


def _explained(lines: list[str], line: int) -> bool:
    """A comment on the import's line, right above its run of imports, or earlier in its
    function saying why it imports there."""
    if "#" in lines[line - 1]:
        return True
    number = line - 2
    while number >= 0 and lines[number].strip().startswith(("from ", "import ")):
        number -= 1
    if number >= 0 and lines[number].strip().startswith("#"):
        return True
    while number >= 0 and not lines[number].lstrip().startswith(("def ", "async def ")):
        text = lines[number].strip()
        if text.startswith("#") and "import" in text:
            return True
        number -= 1
    return False


def test_every_import_inside_a_function_says_why() -> None:
    unexplained = []
    for i in ALL_IMPORTS:
        if not i.in_function:
            continue
        lines = SOURCES[i.module].read_text(encoding="utf-8").splitlines()
        if not _explained(lines, i.line):
            unexplained.append(f"{i.module}:{i.line} imports {i.target}")
    assert unexplained == []


def _layer(module: str) -> str:
    return module.split(".")[0]


@pytest.mark.parametrize(
    ("below", "above"),
    [
        ("controller", ("web_ui", "pyramid_board")),
        ("web_ui", ("pyramid_board",)),
        ("firmware", ("controller", "web_ui", "pyramid_board")),
        ("controller.referee", ("controller.games", "controller.table", "controller.store")),
        ("controller.rules", ("controller.referee", "controller.games", "controller.hardware")),
    ],
)
def test_imports_flow_one_way(below: str, above: tuple[str, ...]) -> None:
    wrong = [
        f"{i.module}:{i.line} imports {i.target}"
        for i in ALL_IMPORTS
        if (i.module == below or i.module.startswith(below + "."))
        and any(i.target == a or i.target.startswith(a + ".") for a in above)
    ]
    assert wrong == []


def test_the_rules_import_only_the_standard_library_and_the_rules_core() -> None:
    cores = [m for m in SOURCES if m.startswith("controller.rules")]
    cores += [
        m for m in SOURCES if re.fullmatch(r"controller\.games\.\w+\.(rules|pyramid|options)", m)
    ]
    assert "controller.games.perlen.rules" in cores and "controller.rules.records" in cores
    for module in cores:
        package = module.rpartition(".")[0]
        for i in imports(module):
            allowed = i.target.startswith("controller.rules") or (
                i.target.rpartition(".")[0] == package and i.target in cores
            )
            assert allowed or i.target in ("controller", "controller.games", package), i
        tree = ast.parse(SOURCES[module].read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                assert top == "controller" or top in sys.stdlib_module_names, (module, name)


# -- a game's name ---------------------------------------------------------------------------


def code_words(path: Path) -> Iterator[str]:
    """The names and strings of a file's code: comments and docstrings left out (for a
    template or a script, every line: they have no docstrings, and a comment there still
    ships to the browser)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        yield from text.splitlines()
        return
    docstrings = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):  # noqa: SIM102
            if isinstance(node.value.value, str):
                docstrings.add(node.lineno)
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.NAME, tokenize.STRING) and token.start[0] not in docstrings:
            yield token.string


def naming(game: str) -> list[str]:
    """The product's files outside ``game``'s packages whose code names it."""
    own = (f"controller/games/{game}/", f"web_ui/games/{game}/")
    found = []
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*")):
            relative = path.relative_to(ROOT).as_posix()
            if path.suffix not in (".py", ".html", ".js", ".css") or relative.startswith(own):
                continue
            if relative.startswith(RIGS):
                continue
            if any(GAMES[game].search(word) for word in code_words(path)):
                found.append(relative)
    return found


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_game_is_named_only_in_its_packages_and_the_registries(game: str) -> None:
    assert naming(game) == sorted(REGISTRIES)


def test_the_name_check_reads_code_not_comments(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""Perlen-Pyramide."""\n# pyramidos\nx = "perlen-pyramide"\n')
    words = list(code_words(sample))
    assert any(GAMES["perlen"].search(w) for w in words)
    assert not any(GAMES["pyramidos"].search(w) for w in words)
