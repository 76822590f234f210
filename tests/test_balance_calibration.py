"""lab balance's calibration tier (docs/balancing.md, "The calibration tier"): a dearer tier that
plays every polished set on the polishing deals; its offset from the first strong tier there,
pooled over them and shrunk by its noise, is judged as one more tier while polishing. It never screens,
selects or reports."""

from __future__ import annotations

import glob
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from _support.sim_cases import write_config
from lab.design import balance, balance_search
from lab.design.balance_search import POLISH, Search
from lab.design.balance_tiers import OFFSET_PRIOR, polish_block, tier_of, tier_offset
from lab.errors import LabError
from lab.report import balance as shown
from lab.sim.config import load_experiment
from test_balance import CONFIG, SMALL

CALIBRATION = "tuned"  # a heuristic persona stands in for search(400): cheap games
BUDGET = 40_000


def test_the_offset_is_the_paired_difference_trusted_by_its_precision():
    diff = SimpleNamespace(
        mean=np.array([0.04, -0.03, 0.02, 0.05]), se=np.array([OFFSET_PRIOR, 0.0, 1e9, np.nan])
    )
    offset, se = tier_offset(diff)
    # as uncertain as the prior: half of it; exact: all of it; hopeless or unmeasured: none
    assert offset == pytest.approx([0.02, -0.03, 0.0, 0.0], abs=1e-9)
    assert se[0] == pytest.approx(OFFSET_PRIOR / np.sqrt(2))
    assert se[1] == 0.0
    assert se[2] == pytest.approx(OFFSET_PRIOR, rel=1e-6) and se[3] == OFFSET_PRIOR


# ------------------------------------------------------------------------------ choosing it


def _config(tmp_path, bots):
    return load_experiment(write_config(tmp_path, CONFIG.replace('"heuristic"', bots)))


def test_search_400_calibrates_a_search_judged_at_search_100_unless_told_otherwise(tmp_path):
    """By default a search judged at search(100) — the default strong tier — is calibrated at
    search(400), the tier a designer confirms at; "none" turns it off, and a search judged at
    other tiers (or at search(400) itself, or at one tier) has none unless --calibrate names
    one."""
    exp = _config(tmp_path, '"tuned"')
    cards = SMALL["cards"]
    for p in (balance.plan(exp, cards=cards), balance.plan(exp, cards=cards, calibrate="search")):
        assert p.tiers[1].a.values()["simulations"] == 100  # tuned + search(100)
        assert p.calibration.a.kind == "search"
        assert p.calibration.a.values()["simulations"] == 400
        assert p.calibration.label not in {t.label for t in p.tiers}
    assert balance.plan(exp, cards=cards, calibrate="none").calibration is None
    assert balance.plan(exp, cards=cards, tier="tuned").calibration is None
    assert balance.plan(exp, cards=cards, tiers=["tuned", "search"]).calibration is None
    assert balance.plan(exp, cards=cards, tiers=["tuned", "strong"]).calibration is None
    p = balance.plan(exp, cards=cards, tiers=["tuned", "strong"], calibrate="search")
    assert p.calibration.a.values()["simulations"] == 400


@pytest.mark.parametrize("option", ["via", "calibrate"])
def test_a_tier_beside_the_judged_ones_that_cannot_serve_is_refused_in_one_line(tmp_path, option):
    """A bridge (--via) or a calibration tier (--calibrate) needs a strong tier to serve and
    must not be one of the judged tiers."""
    exp = _config(tmp_path, '"tuned"')
    cards = SMALL["cards"]
    with pytest.raises(LabError, match=f"--{option} needs a strong tier"):
        balance.plan(exp, tier="tuned", cards=cards, **{option: "strong"})
    with pytest.raises(LabError, match="already judged"):
        balance.plan(exp, tiers=["tuned", "strong"], cards=cards, **{option: "strong"})
    with pytest.raises(LabError, match=f"--{option}"):
        balance.plan(exp, cards=cards, **{option: "no-such-bot"})


# ------------------------------------------------------------------------------- a search


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("calcfg")
    p = balance.plan(load_experiment(write_config(folder, CONFIG)), calibrate=CALIBRATION, **SMALL)
    out = tmp_path_factory.mktemp("cal") / "balance"
    result = balance.run(p, out, games=BUDGET, jobs=2)
    s = Search(p.exp, p.moves, p.settings, out, tiers=p.tiers, calibration=p.calibration)
    assert s.load()
    return p, out, result, s


def _units(out) -> pd.DataFrame:
    return pd.concat(pd.read_parquet(f) for f in sorted(glob.glob(f"{out}/units/*.parquet")))


def test_the_calibration_tier_plays_every_polished_set_on_the_polishing_deals(calibrated):
    """The best selected set first, then each polishing round's neighbour: only on the
    polishing deals, each pair once per edits it is played with, never screened or reported."""
    p, out, result, s = calibrated
    c = s.calibration_index
    assert c == len(p.tiers) and s.calibration.label == p.calibration.label
    anchor = s.selection_ranked()[0]
    polished = [h["polished"][0] for h in result["search"]["history"] if h["phase"] == POLISH]
    assert polished[0] == list(anchor.moves) and s.calibrated_set() is anchor
    assert len(polished) >= 2  # a neighbour was polished, so pooled
    assert [list(cand.moves) for cand in s.calibrated_sets()] == polished
    units = _units(out)
    mine = units[[tier_of(int(b)) == c for b in units["block"]]]
    assert set(mine["block"]) == {polish_block(c)}
    want = {(j, s.restrict(m, j)) for m in polished for j in range(len(s.pairs))}
    assert set(zip(mine["pair"], mine["key"])) == want and len(mine) == len(want)
    assert all(
        np.asarray(x).shape[-1] // 2 == p.settings.strong_fresh_deals for x in mine["scores"]
    )
    assert result["tiers"] == [t.label for t in p.tiers]
    info = result["search"]["calibration"]
    assert info["tier"] == p.calibration.label and info["of"] == p.tiers[1].label
    assert info["measured"] == [s.moves[i].text for i in anchor.moves]
    assert info["sets"] == len(polished)
    assert info["games"] == 2 * len(want) * p.settings.strong_fresh_deals
    assert f"and {len(polished) - 1} polished neighbour" in shown.search_line(result)


def test_the_offset_is_measured_on_the_same_deals_at_both_tiers(calibrated):
    """Each army's difference, recomputed from the stored units: the calibration tier's games
    minus the first strong tier's on the same first deals of the polishing set, every game
    the calibration tier played counted once (a neighbour shares the anchor's games on the
    pairs its edits leave alone)."""
    p, out, result, s = calibrated
    c, units = s.calibration_index, _units(out)
    n = p.settings.strong_fresh_deals
    played = {
        (j, s.restrict(cand.moves, j)) for cand in s.calibrated_sets() for j in range(len(s.pairs))
    }
    got = {}
    for block, tier in ((polish_block(c), "cal"), (polish_block(1), "strong")):
        for j, key in sorted(played):
            a, b = s.pairs[j]
            row = units[(units["block"] == block) & (units["pair"] == j) & (units["key"] == key)]
            scores = np.asarray(row["scores"].iloc[0], dtype=float).reshape(2, -1)[:, :n]
            for army, x in ((a, scores), (b, 1.0 - scores)):
                got.setdefault((tier, army), []).append(x.ravel())
    for i, army in enumerate(s.armies):
        want = np.nanmean(np.concatenate(got[("cal", army)])) - np.nanmean(
            np.concatenate(got[("strong", army)])
        )
        entry = result["search"]["calibration"]["armies"][i]
        assert entry["army"] == army and entry["difference"] == pytest.approx(want)
        shrunk = OFFSET_PRIOR**2 / (OFFSET_PRIOR**2 + entry["difference_se"] ** 2)
        assert entry["offset"] == pytest.approx(shrunk * want)


def test_polishing_judges_the_calibration_tier_as_the_strong_tier_plus_its_offset(calibrated):
    p, out, result, s = calibrated
    offset, se = s.calibration_offset()
    target, doubt = p.settings.target, p.settings.doubt
    polished = [cand.moves for cand in s.cands.values() if cand.polish]
    assert len(polished) >= 2
    for moves in polished:
        rates = s.judged_rates(moves, polish_block)
        assert rates.shape == (len(p.tiers) + 1, len(s.armies))
        moved = rates[1] + offset
        assert rates[-1] == pytest.approx(moved + np.sign(moved - target) * doubt * se)
        # the polishing's best is judged over every row, the calibration's too
        tiers = s.judged_tiers(moves, polish_block)
        assert s.judged(moves, polish_block).worst == pytest.approx(max(o.worst for o in tiers))
    # the selection deals know no calibration tier
    assert s.judged_rates(s.calibrated_set().moves).shape[0] == len(p.tiers)
    first = result["proposals"][0]
    label = f"{p.calibration.label} (calibrated)"
    assert first["chosen_on"] == "polishing" and label in first["polishing"]
    best = s.judged_tiers(s.polish_best().moves, polish_block)[-1]
    assert first["polishing"][label]["judged_worst"] == pytest.approx(best.worst)
    # the report says so: in the proposal's title and the search's line
    assert f"{label} worst {100 * best.worst:.1f} as judged" in shown.title(first, result)
    assert f"the polishing judged {p.calibration.label} too" in shown.search_line(result)


def test_a_search_with_another_calibration_is_not_resumed_as_this_one(calibrated, tmp_path):
    p, out, result, s = calibrated
    other = Search(p.exp, p.moves, p.settings, out, tiers=p.tiers)
    with pytest.raises(LabError, match="another config, tiers or settings"):
        other.load()


def test_the_reserve_counts_the_calibration_games_of_every_polished_set(calibrated, monkeypatch):
    """The time a search keeps for its final measurements holds the calibration tier's games
    for the anchor and each neighbour polishing will measure ("every"; a probe is not
    calibrated), the anchor's alone otherwise — at the pace that tier played."""
    p, out, result, s = calibrated
    c, pairs = s.calibration_index, 2 * len(s.pairs)
    assert s.pace[c][1] > 0  # the calibration tier played, so its own pace is read
    per_game = s.pace[c][0] / s.pace[c][1]
    monkeypatch.setattr(balance_search, "POLISH_CALIBRATE", "anchor")
    anchor_only = s.end_seconds()
    monkeypatch.setattr(balance_search, "POLISH_CALIBRATE", "every")
    assert p.settings.probe_armies > 0  # probed, yet the probes are not calibrated
    neighbours = balance_search.POLISH_MEASURED * p.settings.polish_rounds / 3  # a third each
    assert neighbours > 0
    extra = neighbours * s.deals(polish_block(c)) * pairs * per_game
    assert s.end_seconds() == pytest.approx(anchor_only + extra)
