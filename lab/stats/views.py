"""Derived views of the records that several statistics share: per-seat rows and grouping keys.

Owns: turning a game into two seat rows (army, opponent, went first, result, score with a draw as
½), attaching a game's outcome, deal cluster and grouping columns to its cards rows, the ``by``
argument every table takes (which games columns to split by; the default everywhere is
``("variant", "tier")``), with a clear error for a column the games table does not have, group
codes for the vectorised estimators, and the label a table gets when it pools bot tiers (a tier
column reading "pooled: …", so a pooled number never passes for one tier's). No statistic lives
here.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from lab.errors import LabError
from lab.stats.clustered import CLUSTER, deal_clusters

BY = ("variant", "tier")  # every table's default grouping: bot tiers are never pooled silently


def group_columns(games: pd.DataFrame, by) -> list[str]:
    """The ``by`` argument as a list of games columns, checked."""
    if by is None:
        return []
    cols = [by] if isinstance(by, str) else list(by)
    missing = [c for c in cols if c not in games.columns]
    if missing:
        allowed = ", ".join(c for c in games.columns if c not in ("seed_words",))
        raise LabError(
            f"cannot group by {', '.join(missing)}: not a games column (allowed: {allowed})"
        )
    return cols


def pooled_columns(games: pd.DataFrame, keys: list[str]) -> dict[str, str]:
    """The label of a table that pools tiers: {"tier": "pooled: a + b"} when ``keys`` leave out
    ``tier`` and the games hold several tiers, {"tier": the one tier} when they hold one, else
    {}."""
    if "tier" in keys or "tier" not in games.columns:
        return {}
    tiers = [str(t) for t in pd.unique(games["tier"])]
    return {"tier": tiers[0] if len(tiers) == 1 else "pooled: " + " + ".join(tiers)}


def label_pooled(out: pd.DataFrame, games: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Insert the ``pooled_columns`` label as the table's first columns."""
    for i, (col, v) in enumerate(pooled_columns(games, keys).items()):
        if col not in out.columns:
            out.insert(i, col, v)
    return out


def with_clusters(games: pd.DataFrame) -> pd.DataFrame:
    """The games with their deal cluster id (``CLUSTER`` column) — see ``deal_clusters``."""
    if CLUSTER in games.columns:
        return games
    return games.assign(**{CLUSTER: deal_clusters(games)})


def group_codes(df: pd.DataFrame, keys: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """An integer code per row for its group of ``keys`` (sorted), and the keys per code."""
    if not keys:
        return np.zeros(len(df), dtype=np.int64), pd.DataFrame(index=[0])
    grp = df.groupby(keys, sort=True, observed=True, dropna=False)
    return grp.ngroup().to_numpy(np.int64), grp.size().reset_index()[keys]


def seat_rows(games: pd.DataFrame, keep: Iterable[str] = ()) -> pd.DataFrame:
    """Two rows per game, one per seat: army, opponent, went_first, won, lost, draw, score.

    ``mirror`` marks games of an army against itself (statistics of an army's strength leave
    them out: they always add one win and one loss). Each row carries its deal cluster
    (``CLUSTER``). ``keep`` lists further games columns to carry.
    """
    games = with_clusters(games)
    keep = [c for c in dict.fromkeys(["game_id", CLUSTER, *keep]) if c in games.columns]
    parts = []
    for seat, other in (("A", "B"), ("B", "A")):
        s, o = seat.lower(), other.lower()
        part = games[keep].copy()
        part["seat"] = seat
        part["army"] = games[f"army_{s}"].to_numpy()
        part["opponent"] = games[f"army_{o}"].to_numpy()
        part["went_first"] = (games["first"] == seat).to_numpy()
        part["won"] = (games["winner"] == seat).to_numpy()
        part["lost"] = (games["winner"] == other).to_numpy()
        part["draw"] = (games["winner"] == "draw").to_numpy()
        part["walls"] = games[f"walls_{s}"].to_numpy()
        part["max_deficit"] = games[f"max_deficit_{s}"].to_numpy()
        parts.append(part)
    rows = pd.concat(parts, ignore_index=True)
    rows["score"] = rows["won"] + 0.5 * rows["draw"]
    rows["mirror"] = rows["army"] == rows["opponent"]
    return rows


CARD_COUNTS = (
    "game_id",
    "player",
    "army",
    "card",
    "card_id",
    "copies",
    "opening",
    "drawn",
    "gained",
    "played",
    "won",
    "triggers",
)


def card_rows(
    cards: pd.DataFrame, games: pd.DataFrame, by: list[str], columns: Iterable[str] = CARD_COUNTS
) -> pd.DataFrame:
    """Cards rows (``columns`` of the cards table, where present) with the game's outcome for
    that seat (won, draw, score), the opponent's army, the deal cluster and the grouping
    columns."""
    games = with_clusters(games)
    cols = list(dict.fromkeys(["game_id", "winner", "army_a", "army_b", CLUSTER, *by]))
    g = games[cols]
    keep = [c for c in dict.fromkeys(["game_id", *columns]) if c in cards.columns]
    rows = cards[keep].merge(
        g, on="game_id", how="left", validate="many_to_one", suffixes=("", "_game")
    )
    rows["won_game"] = (rows["winner"] == rows["player"]).to_numpy()
    rows["draw"] = (rows["winner"] == "draw").to_numpy()
    rows["score"] = rows["won_game"] + 0.5 * rows["draw"]
    seat_a = (rows["player"] == "A").to_numpy()
    rows["opponent"] = np.where(seat_a, rows["army_b"], rows["army_a"])
    rows["mirror"] = rows["army_a"] == rows["army_b"]
    return rows.drop(columns=[c for c in ("army_a", "army_b") if c not in by])


def grouped(df: pd.DataFrame, keys: list[str]):
    """``df.groupby(keys)`` that also works for no keys (one group) and keeps key columns."""
    if not keys:
        return df.assign(_all=0).groupby("_all", sort=False)
    return df.groupby(keys, sort=True, observed=True, dropna=False)


def reset(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Undo ``grouped``'s index: key columns back as columns (the dummy key dropped)."""
    df = df.reset_index()
    if "_all" in df.columns:
        df = df.drop(columns="_all")
    if "index" in df.columns and "index" not in keys:
        df = df.drop(columns="index")
    return df
