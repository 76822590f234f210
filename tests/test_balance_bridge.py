"""lab balance's bridge tier (docs/balancing.md, "The bridge tier"): a tier that screens the
promising edit sets like a strong tier, is never judged, and gives each edit the shift the
strong tiers' corrections expect before their own games."""

from __future__ import annotations

import json

import numpy as np
import pytest

from _support.sim_cases import write_config
from lab.design import balance
from lab.design.balance_search import Search
from lab.design.balance_tiers import TierCorrection
from lab.errors import LabError
from lab.sim.config import load_experiment
from test_balance import CONFIG, SMALL

BRIDGE = "aggressive"  # a heuristic persona stands in for the strong bot: cheap games
BUDGET = 40_000


# ------------------------------------------------------------------------ the fitted correction


def test_an_edit_never_measured_at_the_strong_tier_takes_the_bridges_shift():
    bridged = {7: np.array([0.03, -0.01, -0.02]), 9: np.array([-0.04, 0.02, 0.02])}
    base = np.array([0.05, -0.05, 0.0])
    fit = TierCorrection.fit([], 3, base=base, prior_mean=bridged)
    assert fit.of((7,)) == pytest.approx(base + bridged[7])
    assert fit.of((7, 9)) == pytest.approx(base + bridged[7] + bridged[9])
    # the strong tier measured edit 9 only: edit 7 keeps the bridge's shift
    seen = TierCorrection.fit([((9,), np.zeros(3), 50.0)], 3, base=base, prior_mean=bridged)
    assert seen.edit[7] == pytest.approx(bridged[7])


def test_a_strong_tiers_edit_shift_moves_from_the_bridges_towards_its_own_games():
    bridged = {7: np.array([0.04, 0.0, -0.04])}
    own = np.array([-0.02, 0.01, 0.01])  # what the strong tier itself measures
    base = np.zeros(3)
    few = TierCorrection.fit([((7,), own, 50.0)], 3, base=base, prior_mean=bridged)
    many = TierCorrection.fit([((7,), own, 1e6)], 3, base=base, prior_mean=bridged)
    without = TierCorrection.fit([((7,), own, 50.0)], 3, base=base)
    assert many.edit[7] == pytest.approx(own, abs=1e-3)
    # few games: between the two, nearer the bridge's than its own measurement
    assert np.all(np.abs(few.edit[7] - bridged[7]) < np.abs(own - bridged[7]))
    assert np.abs(few.edit[7] - bridged[7]).sum() < np.abs(few.edit[7] - own).sum()
    # without a bridge the same games are shrunk towards 0 instead
    assert np.abs(without.edit[7]).max() < np.abs(own).max()
    assert not np.allclose(without.edit[7], few.edit[7])


# ---------------------------------------------------------------------------- choosing it


def _config(tmp_path, bots):
    text = CONFIG.replace('bots = "heuristic"', f"bots = {bots}")
    return load_experiment(write_config(tmp_path, text))


def test_a_bridge_is_chosen_by_via_only(tmp_path):
    exp = _config(tmp_path, '"tuned"')
    p = balance.plan(exp, cards=SMALL["cards"], via="strong")  # tuned + search(400), bridged
    assert p.bridge is not None and p.bridge.a.kind == "strong"
    assert p.bridge.label not in {t.label for t in p.tiers}
    # by default (or "none") there is none: one measured search did no better with it
    assert balance.plan(exp, cards=SMALL["cards"]).bridge is None
    assert balance.plan(exp, cards=SMALL["cards"], via="none").bridge is None


# (refused in one line when it cannot serve: test_balance_calibration.py, with --calibrate)


# ------------------------------------------------------------------------------- a search


@pytest.fixture(scope="module")
def bridged(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bridgecfg")
    p = balance.plan(load_experiment(write_config(folder, CONFIG)), via=BRIDGE, **SMALL)
    out = tmp_path_factory.mktemp("bridge") / "balance"
    return p, out, balance.run(p, out, games=BUDGET, jobs=2)


def test_the_bridge_plays_but_is_never_judged(bridged):
    p, out, result = bridged
    assert p.bridge.label == f"heuristic(persona={BRIDGE})-vs-heuristic(persona={BRIDGE})"
    info = result["search"]["bridge"]
    assert info["tier"] == p.bridge.label
    assert info["games"] > 0 and info["edit_sets"] >= 1 and info["edits"] >= 1
    judged = [t.label for t in p.tiers]
    assert result["tiers"] == judged and p.bridge.label not in result["tiers"]
    for item in result["proposals"]:
        assert list(item["tiers"]) == judged  # its figures: the judged tiers only
    assert set(result["search"]["games"]) == set(judged)
    # the state written to disk is the same result read back
    assert json.loads((out / "balance.json").read_text(encoding="utf-8")) == result


def test_a_strong_tiers_correction_starts_from_the_bridges_shifts(bridged):
    p, out, _ = bridged
    s = Search(p.exp, p.moves, p.settings, out, tiers=p.tiers, bridge=p.bridge)
    assert s.load()
    bridge = s.bridge_correction()
    assert bridge.edit  # the bridge measured single edits and sets
    e = sorted(bridge.edit)[0]
    # as if the strong tier had never measured a set holding edit e (here the strong tier is
    # as cheap as the bridge, and measures everything)
    for c in s.cands.values():
        if e in c.moves:
            c.strong[0] = 0
    s._corrections = None
    strong = s.corrections()[0]
    assert strong.edit[e] == pytest.approx(bridge.edit[e])
    assert not np.allclose(bridge.edit[e], 0.0)
    # the same search without the bridge: edit e shifts nothing beyond the base
    plain = Search(p.exp, p.moves, p.settings, out, tiers=p.tiers)
    plain.cands, plain.units = s.cands, s.units
    assert plain.corrections()[0].of((e,)) == pytest.approx(plain.corrections()[0].base)
    # an edit the strong tier measured too: its own games move it off the bridge's shift
    both = [i for i in strong.edit if i != e and i in bridge.edit]
    assert both and any(not np.allclose(strong.edit[i], bridge.edit[i]) for i in both)


def test_a_bridged_search_folder_is_not_resumed_without_its_bridge(bridged):
    p, out, _ = bridged
    assert Search(p.exp, p.moves, p.settings, out, tiers=p.tiers, bridge=p.bridge).load()
    with pytest.raises(LabError, match="another config, tiers or settings"):
        Search(p.exp, p.moves, p.settings, out, tiers=p.tiers).load()
