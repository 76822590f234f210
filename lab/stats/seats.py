"""Statistics for games of N seats (Rumble Nation's records, docs/records.md): seat position,
scores and margins, token values, and the paired effect of each toggle.

The first question of an N-player game is the start player's advantage, so a seat is described
by its **position** — 0 for the start player, 1 for the next in turn order, … — rather than its
number (the start seat is drawn per deal). Every table follows ``lab.stats``' convention: an
estimate ``x`` comes with ``x_lo``/``x_hi`` (95%) and ``x_n``; rates use Wilson's interval on
the effective sample, means Student's t, and every error is clustered by **deal** — the runner
plays deal d of every variant and tier on the same token layout with the same start seat (at a
given player count), so a deal's games are correlated, and that correlation is what makes the
toggle comparisons paired. The estimators are ``lab.stats.clustered``'s (tested against
statsmodels). Reads records only; nothing here simulates.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from lab.stats.clustered import (
    clustered_mean,
    clustered_rate,
    estimate_columns,
    grouped_diff,
    grouped_mean,
)
from lab.stats.intervals import ALPHA

BY = ("variant", "tier")
MAXP = 4
TOKENS = tuple(range(2, 13))
# the toggles a variant table compares; players is a stratum, never a toggle of its own
TOGGLES = (
    "reroll",
    "soldier_counts",
    "reinforcements",
    "second_place",
    "daimyo",
    "soldiers",
    "map",
)


def load(results_dir) -> pd.DataFrame:
    """A results folder's games records (any layout ``lab.records`` reads)."""
    from lab.records import read_games

    return read_games(results_dir)


def _groups(df: pd.DataFrame, keys) -> tuple[np.ndarray, pd.DataFrame]:
    keys = list(keys)
    codes = df.groupby(keys, sort=False, dropna=False).ngroup().to_numpy(np.int64)
    return codes, df[keys].drop_duplicates().reset_index(drop=True)


def seat_rows(games: pd.DataFrame) -> pd.DataFrame:
    """One row per game × seat in play: ``seat`` (1…N), ``position`` (0 = start player),
    ``win``, ``score``, ``rank``, ``margin`` (own score − best other score), ``deal``."""
    parts = []
    for k in range(1, MAXP + 1):
        g = games[games["players"] >= k]
        if g.empty:
            continue
        scores = np.stack(
            [g[f"score_p{q}"].fillna(-1).to_numpy(float) for q in range(1, MAXP + 1)], axis=1
        )
        own = scores[:, k - 1].copy()
        scores[:, k - 1] = -np.inf
        players = g["players"].to_numpy(np.int64)
        parts.append(
            pd.DataFrame(
                {
                    "game_id": g["game_id"].to_numpy(),
                    "variant": g["variant"].to_numpy(),
                    "tier": g["tier"].to_numpy(),
                    "players": players,
                    "deal": g["deal"].to_numpy(),
                    "seat": k,
                    "position": (k - g["first"].to_numpy(np.int64)) % players,
                    "win": (g["winner"].to_numpy(np.int64) == k).astype(float),
                    "score": own,
                    "rank": g[f"rank_p{k}"].to_numpy(float),
                    "margin": own - scores.max(axis=1),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def position_table(games: pd.DataFrame, by=BY, alpha: float = ALPHA) -> pd.DataFrame:
    """Per ``by`` × player count × position: ``win_rate`` (fair share ``fair`` = 1/N) and its
    ``edge`` over the fair share (percentage points as a fraction), ``score`` and ``rank`` means
    — each with its interval, clustered by deal."""
    rows = seat_rows(games)
    keys = list(by) + ["players", "position"]
    g, out = _groups(rows, keys)
    ng = len(out)
    every = np.ones(len(rows), bool)
    out = out.assign(**clustered_rate("win_rate", rows["win"], every, g, rows["deal"], ng, alpha))
    out["fair"] = 1.0 / out["players"]
    est = grouped_mean(
        rows["win"].to_numpy() - 1.0 / rows["players"].to_numpy(), g, rows["deal"], ng
    )
    edge = estimate_columns("edge", est["mean"], est["se"], est["clusters"], est["n"], alpha)
    out = out.assign(**{k: edge[k] for k in ("edge", "edge_lo", "edge_hi", "edge_p")})
    for col in ("score", "rank"):
        out = out.assign(**clustered_mean(col, rows[col], every, g, rows["deal"], ng, alpha))
    return out.sort_values(keys, ignore_index=True)


def start_advantage(games: pd.DataFrame, by=("tier",), alpha: float = ALPHA) -> pd.DataFrame:
    """The start player's win rate per ``by`` × player count, pooled over the variants of that
    player count (each deal once per variant; errors clustered by deal): the headline."""
    t = position_table(games, by=by, alpha=alpha)
    return t[t["position"] == 0].drop(columns="position").reset_index(drop=True)


def score_table(games: pd.DataFrame, by=BY, alpha: float = ALPHA) -> pd.DataFrame:
    """Per ``by``: games, players, the winner's score, the winning margin (winner − runner-up),
    the spread of scores within a game (standard deviation over the seats) and the share of
    games decided by the sword chip (a tie of scores)."""
    facts = _game_facts(games)
    g, out = _groups(facts, by)
    ng = len(out)
    every = np.ones(len(facts), bool)
    out["games"] = np.bincount(g, minlength=ng)
    out["players"] = facts.groupby(g)["players"].first().to_numpy()
    for col in ("win_score", "margin", "spread", "mean_score"):
        out = out.assign(**clustered_mean(col, facts[col], every, g, facts["deal"], ng, alpha))
    out = out.assign(
        **clustered_rate("chip_tie", facts["chip_tie"], every, g, facts["deal"], ng, alpha)
    )
    return out


def _game_facts(games: pd.DataFrame) -> pd.DataFrame:
    scores = np.stack(
        [games[f"score_p{q}"].to_numpy(float) for q in range(1, MAXP + 1)], axis=1
    )  # NaN for seats not in play
    top = np.sort(np.nan_to_num(scores, nan=-np.inf), axis=1)[:, ::-1]
    return pd.DataFrame(
        {
            **{k: games[k].to_numpy() for k in ("variant", "tier", "players", "deal")},
            "win_score": top[:, 0],
            "margin": top[:, 0] - top[:, 1],
            "spread": np.nanstd(scores, axis=1),
            "mean_score": np.nanmean(scores, axis=1),
            "chip_tie": (top[:, 0] == top[:, 1]).astype(float),
        }
    )


def score_distribution(games: pd.DataFrame, by=("variant",)) -> pd.DataFrame:
    """Quantiles of every seat's score and of the winning margin per ``by`` (no intervals:
    a description of the distribution, not an estimate)."""
    rows = seat_rows(games)
    facts = _game_facts(games)
    q = [0.1, 0.25, 0.5, 0.75, 0.9]
    a = rows.groupby(list(by))["score"].quantile(q).unstack()
    a.columns = [f"score_q{int(100 * c)}" for c in a.columns]
    b = facts.groupby(list(by))["margin"].quantile(q).unstack()
    b.columns = [f"margin_q{int(100 * c)}" for c in b.columns]
    return a.join(b).reset_index()


def token_table(games: pd.DataFrame, by=("players",), alpha: float = ALPHA) -> pd.DataFrame:
    """Per ``by`` × token value 2…12: how often the large token is taken (``taken``; else set
    aside), how often its taker is the start player (``by_start``, fair 1/N), how often its
    taker wins the game (``taker_wins``) and the winner's power there (``power``: by how much
    the area was won)."""
    parts = []
    for v in TOKENS:
        large = games[f"large_{v}"].to_numpy(np.int64)
        taken = large > 0
        parts.append(
            pd.DataFrame(
                {
                    **{k: games[k].to_numpy() for k in set(by) | {"players", "deal"}},
                    "token": v,
                    "taken": taken.astype(float),
                    "by_start": (large == games["first"].to_numpy(np.int64)).astype(float),
                    "taker_wins": (large == games["winner"].to_numpy(np.int64)).astype(float),
                    "power": games[f"power_{v}"].to_numpy(float),
                    "_taken": taken,
                }
            )
        )
    rows = pd.concat(parts, ignore_index=True)
    keys = list(dict.fromkeys(list(by) + ["token"]))
    g, out = _groups(rows, keys)
    ng = len(out)
    every = np.ones(len(rows), bool)
    m = rows["_taken"].to_numpy()
    out = out.assign(**clustered_rate("taken", rows["taken"], every, g, rows["deal"], ng, alpha))
    for col in ("by_start", "taker_wins"):
        out = out.assign(**clustered_rate(col, rows[col], m, g, rows["deal"], ng, alpha))
    out = out.assign(**clustered_mean("power", rows["power"], m, g, rows["deal"], ng, alpha))
    return out.sort_values(keys, ignore_index=True)


def grid_toggles(games: pd.DataFrame) -> list[str]:
    """The toggles that take more than one value among the variants of one player count."""
    found = []
    for t in TOGGLES:
        if t in games and (games.groupby("players")[t].nunique(dropna=False) > 1).any():
            found.append(t)
    return found


def toggle_effects(games: pd.DataFrame, by=("tier",), alpha: float = ALPHA) -> pd.DataFrame:
    """The paired effect of each toggle, per ``by`` × player count: for each value of the
    toggle against its first value in the run (``base``: the config's first grid value), the
    change in the start player's win rate
    (``start_win``) and in the spread of scores (``spread``) and the winning margin
    (``margin``), estimated within strata of the other toggles (so only games that differ in
    this toggle alone are compared) on the same deals, errors clustered by deal. ``shrinks``:
    the start player's edge over the fair share moves toward 0 and the interval of the change
    excludes 0."""
    toggles = grid_toggles(games)
    if not toggles:
        return pd.DataFrame()
    facts = _game_facts(games)
    facts["start_win"] = (games["winner"].to_numpy() == games["first"].to_numpy()).astype(float)
    for t in toggles:
        col = games[t]
        facts[t] = (
            col.map({True: "on", False: "off"}) if col.dtype == bool else col.astype(str)
        ).to_numpy()
    out = []
    for t in toggles:
        others = [o for o in toggles if o != t]
        for keys, part in facts.groupby(list(by) + ["players"], sort=True):
            values = list(pd.unique(part[t]))  # the first is the config's first grid value
            if len(values) < 2:
                continue
            strata = (
                pd.MultiIndex.from_frame(part[others]).factorize()[0]
                if others
                else np.zeros(len(part), np.int64)
            )
            for alt in values[1:]:
                sub = part[part[t].isin([values[0], alt])]
                s = strata[part[t].isin([values[0], alt]).to_numpy()]
                treated = (sub[t] == alt).to_numpy()
                row = dict(
                    zip(list(by) + ["players"], keys if isinstance(keys, tuple) else (keys,))
                )
                row.update(toggle=t, base=values[0], value=alt)
                fair = 1.0 / row["players"]
                for col in ("start_win", "spread", "margin"):
                    d = grouped_diff(
                        sub[col],
                        treated,
                        np.zeros(len(sub), np.int64),
                        sub["deal"],
                        strata=s,
                        n_groups=1,
                    )
                    cols = estimate_columns(col, d["diff"], d["se"], d["clusters"], d["n"], alpha)
                    row.update({k: float(v[0]) for k, v in cols.items()})
                for name, mask in (("base_start_win", ~treated), ("value_start_win", treated)):
                    row[name] = float(sub["start_win"].to_numpy()[mask].mean())
                edge_b, edge_v = row["base_start_win"] - fair, row["value_start_win"] - fair
                sure = row["start_win_lo"] > 0 or row["start_win_hi"] < 0
                row["shrinks"] = bool(sure and abs(edge_v) < abs(edge_b))
                row["grows"] = bool(sure and abs(edge_v) > abs(edge_b))
                out.append(row)
    return pd.DataFrame(out)


def summary_tables(out) -> list:
    """The tables ``lab run`` prints at the end of a run: per variant, the start player's win
    rate against the fair share, with its interval, and the winning margin."""
    from rich.table import Table

    games = load(out)
    pt = position_table(games)
    st = score_table(games).set_index(list(BY))
    tiers = list(dict.fromkeys(pt["tier"]))
    tables = []
    for tier in tiers:
        t = Table(
            title=f"start player's win rate (95% CI, clustered by deal) — bots {tier}",
            title_justify="left",
        )
        for c in ("variant", "games", "start player", "fair", "margin"):
            t.add_column(c, justify="left" if c == "variant" else "right")
        p0 = pt[(pt["tier"] == tier) & (pt["position"] == 0)]
        for _, r in p0.iterrows():
            s = st.loc[(r["variant"], tier)]
            t.add_row(
                r["variant"],
                f"{int(r['win_rate_n']):,}",
                f"{r['win_rate']:.1%} [{r['win_rate_lo']:.1%}, {r['win_rate_hi']:.1%}]",
                f"{r['fair']:.1%}",
                f"{s['margin']:.1f}",
            )
        tables.append(t)
    return tables


__all__ = [
    "grid_toggles",
    "load",
    "position_table",
    "score_distribution",
    "score_table",
    "seat_rows",
    "start_advantage",
    "summary_tables",
    "toggle_effects",
    "token_table",
]
