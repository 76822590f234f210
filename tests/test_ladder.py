"""Issue 5 ladder: all bot pairs over all army pairs with seats swapped, Bradley–Terry ratings
with intervals, and the JSON form scripts read."""

import json

import pandas as pd
import pytest

from lab.games.daitenka.bots.ladder import (
    bradley_terry,
    deal_points,
    play_pair,
    rating_gaps,
    run_ladder,
)
from lab.games.daitenka.bots.match import parse_bot
from lab.errors import LabError
from lab.games.daitenka.rules import RuleSet


def test_bradley_terry_recovers_an_ordering_with_intervals():
    h2h = pd.DataFrame(
        [
            {"a": "x", "b": "y", "games": 400, "a_wins": 100, "b_wins": 300, "draws": 0},
            {"a": "x", "b": "z", "games": 400, "a_wins": 40, "b_wins": 360, "draws": 0},
            {"a": "y", "b": "z", "games": 400, "a_wins": 100, "b_wins": 290, "draws": 10},
        ]
    )
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


@pytest.mark.parametrize(
    "bots, games, message",
    [
        (
            ["random", "heuristic"],
            0,
            "--games 0 is not allowed; allowed values: whole numbers ≥ 1 "
            "\\(rounded up to a multiple of 162",
        ),
        (["random", "heuristic"], -5, "--games -5 is not allowed"),
        (["random"], 2, "needs at least two"),
    ],
)
def test_a_ladder_that_cannot_rate_is_refused(bots, games, message):
    with pytest.raises(LabError, match=message):
        run_ladder(bots, games=games)


def test_deal_points_add_up_to_the_pair_result():
    """Each deal scores 0–2 for a (both seats); the sum is play_pair's wins + half its draws."""
    a, b = parse_bot("heuristic"), parse_bot("random")
    pts = deal_points(a, b, 162, RuleSet(), seed=4)
    aw, bw, d = play_pair(a, b, 162, RuleSet(), seed=4)
    assert len(pts) == 81 and pts.max() == 2 and pts.min() >= 0
    assert pts.sum() == aw + 0.5 * d


def test_rating_gaps_use_the_difference_of_neighbours():
    h2h = pd.DataFrame(
        [
            {"a": "x", "b": "y", "games": 400, "a_wins": 100, "b_wins": 300, "draws": 0},
            {"a": "x", "b": "z", "games": 400, "a_wins": 95, "b_wins": 305, "draws": 0},
            {"a": "y", "b": "z", "games": 400, "a_wins": 196, "b_wins": 204, "draws": 0},
        ]
    )
    r = bradley_terry(h2h, ["x", "y", "z"]).set_index("bot").rating
    g = rating_gaps(h2h, ["x", "y", "z"])
    assert list(zip(g.bot, g.below)) == [("z", "y"), ("y", "x")]
    assert g.gap.tolist() == pytest.approx([r["z"] - r["y"], r["y"] - r["x"]])
    assert g.low[0] < 0 < g.high[0]  # z and y are close: not separated
    assert g.low[1] > 0  # y is clearly above x


def test_five_bot_tables_fit_a_terminal_and_say_which_neighbours_are_separated():
    from rich.console import Console

    from lab.games.daitenka.bots.ladder import LadderResult, render

    bots = ["random", "heuristic", "tuned", "search", "expert"]
    strength = dict(zip(bots, [-2.0, 0.0, 0.4, 1.0, 1.1]))
    rows = []
    for i, a in enumerate(bots):
        for b in bots[i + 1 :]:
            p = 1 / (1 + 2.718281828 ** (strength[b] - strength[a]))
            aw = round(324 * p)
            rows.append(
                {"a": a, "b": b, "games": 324, "a_wins": aw, "b_wins": 324 - aw, "draws": 0}
            )
    h2h = pd.DataFrame(rows)
    res = LadderResult(bradley_terry(h2h, bots), h2h, rating_gaps(h2h, bots))
    console = Console(record=True, width=100)
    render(res, console)
    text = console.export_text()
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 100
    lines = text.splitlines()
    order = [next(k for k, line in enumerate(lines) if f"│ {b} " in line) for b in bots[::-1]]
    assert order == sorted(order)  # strongest first
    expert_row = next(line for line in lines if "│ expert " in line)
    tuned_row = next(line for line in lines if "│ tuned " in line)
    assert expert_row.rstrip("│ ").endswith("no")  # 1.1 vs 1.0 on 324 games: not separated
    assert tuned_row.rstrip("│ ").endswith("yes")
    assert res.matrix().loc["expert", "random"] > 0.9
