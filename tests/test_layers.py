"""The layering of shared/spec/architecture.md, read from the source: every ``import`` of lab/
(at the top of a module or inside a function — a lazy import is still a dependency) is checked
against what its package may use, and no two modules import each other, directly or round a
circle. A new dependency that breaks a layer fails here with the import that does it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LAB = Path(__file__).resolve().parent.parent / "lab"

D = "lab.games.daitenka"  # 大天下's folder (issue 28 item 1)
# its parts that keep a layering of their own inside the game (the rest of the folder — entry,
# commands, experiment, plan, worker, records, … — is one unit, checked for circles only)
GAME_PARTS = {"rules", "cards", "engine", "bots", "env", "play", "scenario", "bench", "schema"}
BASE = {"lab", "lab.errors", "lab.writable", "lab.fmt"}
JIT = "lab.jit"  # the numba decorators, the compiler patch and the shared generator
# thin re-exports of 大天下's old paths that users' docs and examples import (lab.env,
# lab.bots.play, lab.bots.custom, lab.engine.api): they name the game's modules and nothing else
SHIMS = {"lab.engine", "lab.bots", "lab.env"}
# the platform: it reaches a game only through the registry and its protocol (lab.games)
PLATFORM = {
    "lab.schema",
    "lab.sim",
    "lab.records",
    "lab.stats",
    "lab.report",
    "lab.design",
    "lab.cli",
    "lab.serve",
}

# What each package may import besides itself (architecture.md, "Layout": the arrows point down).
# Packages absent from the table — cli and serve, which use everything, and the games' own
# folders — are checked for circles only.
ALLOWED: dict[str, set[str]] = {
    # the shared grammar of inputs, below every game: a game's own tables (大天下's experiment
    # file with its presets, its scenario tables with its end reasons) live in its folder
    "lab.schema": BASE,
    JIT: BASE,
    f"{D}.schema": BASE | {"lab.schema", f"{D}.rules", f"{D}.cards", f"{D}.bots"},
    f"{D}.rules": BASE | {"lab.schema"},
    f"{D}.cards": BASE | {"lab.schema", f"{D}.schema"},
    # the engine: no I/O, never the runner, statistics, report or design (principle 7)
    f"{D}.engine": BASE | {JIT, f"{D}.rules", f"{D}.cards"},
    f"{D}.bots": BASE | {JIT, f"{D}.rules", f"{D}.cards", f"{D}.engine"},
    f"{D}.env": BASE | {f"{D}.rules", f"{D}.cards", f"{D}.engine", f"{D}.bots"},
    # results folders: below the runner, statistics, design and report; games only through the
    # registry (which game's tables a folder holds)
    "lab.records": BASE | {"lab.games"},
    # statistics read records, never simulate and never import the runner or the design layer;
    # what they name of a game (its cards, its armies) they ask its entry
    "lab.stats": BASE | {"lab.records", "lab.games"},
    # the report reads records, statistics and design result files (lab.records.balance)
    "lab.report": BASE | {"lab.records", "lab.stats", "lab.games"},
    # the runner reaches games through the registry, their experiments and chunks through the
    # protocol
    "lab.sim": BASE | {"lab.schema", "lab.records", "lab.games", JIT},
    # design questions plan runs and read records; never the engine; a game's cards only
    # through its entry (``card_design()``)
    "lab.design": BASE | {"lab.schema", "lab.records", "lab.sim", "lab.stats", "lab.games"},
    "lab.games": BASE,  # the registry names the games' modules, imports them on first use
}
for shim in SHIMS:
    ALLOWED[shim] = BASE | {D, f"{D}.engine", f"{D}.bots", f"{D}.env"}

# Platform modules that still import a game's modules, listed one by one so that none is added
# (a fixed one must leave the list). Empty: the design questions reach 大天下's cards through
# its entry (``card_design()``) and the input grammar names no game.
NOT_YET: set[str] = set()


def _game_imports(module: str) -> list[str]:
    """The modules of a game's folder that ``module`` imports (the registry and the protocol
    are no game's)."""
    return sorted(
        t for t in GRAPH[module] if t.startswith("lab.games.") and t != "lab.games.protocol"
    )


def _modules() -> dict[str, Path]:
    mods = {}
    for path in LAB.rglob("*.py"):
        parts = list(path.relative_to(LAB.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


MODULES = _modules()


def _owner(name: str) -> str:
    """The module an imported name lives in (``lab.games.daitenka.records.read_games`` → lab.games.daitenka.records)."""
    while name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def _imports(module: str, path: Path) -> set[str]:
    """The lab modules ``module`` imports, anywhere in its source."""
    found = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {_owner(a.name) for a in node.names if a.name.split(".")[0] == "lab"}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package
                for _ in range(node.level - 1):
                    up = up.rpartition(".")[0]
                base = f"{up}.{base}" if base else up
            if base.split(".")[0] != "lab":
                continue
            for a in node.names:  # `from lab.sim import records` imports a module
                full = f"{base}.{a.name}"
                found.add(full if full in MODULES else _owner(base))
    found.discard(module)
    return found


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


REGISTRY = {"protocol"}  # lab/games/ modules that are the registry's, not a game's


def package(module: str) -> str:
    """The unit the table speaks of: lab.X, or lab.games.X for a game's folder or module (the
    registry and its protocol are lab.games), or one of 大天下's parts (lab.games.daitenka.engine)."""
    parts = module.split(".")
    if module.startswith(D + ".") and parts[3] in GAME_PARTS:
        return ".".join(parts[:4])
    if len(parts) >= 3 and parts[1] == "games" and parts[2] not in REGISTRY:
        return ".".join(parts[:3])
    return ".".join(parts[:2])


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def test_no_module_imports_itself_round_a_circle():
    assert _cycles(GRAPH) == []


def test_the_cycle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


@pytest.mark.parametrize("pkg", sorted(ALLOWED))
def test_each_package_imports_only_what_its_layer_may_use(pkg):
    wrong = sorted(
        (m, t)
        for m, targets in GRAPH.items()
        if package(m) == pkg
        for t in targets
        if package(t) != pkg and package(t) not in ALLOWED[pkg]
    )
    assert not wrong, (
        f"{pkg} may import only {sorted(ALLOWED[pkg])} "
        f"(shared/spec/architecture.md); found: {wrong}"
    )


def test_no_platform_package_imports_a_game():
    """The platform reaches a game only through the registry and its protocol (lab.games,
    lab.games.protocol): never a module of a game's folder."""
    wrong = sorted(
        (m, t)
        for m in GRAPH
        if package(m) in PLATFORM and m not in NOT_YET
        for t in _game_imports(m)
    )
    assert not wrong


def test_the_platform_check_sees_a_game_import():
    """What the check above reads: the shims name 大天下's modules (they are no platform)."""
    assert _game_imports("lab.engine.api") == [f"{D}.engine.api"]
    stale = sorted(m for m in NOT_YET if package(m) not in PLATFORM or not _game_imports(m))
    assert not stale  # a module that no longer imports a game leaves NOT_YET


def test_the_rules_the_architecture_names():
    """Never an engine importing sim/stats/report; never stats or report importing the runner
    or the design layer (reports read result files); records below stats and sim."""
    never = {
        "lab.games.daitenka.engine": {
            "lab.sim",
            "lab.stats",
            "lab.report",
            "lab.design",
            "lab.records",
        },
        "lab.games.daitenka.bots": {
            "lab.sim",
            "lab.stats",
            "lab.report",
            "lab.design",
            "lab.records",
        },
        "lab.stats": {"lab.sim", "lab.design", "lab.report"},
        "lab.report": {"lab.sim", "lab.design"},
        "lab.records": {"lab.sim", "lab.stats", "lab.design", "lab.report"},
    }
    wrong = sorted(
        (m, t)
        for m, targets in GRAPH.items()
        for t in targets
        if package(t) in never.get(package(m), ())
    )
    assert not wrong


def test_lazy_imports_are_seen():
    """The reader counts an import inside a function (how the old report → design edge hid)."""
    report_balance = GRAPH["lab.report.balance"]
    assert "lab.records.balance" in report_balance
    assert "lab.games" in GRAPH["lab.records"]  # imported inside kinds()
