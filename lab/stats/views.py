"""Derived views of the records that several statistics share: per-seat rows and grouping keys.

Owns: turning a game into two seat rows (army, opponent, went first, result, score with a draw as
½), attaching a game's outcome and grouping columns to its cards rows, and the ``by`` argument
every table takes (which games columns to split by, e.g. ``("variant", "tier")``), with a clear
error for a column the games table does not have. No statistic lives here.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from lab.errors import LabError


def group_columns(games: pd.DataFrame, by) -> list[str]:
    """The ``by`` argument as a list of games columns, checked."""
    if by is None:
        return []
    cols = [by] if isinstance(by, str) else list(by)
    missing = [c for c in cols if c not in games.columns]
    if missing:
        allowed = ", ".join(c for c in games.columns if c not in ("seed_words",))
        raise LabError(f"cannot group by {', '.join(missing)}: not a games column "
                       f"(allowed: {allowed})")
    return cols


def seat_rows(games: pd.DataFrame, keep: Iterable[str] = ()) -> pd.DataFrame:
    """Two rows per game, one per seat: army, opponent, went_first, won, lost, draw, score.

    ``mirror`` marks games of an army against itself (statistics of an army's strength leave
    them out: they always add one win and one loss). ``keep`` lists further games columns to carry.
    """
    keep = [c for c in dict.fromkeys(["game_id", *keep]) if c in games.columns]
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


def card_rows(cards: pd.DataFrame, games: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Cards rows with the game's outcome for that seat (won, draw) and the grouping columns."""
    cols = list(dict.fromkeys(["game_id", "winner", *by]))
    g = games[cols]
    rows = cards.merge(g, on="game_id", how="left", validate="many_to_one",
                       suffixes=("", "_game"))
    rows["won_game"] = (rows["winner"] == rows["player"]).to_numpy()
    rows["draw"] = (rows["winner"] == "draw").to_numpy()
    return rows


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
