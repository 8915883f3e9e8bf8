"""The layers the tree shows: imports flow one way, and each game lives in its own package.

Read from the source with :mod:`ast` and :mod:`tokenize` (what Python itself reads), over
the product and the maker's and measurer's code beside it (``tools/``, ``hardware/``,
``bench/``, the firmware's rigs):

- no circle of imports among those modules, counting every import: at the top, inside a
  function, and under ``TYPE_CHECKING`` (a circle the type checker alone sees is still
  two modules that cannot be read, or moved, one without the other); a circle is reported
  as its modules and its shortest loop, each step with its line;
- an import inside a function says why on its line or the line above;
- the controller imports neither the page nor the composition root, the page not the
  root; the referee and the rules core import no game; the rules core imports only the
  standard library, and a game's rules only that and the core;
- the registries that list the games and their views are imported only by the
  composition root (``pyramid_board``; the tests and rigs too, roots of their own):
  everything below it is handed the games it plays;
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
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("controller", "web_ui", "pyramid_board", "firmware")
BESIDE = ("tools", "hardware", "bench", "rigs")
"""The maker's generators and models, the measurements and the rigs they share with the
tests: not shipped, still layered."""
RIGS = ("firmware/sim/", "firmware/emulator/")
"""Test rigs kept beside the firmware; not in the wheel (tests/test_wheel.py)."""
REGISTRY_MODULES = ("controller.games.registry", "web_ui.games.registry")
ROOTS = ("pyramid_board", "rigs")
"""What may import the registries: the composition root, and the rigs, which build tables
and pages as it does (the tests, not read here, may too)."""
KNOWN_CIRCLES: list[list[str]] = []
"""Circles allowed for now: none. The last one (issue 36), referee protocol <-> session <->
state through type-only imports, went when a game came to answer pure questions over its
own values (:class:`controller.referee.protocol.Scene`) with intents, so the seam names no
referee state, session or step (it was 17 modules, then 11, 9, 3)."""
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
    type_only: bool = False
    """Under ``if TYPE_CHECKING:``."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources(packages: tuple[str, ...]) -> dict[str, Path]:
    found = {}
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[_module_name(path)] = path
    return found


SOURCES = _sources(PRODUCT + BESIDE)
"""Every module read: the product, its rigs, and the code beside it."""


def _in_product(module: str) -> bool:
    path = SOURCES[module].relative_to(ROOT).as_posix()
    return module.split(".")[0] in PRODUCT and not path.startswith(RIGS)


def _resolve(name: str) -> str | None:
    """The project module ``name`` is, or is inside (``a.b.C`` -> ``a.b``)."""
    while name and name not in SOURCES:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def imports(module: str) -> Iterator[Import]:
    """Every import of the project's modules in ``module`` (``type_only``: under
    ``TYPE_CHECKING``)."""
    path = SOURCES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def walk(node: ast.AST, in_function: bool, type_only: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for inside in child.body:
                    yield from walk_one(inside, in_function, True)
                for other in child.orelse:
                    yield from walk_one(other, in_function, type_only)
                continue
            yield from walk_one(child, in_function, type_only)

    def walk_one(child: ast.AST, in_function: bool, type_only: bool) -> Iterator[Import]:
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
                yield Import(module, resolved, child.lineno, in_function, type_only)
        yield from walk(child, inside, type_only)

    yield from walk(ast.parse(path.read_text(encoding="utf-8")), False, False)


ALL_IMPORTS = [i for module in SOURCES for i in imports(module)]
RUNTIME_IMPORTS = [i for i in ALL_IMPORTS if not i.type_only]


def _graph() -> dict[str, dict[str, Import]]:
    """Module -> the modules it imports, each with its first import (any kind)."""
    graph: dict[str, dict[str, Import]] = {m: {} for m in SOURCES}
    for i in ALL_IMPORTS:
        graph[i.module].setdefault(i.target, i)
    return graph


def circles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), counting every
    import: inside functions and under ``TYPE_CHECKING`` too."""
    graph = _graph()
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


def loop(component: list[str]) -> list[Import]:
    """The shortest loop of imports through ``component``'s modules (breadth first from
    each), as the imports that make it."""
    graph = _graph()
    members = set(component)
    best: list[Import] = []
    for start in sorted(component):
        came: dict[str, Import] = {}
        queue = deque([start])
        while queue:
            module = queue.popleft()
            if start in graph[module] and (module == start or module in came):
                path = [graph[module][start]]
                while module != start:
                    path.append(came[module])
                    module = came[module].module
                path.reverse()
                if not best or len(path) < len(best):
                    best = path
                break
            for target in sorted(graph[module]):
                if target in members and target not in came and target != start:
                    came[target] = graph[module][target]
                    queue.append(target)
    return best


def describe(component: list[str]) -> str:
    steps = []
    for i in loop(component):
        kind = " (type only)" if i.type_only else " (in a function)" if i.in_function else ""
        steps.append(f"{i.module}:{i.line} imports {i.target}{kind}")
    return f"{len(component)} modules {component}; shortest loop: " + " -> ".join(steps)


def test_no_circle_of_imports() -> None:
    found = [c for c in circles() if c not in KNOWN_CIRCLES]
    assert [describe(c) for c in found] == []


def test_the_circle_check_can_fail() -> None:
    global ALL_IMPORTS
    saved = ALL_IMPORTS
    try:
        for made_up in (
            Import("controller.clock", "controller.table", 1, False),
            Import("controller.clock", "controller.table", 1, in_function=True),
            Import("controller.clock", "controller.table", 1, False, type_only=True),
        ):
            ALL_IMPORTS = [*saved, made_up]
            new = [c for c in circles() if c not in KNOWN_CIRCLES]
            assert new, f"a made-up import of what imports it: {made_up}"
            assert made_up.module in new[0] and made_up.target in new[0]
            assert f"{made_up.module}:1 imports {made_up.target}" in describe(new[0])
    finally:
        ALL_IMPORTS = saved


def test_the_known_circle_is_still_there() -> None:
    """Each exception names a circle that exists (delete it once it is broken)."""
    assert all(known in circles() for known in KNOWN_CIRCLES)


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
        for i in RUNTIME_IMPORTS
        if (i.module == below or i.module.startswith(below + "."))
        and any(i.target == a or i.target.startswith(a + ".") for a in above)
    ]
    assert wrong == []


SEAM = "controller.referee.game"
"""What a game package may import of the referee (issue 36)."""


def past_the_seam(imported: list[Import]) -> list[str]:
    """A game package's imports of the referee other than its seam (type-only ones too),
    and the referee's own imports of the seam (it re-exports them, so they would close a
    circle)."""
    game_packages = tuple(f"controller.games.{game}." for game in GAMES)
    return [
        f"{i.module}:{i.line} imports {i.target}"
        for i in imported
        if (
            i.module.startswith(game_packages)
            and i.target.startswith("controller.referee")
            and i.target != SEAM
        )
        or (i.module.startswith("controller.referee") and i.target == SEAM and i.module != SEAM)
    ]


def test_a_game_imports_only_the_seam_of_the_referee() -> None:
    assert past_the_seam(ALL_IMPORTS) == []
    for game in GAMES:
        assert any(i.module.startswith(f"controller.games.{game}.") for i in ALL_IMPORTS)
    # The toy third game (tests/, not read above) too: what "Adding a game" walks through.
    toy = []
    for path in sorted((ROOT / "tests" / "games" / "toy").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                toy.append(node.module)
    assert SEAM in toy
    assert [m for m in toy if m.startswith("controller.referee") and m != SEAM] == []


def test_the_seam_check_can_fail() -> None:
    made_up = [
        Import("controller.games.perlen.kind", "controller.referee.state", 1, False, True),
        Import("controller.referee.state", SEAM, 2, False, True),
        Import("controller.games.perlen.kind", SEAM, 3, False),
    ]
    assert past_the_seam(made_up) == [
        "controller.games.perlen.kind:1 imports controller.referee.state",
        f"controller.referee.state:2 imports {SEAM}",
    ]


def below_the_root(imported: list[Import]) -> list[str]:
    """The imports of a registry by a module that is not the composition root."""
    return [
        f"{i.module}:{i.line} imports {i.target}"
        for i in imported
        if i.target in REGISTRY_MODULES
        and i.module.split(".")[0] not in ROOTS
        and i.module not in REGISTRY_MODULES
    ]


def test_only_the_root_imports_the_registries() -> None:
    assert below_the_root(ALL_IMPORTS) == []
    assert any(i.target == "controller.games.registry" for i in ALL_IMPORTS), "the root does"


def test_the_registry_check_can_fail() -> None:
    made_up = Import("controller.table", "controller.games.registry", 1, in_function=True)
    assert below_the_root([made_up]) == ["controller.table:1 imports controller.games.registry"]


def test_the_rigs_and_the_benchmarks_import_no_test() -> None:
    """What bench/ shares with tests/ is in rigs/, which imports nothing of tests/."""
    wrong = []
    for module, path in SOURCES.items():
        if module.split(".")[0] not in ("rigs", "bench"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            else:
                continue
            wrong += [f"{module}:{node.lineno} imports {n}" for n in names if n.startswith("tests")]
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
