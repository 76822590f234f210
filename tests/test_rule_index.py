"""The rule index (issue 15 item 4): every rule id of rules.md (R1–R14) and every ruling id of
docs/rulings.md is cited at the code that implements it and by at least one scenario, so one
text search for an id finds its code and its scenarios. A ruling the scenario format cannot
express (it has no expectation about what a player knows, and a scenario starts after set-up) is
pinned by a named unit test instead, listed below with the reason.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT.parent / "shared" / "spec" / "rules.md"
RULE_IDS = [f"R{k}" for k in range(1, 15)]
RULINGS = ROOT / "docs" / "rulings.md"
# where rules are implemented: the engine, the card data and its checks, the rule set, scenarios
GAME = ROOT / "lab" / "games" / "daitenka"
CODE = [p for d in ("engine", "cards") for p in (GAME / d).rglob("*.py")] + [
    GAME / "rules.py",
    GAME / "scenario.py",
]
SCENARIOS = sorted((ROOT / "tests" / "scenarios").glob("*.toml"))
# ruling → (unit test that pins it, why no scenario can)
NOT_A_SCENARIO = {
    "R3.5": ("tests/test_setup.py", "a scenario starts after set-up, with `first` given"),
    "V1": ("tests/test_api.py", "scenarios have no expectation about what a player knows"),
    "V2": ("tests/test_api.py", "scenarios have no expectation about what a player knows"),
}


def ruling_ids() -> list[str]:
    return re.findall(
        r"^- \*\*([A-Z]+\d+(?:\.\d+)?)\*\*", RULINGS.read_text(encoding="utf-8"), re.M
    )


def cites(text: str, rid: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(rid)}(?![0-9])", text) is not None


def _texts(paths) -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8") for p in paths}


def test_the_rule_ids_are_those_of_rules_md():
    if not SPEC.exists():
        pytest.skip("the shared spec folder is not beside this checkout")
    assert re.findall(r"^## (R\d+) ", SPEC.read_text(encoding="utf-8"), re.M) == RULE_IDS


def test_rulings_have_ids():
    ids = ruling_ids()
    assert len(ids) >= 20 and len(ids) == len(set(ids)), ids


@pytest.mark.parametrize("rid", RULE_IDS + ruling_ids())
def test_every_rule_and_ruling_has_its_code_and_a_scenario(rid):
    code = [p.relative_to(ROOT) for p, t in _texts(CODE).items() if cites(t, rid)]
    assert code, (
        f"{rid}: no code under lab/games/daitenka/ (engine, cards, rules.py, scenario.py) cites it"
    )
    if rid in NOT_A_SCENARIO:
        test_file, _why = NOT_A_SCENARIO[rid]
        assert cites((ROOT / test_file).read_text(encoding="utf-8"), rid), (
            f"{rid}: {test_file} should pin it (and cite it)"
        )
        return
    scenarios = [p.name for p, t in _texts(SCENARIOS).items() if cites(t, rid)]
    assert scenarios, f"{rid}: no scenario in tests/scenarios/ cites it"


def test_the_finder_does_not_confuse_ids():
    assert cites("rules.md R6 step 3", "R6") and not cites("R16", "R1") and cites("(R1)", "R1")
    assert not cites("XS1", "S1") and cites("ruling S1:", "S1")
