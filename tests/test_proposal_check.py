"""benchmarks/proposal_check.py plays a balance proposal as issue 26's Done-when says a designer
does: pasted into the config, at a tier and a new seed. Its pasting is checked here (the
figures it prints are measurements, not asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lab.errors import LabError

from _support.benchmarks import load

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
    return load("proposal_check")


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


def test_over_several_seeds_each_army_s_mean_names_where_the_proposal_sits(check):
    """Seed 1 meets (every army within ± 4), seed 2 misses by 上杉; averaged, 上杉 sits 4.15
    points low at the first tier — the worst army over the seeds, though one seed met."""

    def rows(oda, uesugi):
        return [("織田", oda, 0, 1), ("上杉", uesugi, 0, 1)]

    result = {
        "seeds": {
            1: {"tuned": rows(0.53, 0.462), "search": rows(0.52, 0.48)},
            2: {"tuned": rows(0.51, 0.455), "search": rows(0.545, 0.49)},
        },
        "verdict": {1: {"meets": True}, 2: {"meets": False}},
    }
    over = check.over_seeds(result)
    assert over["tuned"]["worst_army"] == "上杉"
    assert over["tuned"]["worst"] == pytest.approx(0.0415)
    assert over["tuned"]["rates"]["織田"] == pytest.approx(0.52)
    assert over["search"]["worst_army"] == "織田"
    assert over["search"]["worst"] == pytest.approx(0.0325)
    assert over["seeds_meeting"] == 1
