"""benchmarks/proposal_check.py plays a balance proposal as issue 26's Done-when says a designer
does: pasted into the config, at a tier and a new seed. Its pasting is checked here (the
figures it prints are measurements, not asserted)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from lab.errors import LabError

ROOT = Path(__file__).resolve().parent.parent
PATCH = """[[patch]]
name = "balance-1"
description = "a proposal"

[[patch.edit]]
card = "赤備え"
strength = 9
"""


@pytest.fixture(scope="module")
def check():
    spec = importlib.util.spec_from_file_location(
        "proposal_check", ROOT / "benchmarks" / "proposal_check.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_proposal_is_played_alone_at_the_seed_and_tier_asked(check):
    exp = check.experiment(check.CONFIG, PATCH, 777001, "search", 200)
    assert exp.seed == 777001 and exp.games == 200
    assert [p.name for p in exp.patches] == ["balance-1"] and len(exp.variants) == 1
    assert [t.label for t in exp.tiers] == ["search-vs-search"]
    table = '{ kind = "search", simulations = 100 }'
    exp = check.experiment(check.CONFIG, PATCH, 1, table, 10)
    assert [t.label for t in exp.tiers] == ["search(simulations=100)-vs-search(simulations=100)"]


def test_a_proposal_is_read_from_a_search_s_result_by_rank(check, tmp_path):
    second = PATCH.replace("balance-1", "balance-2")
    (tmp_path / "balance.json").write_text(
        json.dumps({"proposals": [{"toml": PATCH}, {"toml": second}]}), encoding="utf-8"
    )
    assert check.proposal_text(tmp_path, 2) == second
    assert check.proposal_text(tmp_path / "balance.json", 1) == PATCH


def test_a_pasted_proposal_is_validated_as_lab_run_validates_a_config(check):
    bad = PATCH.replace("赤備え", "赤備え改")
    with pytest.raises(LabError, match="赤備え改"):
        check.experiment(check.CONFIG, bad, 1, "tuned", 10)
