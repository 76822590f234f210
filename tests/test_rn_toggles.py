"""Every RN7 toggle changes something observable in play (besides the scenario pairs in
tests/scenarios_rn): random games under the toggled rule set against the preset, same seed words."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from lab.games.rumble_nation import PRESETS, RNRules, play_batch, seeds_for

WORDS = seeds_for(400, 21)
ISLANDS = str(Path(__file__).parent / "scenarios_rn" / "maps" / "islands.toml")


def _play(rules: RNRules) -> dict:
    return play_batch(rules, ["random"] * rules.players, WORDS)


def _seat_sum(cols, key, n):
    return sum(cols[f"{key}_p{k}"].astype(int) for k in range(1, n + 1))


def _players(base, alt):
    assert "score_p3" not in base and "score_p3" in alt and "score_p4" not in alt
    assert set(np.unique(alt["winner"])) == {1, 2, 3}


def _reroll(base, alt):
    assert _seat_sum(base, "rerolls", 2).sum() > 0 and _seat_sum(alt, "rerolls", 2).sum() == 0


def _soldier_counts(base, alt):
    assert (alt["turns"] == 12).all() and (base["turns"] > 12).all()  # 3 a turn: 6 turns each


def _reinforcements(base, alt):
    assert _seat_sum(base, "reinforcements", 2).sum() > 0
    assert (_seat_sum(alt, "reinforcements", 2) % 3 == 0).all()
    assert _seat_sum(alt, "reinforcements", 2).sum() > _seat_sum(base, "reinforcements", 2).sum()


def _second_place(base, alt):
    assert "small_2" not in base and "small_2" in alt
    assert _seat_sum(alt, "small", 2).sum() > 0


def _daimyo(base, alt):
    assert "daimyo_p1" not in base and (alt["daimyo_p1"] >= 2).all()


def _soldiers(base, alt):
    assert alt["turns"].max() <= 10 and base["turns"].min() > 10


def _map(base, alt):
    assert _seat_sum(base, "reinforcements", 2).sum() > 0
    assert _seat_sum(alt, "reinforcements", 2).sum() == 0


CASES = {
    "players": (3, _players),
    "reroll": (False, _reroll),
    "soldier_counts": ((3, 3, 3), _soldier_counts),
    "reinforcements": (3, _reinforcements),
    "second_place": (True, _second_place),
    "daimyo": (True, _daimyo),
    "soldiers": (5, _soldiers),
    "map": (ISLANDS, _map),
}


def test_every_toggle_has_a_case():
    assert set(CASES) == {f.name for f in dataclasses.fields(RNRules)}


@pytest.mark.parametrize("toggle", list(CASES))
def test_toggle_changes_play(toggle):
    value, check = CASES[toggle]
    base = PRESETS["base_2p"]
    alt = base.with_overrides({toggle: value})
    assert alt.id != base.id
    check(_play(base), _play(alt))
