"""lab.stats.seats on synthetic N-seat records: seat positions from the start player, the start
player's advantage, and the paired toggle effect — pinned against statsmodels' clustered OLS."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from lab.stats import seats


def synthetic(deals=400, seed=0, edge=(0.15, 0.0)):
    """Two variants of 3 players (reroll on/off) on the same deals: the start player wins with
    probability 1/3 + edge[variant]; scores are random, the winner's the highest."""
    rng = np.random.default_rng(seed)
    rows = []
    for cell, (reroll, e) in enumerate(zip((True, False), edge)):
        for d in range(deals):
            first = d % 3 + 1  # the same start seat for a deal in both variants
            p = np.full(3, (1 - (1 / 3 + e)) / 2)
            p[first - 1] = 1 / 3 + e
            winner = rng.choice(3, p=p) + 1
            scores = rng.integers(10, 40, size=3)
            scores[winner - 1] = scores.max() + rng.integers(1, 5)
            row = {
                "game_id": cell * deals + d,
                "variant": f"v{cell}",
                "tier": "h",
                "players": 3,
                "deal": d,
                "first": first,
                "winner": winner,
                "reroll": reroll,
            }
            for k in range(4):
                row[f"score_p{k + 1}"] = float(scores[k]) if k < 3 else np.nan
                row[f"rank_p{k + 1}"] = float(1 + (scores > scores[k]).sum()) if k < 3 else np.nan
            rows.append(row)
    return pd.DataFrame(rows)


def test_positions_count_from_the_start_player():
    g = synthetic()
    rows = seats.seat_rows(g)
    assert len(rows) == 3 * len(g)
    start = rows[rows["position"] == 0]
    assert (
        start["seat"].to_numpy() == g.set_index("game_id").loc[start["game_id"], "first"].to_numpy()
    ).all()
    assert rows.groupby("game_id")["win"].sum().eq(1).all()
    assert (rows.loc[rows["win"] == 1, "margin"] > 0).all()


def test_start_advantage_is_the_start_players_win_share_with_a_clustered_interval():
    g = synthetic()
    t = seats.position_table(g)
    p0 = t[(t["position"] == 0) & (t["variant"] == "v0")].iloc[0]
    direct = (g[g["variant"] == "v0"]["winner"] == g[g["variant"] == "v0"]["first"]).mean()
    assert p0["win_rate"] == pytest.approx(direct)
    assert p0["win_rate_lo"] < direct < p0["win_rate_hi"]
    assert p0["edge"] == pytest.approx(direct - 1 / 3)
    assert t.groupby(["variant"])["win_rate"].sum().to_numpy() == pytest.approx([1, 1])
    pooled = seats.start_advantage(g).iloc[0]
    assert pooled["win_rate_n"] == len(g)


def test_toggle_effect_matches_clustered_ols_and_says_what_shrinks():
    g = synthetic(deals=1500, edge=(0.2, 0.0))
    eff = seats.toggle_effects(g)
    row = eff[eff["toggle"] == "reroll"].iloc[0]
    assert (row["base"], row["value"]) == ("on", "off")
    y = (g["winner"] == g["first"]).astype(float).to_numpy()
    x = sm.add_constant((~g["reroll"]).astype(float).to_numpy())
    fit = sm.OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": g["deal"].to_numpy()})
    assert row["start_win"] == pytest.approx(fit.params[1])
    assert row["start_win_se"] == pytest.approx(fit.bse[1], rel=1e-6)
    assert row["start_win"] < 0 and row["shrinks"] and not row["grows"]


def test_no_toggle_varies_no_effect_table():
    g = synthetic()
    assert seats.toggle_effects(g[g["variant"] == "v0"]).empty
