"""Issue 5 ladder: all bot pairs over all army pairs with seats swapped, Bradley–Terry ratings
with intervals, and the JSON form scripts read."""

import json

import pandas as pd
import pytest

from lab.bots.ladder import bradley_terry, run_ladder
from lab.errors import LabError


def test_bradley_terry_recovers_an_ordering_with_intervals():
    h2h = pd.DataFrame([
        {"a": "x", "b": "y", "games": 400, "a_wins": 100, "b_wins": 300, "draws": 0},
        {"a": "x", "b": "z", "games": 400, "a_wins": 40, "b_wins": 360, "draws": 0},
        {"a": "y", "b": "z", "games": 400, "a_wins": 100, "b_wins": 290, "draws": 10},
    ])
    r = bradley_terry(h2h, ["x", "y", "z"]).set_index("bot")
    assert r.loc["x", "rating"] == 0 < r.loc["y", "rating"] < r.loc["z", "rating"]
    assert r.loc["y", "high"] < r.loc["z", "low"]
    assert r.loc["y", "low"] < r.loc["y", "rating"] < r.loc["y", "high"]


def test_ladder_rates_heuristic_above_random_and_prints_json():
    res = run_ladder(["random", "heuristic"], games=162, seed=3)
    data = res.as_json()
    json.dumps(data)
    assert set(data["ratings"]) == {"random", "heuristic"}
    h = data["ratings"]["heuristic"]
    assert h["low"] > 0 and h["low"] < h["rating"] < h["high"]
    (row,) = data["head_to_head"]
    assert row["games"] == 162 and row["a"] == "random" and row["a_wins"] < 50


def test_same_bot_twice_is_refused():
    with pytest.raises(LabError, match="heuristic is named twice"):
        run_ladder(["heuristic", "heuristic"], games=324)


@pytest.mark.parametrize("bots, games, message", [
    (["random", "heuristic"], 0, "--games 0 is too few: .* at least 162 games"),
    (["random", "heuristic"], 161, "--games 161 is too few"),
    (["random"], 2, "needs at least two"),
])
def test_a_ladder_that_cannot_rate_is_refused(bots, games, message):
    with pytest.raises(LabError, match=message):
        run_ladder(bots, games=games)
