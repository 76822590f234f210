"""Centring (issue 26): polishing moves each army whose tiers' midpoint is off the target towards
it with one deck-list edit of its own — ``centring_choice`` on made-up figures, then a small
search that centres its anchor."""

from __future__ import annotations

import numpy as np
import pytest

from lab.design import balance, balance_search
from lab.design.balance_polish import centring_choice
from lab.design.balance_search import rkey
from lab.design.balance_tiers import polish_block
from lab.sim.config import load_experiment
from tests._support.sim_cases import write_config
from tests.test_balance import CONFIG as BALANCE_CONFIG, SMALL as BALANCE_SMALL

T = 0.5
GAIN = 0.001


def armies_of(owner: dict[int, str]):
    return lambda i: frozenset({owner[i]})


def no_conflict(i, j):
    return False


def test_centring_picks_the_edit_that_puts_an_army_midway_between_its_tiers():
    # army 0 reads 44% at the first tier and 48% at the strong one: midway, 46%
    rates = np.array([[0.44, 0.52, 0.54], [0.48, 0.51, 0.51]])
    change = {
        1: np.array([0.02, -0.01, -0.01]),  # 46 / 50: 4 points out at the first tier still
        2: np.array([0.04, -0.02, -0.02]),  # 48 / 52: 2 out at most — the centring one
        3: np.array([0.08, -0.04, -0.04]),  # 52 / 56: past the band at the strong tier
    }
    owner = {1: "a", 2: "a", 3: "a"}
    assert centring_choice(rates, change, armies_of(owner), no_conflict, T, GAIN) == [2]


def test_centring_adds_one_edit_per_army_the_worst_first_and_stops_when_none_helps():
    rates = np.array([[0.44, 0.50, 0.56], [0.46, 0.50, 0.54]])
    change = {
        1: np.array([0.05, -0.025, -0.025]),  # army a up 5
        2: np.array([0.05, -0.025, -0.025]),  # army a again: one per army
        3: np.array([-0.025, -0.025, 0.05]),  # army c up: away from the target, never
        4: np.array([0.01, 0.01, -0.02]),  # army c down 2 (the others up 1)
        5: np.array([0.0005, 0.0, -0.0005]),  # army b, by less than the least gain
    }
    owner = {1: "a", 2: "a", 3: "c", 4: "c", 5: "b"}
    chosen = centring_choice(rates, change, armies_of(owner), no_conflict, T, GAIN)
    assert chosen == [1, 4]
    after = rates + change[1] + change[4]
    assert np.abs(after - T).max() < np.abs(rates - T).max()
    # nothing off centre enough to gain from: nothing added
    assert centring_choice(np.full((2, 3), T), change, armies_of(owner), no_conflict, T, GAIN) == []


def test_centring_never_adds_two_conflicting_edits():
    rates = np.array([[0.44, 0.50, 0.56], [0.46, 0.50, 0.54]])
    change = {1: np.array([0.05, -0.025, -0.025]), 4: np.array([0.01, 0.01, -0.02])}
    owner = {1: "a", 4: "c"}
    chosen = centring_choice(
        rates, change, armies_of(owner), lambda i, j: {i, j} == {1, 4}, T, GAIN
    )
    assert chosen == [1]


# ------------------------------------------------------------------------------- a small search

# the small search of test_balance, on another seed; 足軽7, held by 織田 and 武田, gives them
# deck-list edits (with --cards, only the 足軽 named), and no probes
CONFIG = BALANCE_CONFIG.replace("seed = 3", "seed = 5")
SMALL = {
    **BALANCE_SMALL,
    "cards": [*BALANCE_SMALL["cards"], "足軽7"],
    "probe_armies": 0,
    "polish_rounds": 3,
}


@pytest.fixture(scope="module")
def centred(tmp_path_factory):
    config = write_config(tmp_path_factory.mktemp("centrecfg"), CONFIG)
    p = balance.plan(load_experiment(config), **SMALL)
    out = tmp_path_factory.mktemp("centre") / "balance"
    result = balance.run(p, out, games=30_000, jobs=2)
    s = balance_search.Search(p.exp, p.moves, p.settings, out, tiers=p.tiers, centring=p.centring)
    assert s.load()
    return config, p, s, result


def test_the_search_itself_never_screens_a_centring_edit(centred):
    config, p, s, _ = centred
    assert p.centring and all(m.edit.op == "replace" for m in p.centring)
    assert not any(m.edit.op == "replace" for m in p.moves)  # --deck-lists is off
    assert s.searchable == len(p.moves) and len(s.moves) == len(p.moves) + len(p.centring)
    assert sorted(s.centring) == list(range(s.searchable, len(s.moves)))
    first = next(h["round"] for h in s.history if h["phase"] == balance_search.POLISH)
    for c in s.cands.values():
        if c.born <= first:  # what the search screened and selected
            assert all(i < s.searchable for i in c.moves), c.moves
    # --no-centre: no centring edit at all
    assert balance.plan(load_experiment(config), **SMALL, centre=False).centring == ()


def test_polishing_centres_its_anchor_with_one_deck_list_edit_per_army_off_centre(centred):
    _, p, s, result = centred
    history = s.history
    rounds = [h for h in history if h["phase"] == balance_search.POLISH_CENTRE_PHASE]
    assert rounds, [h["phase"] for h in history]
    anchor = tuple(rounds[0]["anchor"])
    # the round right after it measures the anchor with the chosen edits, at every tier
    after = history[history.index(rounds[0]) + 1]
    assert after["phase"] == balance_search.POLISH and tuple(after["anchor"]) == anchor
    centred_set = tuple(after["centred"])
    assert after["polished"] == [list(centred_set)]
    added = set(centred_set) - set(anchor)
    assert added and set(anchor) <= set(centred_set) and added <= set(s.centring)
    owners = [next(iter(s.moves[i].armies)) for i in added]
    assert len(owners) == len(set(owners))  # one per army
    rates = s.judged_rates(anchor, polish_block)
    mid = (rates.max(axis=0) + rates.min(axis=0)) / 2
    base = s.screened(s.cands[rkey(anchor)])[1].mean
    for i, name in zip(added, owners):  # only armies off centre on the polishing deals
        a = s.armies.index(name)
        assert abs(mid[a] - s.settings.target) >= balance_search.CENTRE_MIN
        # … each moved towards the target by a point at least on the screening deals
        moved = s.screened(s.cands[rkey(tuple(sorted(anchor + (i,))))])[1].mean[a] - base[a]
        assert moved * np.sign(s.settings.target - mid[a]) >= balance_search.CENTRE_EFFECT
    # polishing's last rounds: its neighbour rounds came first
    before = history[: history.index(rounds[0])]
    polished = sum(h["phase"] == balance_search.POLISH for h in before)
    assert polished == s.settings.polish_rounds - balance_search.CENTRE_ROUNDS + 1
    # centring edits do not count against --max-edits: a neighbour may still add the search's
    assert s._counted(centred_set) == s._counted(anchor)
    c = s.cands[rkey(centred_set)]
    assert c.polish and c.level == s.settings.levels
    assert all((polish_block(t), 0, s.restrict(centred_set, 0)) in s.units for t in range(2))
    # a resumed search chooses the same set from what it measured, playing nothing more
    c.polish = False
    played = len(s.units)
    assert s._centring(anchor) == centred_set and len(s.units) == played
    c.polish = True
    assert s._centring(anchor) is None  # measured there already
    # a proposal holding centring edits pastes as [[patch]] replacements of the army's 足軽
    keys = {s.moves[i].key for i in s.centring}
    for item in result["proposals"]:
        mine = [e for e in item["edits"] if e["key"] in keys]
        assert item["toml"].count('replace = "足軽') == len(mine)


def test_the_search_line_says_how_many_edits_it_could_centre_with_and_how_often_it_did(centred):
    from lab.report.balance import search_line

    _, p, s, result = centred
    se = result["search"]
    assert se["centring_edits"] == len(p.centring) and se["edits_tried"] == len(p.moves)
    rounds = sum(1 for h in se["history"] if h.get("centred"))
    assert rounds >= 1
    assert f"and {len(p.centring)} deck-list edits to centre the armies with: {rounds} " in (
        search_line(result)
    )


def test_centring_is_due_once_only_its_rounds_fit_in_a_minutes_budget(centred, monkeypatch):
    _, _, s, _ = centred
    budget = balance_search.Budget(minutes=30)
    monkeypatch.setattr(s, "_polish_step", lambda: 100.0)
    monkeypatch.setattr(s, "fresh_seconds", lambda: 200.0)
    rounds = balance_search.CENTRE_ROUNDS * balance_search.CENTRE_COST
    room = 30 * 60 - 200.0 - (rounds + 1) * 100.0
    monkeypatch.setattr(s, "elapsed", room - 1)
    assert not s._centring_due(budget)  # room for a neighbour round before the centring ones
    monkeypatch.setattr(s, "elapsed", room + 1)
    assert s._centring_due(budget)
    monkeypatch.setattr(s, "_polish_step", lambda: None)  # before the anchor's round
    assert not s._centring_due(budget)
