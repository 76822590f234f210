"""A results folder as the statistics take it, checked against the record schema (docs/records.md).

Owns: ``load(results_dir)`` — the games and cards tables (read by ``lab.records``) from either
layout a run may write (chunk folders ``games/chunk-*.parquet``, ``cards/chunk-*.parquet`` or the merged ``games.parquet``,
``cards.parquet``; when both exist the merged file is read) plus ``manifest.json`` when present —
the columns the statistics need, their allowed values, and the ``Records`` value every statistic
takes. Only complete chunks are read, and games the engine flagged ``error`` are set aside
(counted, not analysed). A missing folder, file or column, or a value outside its allowed set, is a ``LabError``
naming the file, the column and what is allowed. It computes no statistic and never simulates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from lab import records
from lab.errors import LabError
from lab.records import CARDS, GAMES

# Columns the statistics read (docs/records.md lists more; extra columns are kept, never needed).
GAMES_COLUMNS: dict[str, str] = {
    "game_id": "int",
    "variant": "str",
    "army_a": "str",
    "army_b": "str",
    "tier": "str",
    "deal": "int",
    "swapped": "bool",
    "first": "str",
    "winner": "str",
    "end_reason": "str",
    "leader_turns": "int",
    "battles": "int",
    "walls_a": "int",
    "walls_b": "int",
    "max_deficit_a": "int",
    "max_deficit_b": "int",
}
CARDS_COLUMNS: dict[str, str] = {
    "game_id": "int",
    "player": "str",
    "army": "str",
    "card": "str",
    "copies": "int",
    "opening": "int",
    "drawn": "int",
    "gained": "int",
    "played": "int",
    "won": "int",
    "triggers": "int",
    "triggers_by_ability": "str",
}
ALLOWED: dict[str, tuple[str, ...]] = {
    "first": ("A", "B"),
    "winner": ("A", "B", "draw"),
    "player": ("A", "B"),
}
END_REASONS = ("castle_fell", "exhaustion", "stalemate", "turn_limit")  # display order


@dataclass
class Records:
    """The games (one row per game) and cards (game × seat × card type) tables of one run."""

    games: pd.DataFrame
    cards: pd.DataFrame | None = None
    manifest: dict = field(default_factory=dict)
    path: Path | None = None
    error_games: int = 0  # games set aside: they hit an engine limit (games column "error")
    skipped_chunks: int = 0  # incomplete chunks left unread (one of their two files missing)

    @classmethod
    def from_frames(
        cls,
        games: pd.DataFrame,
        cards: pd.DataFrame | None = None,
        manifest: dict | None = None,
        source: str = "games",
    ) -> "Records":
        """Records from in-memory frames, checked exactly as ``load`` checks files."""
        g = check_games(games, source)
        c = check_cards(cards, g, "cards") if cards is not None else None
        return _set_aside_errors(cls(g, c, manifest or {}, None))

    def require_cards(self) -> pd.DataFrame:
        if self.cards is None:
            where = str(self.path) if self.path else "records"
            raise LabError(
                "this statistic needs the cards table (cards.parquet or "
                "cards/chunk-*.parquet), but none was loaded",
                source=where,
            )
        return self.cards

    def army_names(self) -> dict[str, str]:
        """Army key → printed name (織田) from the games table, where the run recorded it."""
        g = self.games
        names: dict[str, str] = {}
        for seat in ("a", "b"):
            col = f"army_{seat}_name"
            if col in g.columns:
                pairs = g[[f"army_{seat}", col]].drop_duplicates()
                names.update(dict(zip(pairs.iloc[:, 0], pairs.iloc[:, 1])))
        return names

    def variants(self) -> list[str]:
        """Variant ids in the run's order (the order of their first cell), else first seen."""
        g = self.games
        if "cell" in g.columns:
            return list(g.groupby("variant", sort=False)["cell"].min().sort_values().index)
        return list(pd.unique(g["variant"]))


def as_records(x) -> Records:
    """Accept a Records value or a games DataFrame (for the statistics that need only games)."""
    if isinstance(x, Records):
        return x
    if isinstance(x, pd.DataFrame):
        return Records.from_frames(x)
    if isinstance(x, (str, Path)):
        return load(x)
    raise TypeError(
        f"expected lab.stats.Records, a games DataFrame or a results folder, got {type(x).__name__}"
    )


# ------------------------------------------------------------------------------------ loading


def load(results_dir: str | Path, *, cards: bool = True) -> Records:
    """Load a results folder (either layout) and check its columns; ``cards=False`` skips cards.

    In the chunk layout only complete chunks are read — those with both their games and cards
    file (a run writes cards first, games last; an interrupted one may leave a cards file alone);
    ``Records.skipped_chunks`` counts the others. Games flagged ``error`` (an engine limit hit)
    are set aside: ``Records.error_games`` counts them.
    """
    root = Path(results_dir)
    if not root.exists():
        raise LabError(
            "results folder not found (give the folder `lab run … --out DIR` wrote)",
            source=str(root),
        )
    if not root.is_dir():
        raise LabError(
            "not a folder; give the results folder that holds games.parquet or "
            "games/chunk-*.parquet",
            source=str(root),
        )
    manifest = records.read_manifest(root) or {}
    tables = (GAMES, CARDS) if cards else (GAMES,)
    for kind in tables:
        if not records.files(root, kind, (kind,)):
            raise LabError(
                f"no {kind} records: expected {kind}.parquet or "
                f"{kind}/chunk-*.parquet (docs/records.md)",
                source=str(root),
            )
    # chunks count when complete in every table read; a merged file is whole on its own
    merged = any((root / f"{kind}.parquet").is_file() for kind in tables)
    games_files = records.files(root, GAMES, (GAMES,) if merged else tables)
    if not games_files:
        raise LabError(
            "no complete chunk: games/ and cards/ share no chunk-*.parquet file name",
            source=str(root),
        )
    g = check_games(records.read_frame(games_files, _label(root, GAMES)), _label(root, GAMES))
    c = None
    if cards:
        cards_files = records.files(root, CARDS, (CARDS,) if merged else tables)
        c = check_cards(
            records.read_frame(cards_files, _label(root, CARDS)), g, _label(root, CARDS)
        )
    rec = _set_aside_errors(Records(g, c, manifest, root))
    rec.skipped_chunks = 0 if merged or not cards else records.incomplete_chunks(root, tables)
    return rec


def _label(root: Path, kind: str) -> str:
    """How an error names a table's files: the merged file, else the chunk pattern."""
    merged = root / f"{kind}.parquet"
    return str(merged) if merged.is_file() else str(root / kind / "chunk-*.parquet")


def _set_aside_errors(rec: Records) -> Records:
    g = rec.games
    if "error" in g.columns and g["error"].astype(bool).any():
        bad = g["error"].astype(bool)
        rec.error_games = int(bad.sum())
        rec.games = g[~bad].reset_index(drop=True)
        if rec.games.empty:
            raise LabError(
                f"all {rec.error_games} games hit an engine limit (error = true); "
                "nothing to analyse",
                source=str(rec.path or "games"),
            )
        if rec.cards is not None:
            keep = rec.cards["game_id"].isin(rec.games["game_id"])
            rec.cards = rec.cards[keep].reset_index(drop=True)
    return rec


# --------------------------------------------------------------------------------- validation


def _check_columns(df: pd.DataFrame, wanted: dict[str, str], source: str, table: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise LabError(
            f"the {table} table must be a pandas DataFrame, got {type(df).__name__}", source=source
        )
    missing = [c for c in wanted if c not in df.columns]
    if missing:
        raise LabError(
            f"the {table} table lacks column(s) {', '.join(missing)}; it needs "
            f"{', '.join(wanted)} (docs/records.md)",
            source=source,
        )


def _coerce(df: pd.DataFrame, wanted: dict[str, str], source: str, table: str) -> pd.DataFrame:
    df = df.copy()
    for col, kind in wanted.items():
        s = df[col]
        try:
            if kind == "int":
                if s.isna().any():
                    raise ValueError("missing values")
                df[col] = s.astype("int64")
            elif kind == "bool":
                if s.isna().any():
                    raise ValueError("missing values")
                if not pd.api.types.is_bool_dtype(s):
                    bad = set(pd.unique(s)) - {0, 1, True, False}
                    if bad:
                        raise ValueError(f"values {sorted(map(str, bad))[:5]}")
                df[col] = s.astype(bool)
            else:
                df[col] = s.fillna("").astype(str)
        except (ValueError, TypeError) as e:
            allowed = {"int": "whole numbers", "bool": "true/false", "str": "text"}[kind]
            raise LabError(
                f"{table} column \"{col}\" must hold {allowed} ({e})", source=source
            ) from None
    for col, allowed in ALLOWED.items():
        if col in wanted:
            bad = sorted(set(pd.unique(df[col])) - set(allowed))
            if bad:
                raise LabError(
                    f"{table} column \"{col}\" has value(s) "
                    f"{', '.join(map(repr, bad[:5]))}; allowed: {', '.join(allowed)}",
                    source=source,
                )
    return df


def check_games(games: pd.DataFrame, source: str = "games") -> pd.DataFrame:
    """The games table with the needed columns typed; a LabError names what is wrong."""
    _check_columns(games, GAMES_COLUMNS, source, "games")
    g = _coerce(games, GAMES_COLUMNS, source, "games")
    if g["game_id"].duplicated().any():
        dup = g.loc[g["game_id"].duplicated(), "game_id"].iloc[0]
        raise LabError(
            f"games column \"game_id\" repeats (e.g. {dup}); a game_id is unique in a run",
            source=source,
        )
    if g.empty:
        raise LabError("the games table has no rows", source=source)
    return g.reset_index(drop=True)


def check_cards(cards: pd.DataFrame, games: pd.DataFrame, source: str = "cards") -> pd.DataFrame:
    """The cards table typed and checked against the games it belongs to."""
    _check_columns(cards, CARDS_COLUMNS, source, "cards")
    c = _coerce(cards, CARDS_COLUMNS, source, "cards")
    orphan = ~c["game_id"].isin(games["game_id"])
    if orphan.any():
        raise LabError(
            f"{int(orphan.sum())} cards row(s) name a game_id that is not in the games "
            f"table (e.g. {c.loc[orphan, 'game_id'].iloc[0]})",
            source=source,
        )
    key = ["game_id", "player", "card"]
    if c.duplicated(key).any():
        row = c.loc[c.duplicated(key), key].iloc[0]
        raise LabError(
            f"cards rows repeat game × player × card (e.g. game {row['game_id']}, "
            f"{row['player']}, {row['card']}); one row per card type",
            source=source,
        )
    return c.reset_index(drop=True)
