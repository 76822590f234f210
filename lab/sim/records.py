"""Game and card records (docs/records.md): build the Arrow tables of a chunk, write them
atomically as Parquet, and read a results folder back.

Owns the record schema, the chunk file names and the write protocol: a chunk's cards file, then its
games file, each written to a hidden temp file in the same folder and renamed into place — so a
chunk is complete exactly when both its files exist, and a killed writer leaves at most a hidden
temp file (which Parquet readers skip and ``--resume`` deletes). Each write returns the file's
rows and sha256, which the manifest keeps; readers and ``--resume`` check the chunks against them,
so a truncated or overwritten chunk is named in one line (and replayed by ``--resume``) instead of
failing deep inside pyarrow. It turns engine arrays into columns with numpy and pyarrow compute
and plays nothing.

``LAB_SIM_WRITE_PAUSE`` (seconds; a test hook, never set in normal use) pauses each write between
the temp file and the rename, so a test can kill a run while a chunk is being written.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import uuid
from dataclasses import fields
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lab.cards.pool import CardPool, Deck
from lab.engine import layout, nb_play
from lab.engine.layout import (C_GTYPE, C_NLOC, C_ORIGIN, END_NAMES, ST_DIED, ST_DRAWN,
                               ST_FIRST_DRAW, ST_GAINED, ST_OPENING, ST_PLAYED, ST_STOLEN,
                               ST_TRIG, ST_WON)
from lab.engine.triggers import ability_rows
from lab.errors import LabError
from lab.rules import RuleSet

GAMES = "games"
CARDS = "cards"
SEATS = ("A", "B")
WINNERS = ("A", "B", "draw")
PAUSE_ENV = "LAB_SIM_WRITE_PAUSE"

# behaviour counters per seat (lab.engine.layout CNT_*): column stem → counter index
COUNTERS = {name[4:].lower(): getattr(layout, name) for name in dir(layout)
            if name.startswith("CNT_")}
_ARROW_TYPES = {int: pa.int32(), bool: pa.bool_(), str: pa.string()}
TOGGLE_TYPES = {f.name: _ARROW_TYPES[type(getattr(RuleSet(), f.name))] for f in fields(RuleSet)}

GAMES_SCHEMA = pa.schema(
    [("game_id", pa.int64()), ("cell", pa.int32()), ("variant", pa.string()),
     ("patch", pa.string())]
    + list(TOGGLE_TYPES.items())
    + [(k, pa.string()) for k in ("army_a", "army_b", "army_a_name", "army_b_name", "bot_a",
                                  "bot_b", "tier")]
    + [("deal", pa.int64()), ("swapped", pa.bool_())]
    + [(k, pa.string()) for k in ("first", "winner", "winner_army", "end_reason")]
    + [(k, pa.int32()) for k in ("leader_turns", "battles", "decisions", "walls_a", "walls_b",
                                 "deck_a", "deck_b", "max_deficit_a", "max_deficit_b")]
    + [("seed_words", pa.list_(pa.int64())), ("error", pa.bool_())]
    + [(f"{k}_{seat}", pa.int32()) for k in sorted(COUNTERS, key=COUNTERS.get)
       for seat in "ab"])

CARDS_SCHEMA = pa.schema(
    [("game_id", pa.int64()), ("player", pa.string()), ("army", pa.string()),
     ("card", pa.string()), ("card_id", pa.string()), ("copies", pa.int16())]
    + [("opening", pa.int16()), ("drawn", pa.int16()), ("first_draw_turn", pa.int32()),
       ("gained", pa.int16()), ("played", pa.int16()), ("won", pa.int16()),
       ("triggers", pa.int16()), ("triggers_by_ability", pa.string()), ("died", pa.int16()),
       ("stolen", pa.int16())])

_R = nb_play


# ------------------------------------------------------------------------------ building tables

def games_table(job, seeds: np.ndarray, results: np.ndarray) -> pa.Table:
    """One row per game of a chunk (``job``: a ``lab.sim.plan.Job``)."""
    n = len(results)
    deals = np.arange(job.lo, job.hi, dtype=np.int64)
    armies = np.array([job.army_a.key, job.army_b.key, ""], dtype=object)
    winner = results[:, _R.RES_WINNER]
    rules = job.variant.as_dict()

    def const(value, type_):
        return pa.repeat(pa.scalar(value, type_), n)

    def pick(labels, codes):
        return pc.take(pa.array(list(labels), pa.string()), pa.array(codes))

    def i32(col):
        return pa.array(results[:, col].astype(np.int32))

    cols = {
        "game_id": pa.array(job.game_id(deals)),
        "cell": const(job.cell, pa.int32()),
        "variant": const(job.variant_id, pa.string()),
        "patch": const(job.patch.name, pa.string()),
        **{k: const(rules[k], t) for k, t in TOGGLE_TYPES.items()},
        "army_a": const(job.army_a.key, pa.string()),
        "army_b": const(job.army_b.key, pa.string()),
        "army_a_name": const(job.army_a.name, pa.string()),
        "army_b_name": const(job.army_b.name, pa.string()),
        "bot_a": const(job.tier.a.label, pa.string()),
        "bot_b": const(job.tier.b.label, pa.string()),
        "tier": const(job.tier.label, pa.string()),
        "deal": pa.array(deals),
        "swapped": const(job.swapped, pa.bool_()),
        "first": pick(SEATS, results[:, _R.RES_FIRST]),
        "winner": pick(WINNERS, winner),
        "winner_army": pick(armies, winner),
        "end_reason": pick(END_NAMES, results[:, _R.RES_END]),
        "leader_turns": i32(_R.RES_TURNS),
        "battles": i32(_R.RES_BATTLES),
        "decisions": i32(_R.RES_DECISIONS),
        "walls_a": i32(_R.RES_WALLS_A),
        "walls_b": i32(_R.RES_WALLS_B),
        "deck_a": i32(_R.RES_DECK_A),
        "deck_b": i32(_R.RES_DECK_B),
        "max_deficit_a": i32(_R.RES_DEFICIT_A),
        "max_deficit_b": i32(_R.RES_DEFICIT_B),
        "seed_words": pa.FixedSizeListArray.from_arrays(pa.array(seeds.reshape(-1)),
                                                        seeds.shape[1]).cast(
            pa.list_(pa.int64())),
        "error": pa.array(results[:, _R.RES_ERROR] != 0),
    }
    for k, i in COUNTERS.items():
        for p, seat in enumerate("ab"):
            cols[f"{k}_{seat}"] = i32(_R.RES_CNT + p * layout.N_CNT + i)
    return pa.Table.from_pydict(cols, schema=GAMES_SCHEMA)


def cards_table(job, pool: CardPool, ctx: np.ndarray, decks: tuple[Deck, Deck],
                stats: np.ndarray) -> pa.Table:
    """One row per game × player × card type in that player's deck (statistics per local id:
    a local id's seat and card type come from the matchup context)."""
    n = len(stats)
    nloc = int(ctx[C_NLOC])
    gtype = ctx[C_GTYPE:C_GTYPE + nloc]
    origin = ctx[C_ORIGIN:C_ORIGIN + nloc]
    cards = [pool.cards[int(g)] for g in gtype]
    counts = [np.bincount(d.card_indices(), minlength=len(pool.cards)) for d in decks]
    copies = np.array([counts[o][g] for g, o in zip(gtype, origin)], dtype=np.int16)
    st = stats[:, :, :nloc]
    local = pa.array(np.tile(np.arange(nloc), n))

    def per_local(values, type_=pa.string()):
        return pc.take(pa.array(values, type_), local)

    def count(row, type_=np.int16):
        return pa.array(st[:, row, :].reshape(-1).astype(type_))

    trig_rows = st[:, ST_TRIG:ST_TRIG + 4, :]  # [game, effect row, local id]
    cols = {
        "game_id": pa.array(np.repeat(job.game_id(np.arange(job.lo, job.hi)), nloc)),
        "player": per_local([SEATS[o] for o in origin]),
        "army": per_local([(job.army_a, job.army_b)[o].key for o in origin]),
        "card": per_local([c.name for c in cards]),
        "card_id": per_local([c.id for c in cards]),
        "copies": pa.array(np.tile(copies, n)),
        "opening": count(ST_OPENING),
        "drawn": count(ST_DRAWN),
        "first_draw_turn": count(ST_FIRST_DRAW, np.int32),
        "gained": count(ST_GAINED),
        "played": count(ST_PLAYED),
        "won": count(ST_WON),
        "triggers": pa.array(trig_rows.sum(axis=1).reshape(-1).astype(np.int16)),
        "triggers_by_ability": _by_ability(cards, trig_rows, n, nloc),
        "died": count(ST_DIED),
        "stolen": count(ST_STOLEN),
    }
    return pa.Table.from_pydict(cols, schema=CARDS_SCHEMA)


def _by_ability(cards, trig_rows: np.ndarray, n: int, nloc: int) -> pa.Array:
    """JSON {ability id: triggers} for cards with two or more abilities, else ""."""
    pieces = [pa.array([""])]
    index = np.zeros((n, nloc), dtype=np.int64)
    offset = 1
    for i, card in enumerate(cards):
        if len(card.abilities) < 2:
            continue
        rows = ability_rows(card)
        parts = []
        for k, a in enumerate(card.abilities):
            mine = [r for r, aid in enumerate(rows) if aid == a.id]
            total = trig_rows[:, mine, i].sum(axis=1)
            parts += [("{" if k == 0 else ", ") + json.dumps(a.id) + ": ",
                      pc.cast(pa.array(total), pa.string())]
        pieces.append(pc.binary_join_element_wise(*parts, "}", ""))
        index[:, i] = offset + np.arange(n)
        offset += n
    return pc.take(pa.concat_arrays(pieces), pa.array(index.reshape(-1)))


# ------------------------------------------------------------------------------------- writing

def chunk_name(chunk_id: int) -> str:
    return f"chunk-{chunk_id:05d}.parquet"


def chunk_path(out: Path, kind: str, chunk_id: int) -> Path:
    return Path(out) / kind / chunk_name(chunk_id)


def parquet_options(schema: pa.Schema) -> dict:
    """Dictionary-encode the strings, delta-encode the integers, keep statistics for game_id
    only: files as small as the defaults make, written in about 60% of the time."""
    return {"use_dictionary": [f.name for f in schema if pa.types.is_string(f.type)],
            "column_encoding": {f.name: "DELTA_BINARY_PACKED" for f in schema
                                if pa.types.is_integer(f.type)},
            "write_statistics": ["game_id"]}


def write_atomic(table: pa.Table, path: Path) -> dict:
    """Write ``table`` to ``path`` through a hidden temp file in the same folder and a rename;
    returns the file's rows and sha256 (what the manifest records to check it later)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")
    try:
        pq.write_table(table, tmp, **parquet_options(table.schema))
        written = {"rows": table.num_rows, "sha256": file_digest(tmp)}
        pause = os.environ.get(PAUSE_ENV)
        if pause:
            time.sleep(float(pause))
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return written


def write_chunk(out: Path, chunk_id: int, games: pa.Table, cards: pa.Table) -> dict:
    """Cards first, games last: a chunk counts as written once its games file exists. Returns
    {kind: {"rows", "sha256"}} for the manifest."""
    files = {CARDS: write_atomic(cards, chunk_path(out, CARDS, chunk_id))}
    files[GAMES] = write_atomic(games, chunk_path(out, GAMES, chunk_id))
    return files


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def kinds(out: Path) -> tuple[str, ...]:
    """The record tables each chunk of a results folder holds: those of the game its manifest
    names (大天下: games and cards; see ``lab.games``)."""
    from lab.games import of_results

    return tuple(of_results(out).RECORD_KINDS)


def written_chunks(out: Path) -> set[int]:
    """Ids of the complete chunks in a results folder (every file of the chunk present)."""
    def ids(kind):
        return {int(p.stem.split("-")[1]) for p in (Path(out) / kind).glob("chunk-*.parquet")}
    return set.intersection(*(ids(k) for k in kinds(out)))


# -------------------------------------------------------------------------------- integrity

def chunk_problem(out: Path, chunk_id: int, files: dict | None,
                  games_rows: int | None = None, tables: tuple[str, ...] | None = None
                  ) -> str | None:
    """Why a written chunk cannot be trusted, or None when it is sound.

    ``files`` is the manifest's record of the chunk ({kind: {"rows", "sha256"}}): each file must
    have that checksum. A chunk the manifest has no record of (its run was killed before it
    saved one) must at least be readable Parquet with ``games_rows`` games. ``tables``: the
    folder's record kinds when the caller already knows them (``kinds`` reads the manifest)."""
    for kind in tables or kinds(out):
        path = chunk_path(out, kind, chunk_id)
        name = f"{kind}/{path.name}"
        if not path.exists():
            return f"{name} is missing"
        want = (files or {}).get(kind)
        if want:
            if file_digest(path) != want.get("sha256"):
                return (f"{name} is damaged (truncated or changed: its checksum is not the one "
                        f"recorded when it was written, {want.get('rows')} rows)")
            continue
        try:
            rows = pq.read_metadata(path).num_rows
        except Exception:  # pyarrow raises several types for a damaged file
            return f"{name} is damaged (not readable Parquet: truncated or overwritten)"
        if kind == GAMES and games_rows is not None and rows != games_rows:
            return f"{name} is damaged (it holds {rows} games, its chunk has {games_rows})"
    return None


def damaged_chunks(out: Path, man: dict | None) -> dict[int, str]:
    """{chunk id: problem} for the written chunks of a results folder that fail their check."""
    plan = {c["id"]: c for c in (man or {}).get("chunks", [])}
    found = {}
    tables = kinds(out)  # once: the manifest can be large
    for chunk_id in sorted(written_chunks(out)):
        entry = plan.get(chunk_id, {})
        deals = entry.get("deals")
        problem = chunk_problem(out, chunk_id, entry.get("files"),
                                deals[1] - deals[0] if deals else None, tables)
        if problem:
            found[chunk_id] = problem
    return found


def check_readable(out: Path) -> None:
    """A LabError naming the first damaged chunk of a results folder, if any (its manifest says
    what each chunk must hold)."""
    out = Path(out)
    if (out / f"{GAMES}.parquet").exists():
        return
    from lab.sim import manifest

    bad = damaged_chunks(out, manifest.read(out))
    if bad:
        chunk_id, problem = next(iter(bad.items()))
        more = f" (and {len(bad) - 1} more chunk(s))" if len(bad) > 1 else ""
        raise LabError(f"{problem}{more}; run the experiment again with --resume on this folder "
                       "to replay it", source=str(out))


def delete_chunk(out: Path, chunk_id: int) -> None:
    for kind in (GAMES, CARDS):
        chunk_path(out, kind, chunk_id).unlink(missing_ok=True)


def clear(out: Path) -> None:
    """Delete a results folder's records and manifest (``--fresh``); other files stay."""
    out = Path(out)
    for kind in (GAMES, CARDS):
        for p in (out / kind).glob("chunk-*.parquet"):
            p.unlink()
    (out / "manifest.json").unlink(missing_ok=True)
    remove_temp_files(out)


def remove_temp_files(out: Path) -> int:
    """Delete the temp files an interrupted run left behind; returns how many."""
    out = Path(out)
    found = [*out.glob(".manifest.json.*.tmp"), *(out / GAMES).glob(".chunk-*.tmp"),
             *(out / CARDS).glob(".chunk-*.tmp")]
    for p in found:
        p.unlink(missing_ok=True)
    return len(found)


# ------------------------------------------------------------------------------------- reading

def _files(out: Path, kind: str) -> list[Path]:
    done = sorted(written_chunks(out))
    return [chunk_path(out, kind, i) for i in done]


def read_table(out: str | Path, kind: str, columns=None, filter=None) -> pa.Table:
    """The records of a results folder as one Arrow table, from a merged ``KIND.parquet`` or the
    complete chunks of ``KIND/`` (a chunk missing one of its two files is skipped)."""
    out = Path(out)
    merged = out / f"{kind}.parquet"
    if not merged.exists():
        check_readable(out)
    source = [merged] if merged.exists() else _files(out, kind)
    from lab.games import of_results

    schema = of_results(out).schema(kind)
    if not source:
        return schema.empty_table().select(columns) if columns else schema.empty_table()
    import pyarrow.dataset as ds

    return ds.dataset([str(p) for p in source], format="parquet", schema=schema).to_table(
        columns=columns, filter=filter)


def read_games(out: str | Path, columns=None) -> pd.DataFrame:
    """games records as a DataFrame in game id order."""
    df = read_table(out, GAMES, columns).to_pandas()
    if "game_id" in df:
        df = df.sort_values("game_id", kind="stable", ignore_index=True)
    return df


def read_cards(out: str | Path, columns=None) -> pd.DataFrame:
    """cards records as a DataFrame in game id order (each game's rows in local id order)."""
    df = read_table(out, CARDS, columns).to_pandas()
    if "game_id" in df:
        df = df.sort_values("game_id", kind="stable", ignore_index=True)
    return df
