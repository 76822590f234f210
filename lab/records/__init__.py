"""Results folders (docs/records.md): the one place that writes and reads their files — below
the runner (``lab.sim``), the statistics (``lab.stats``), the design layer and the report.

Owns the chunk file names and the write protocol: a chunk's files (大天下: cards, then games) are
each written to a hidden temp file in the same folder and renamed into place — so a chunk is
complete exactly when all its files exist, and a killed writer leaves at most a hidden temp file
(which Parquet readers skip and ``--resume`` deletes). Each write returns the file's rows and
sha256, which the manifest keeps; readers and ``--resume`` check the chunks against them, so a
truncated or overwritten chunk is named in one line (and replayed by ``--resume``) instead of
failing deep inside pyarrow. Also ``manifest.json``'s reading and atomic writing, and the files
of one record table (merged ``KIND.parquet`` or complete chunks). Which tables a chunk holds and
their schemas are the game's (``lab.games``); what the tables mean is the game's records module
(大天下: ``lab.games.daitenka.records``). It plays nothing and computes no statistic.

``LAB_SIM_WRITE_PAUSE`` (seconds; a test hook, never set in normal use) pauses each write between
the temp file and the rename, so a test can kill a run while a chunk is being written.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import uuid
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lab.errors import LabError

GAMES = "games"
CARDS = "cards"
MANIFEST = "manifest.json"
PAUSE_ENV = "LAB_SIM_WRITE_PAUSE"


# ------------------------------------------------------------------------------------- writing


def chunk_name(chunk_id: int) -> str:
    return f"chunk-{chunk_id:05d}.parquet"


def chunk_path(out: Path, kind: str, chunk_id: int) -> Path:
    return Path(out) / kind / chunk_name(chunk_id)


def parquet_options(schema: pa.Schema) -> dict:
    """Dictionary-encode the strings, delta-encode the integers, keep statistics for game_id
    only: files as small as the defaults make, written in about 60% of the time."""
    return {
        "use_dictionary": [f.name for f in schema if pa.types.is_string(f.type)],
        "column_encoding": {
            f.name: "DELTA_BINARY_PACKED" for f in schema if pa.types.is_integer(f.type)
        },
        "write_statistics": ["game_id"],
    }


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


def _chunk_ids(out: Path, kind: str) -> set[int]:
    return {int(p.stem.split("-")[1]) for p in (Path(out) / kind).glob("chunk-*.parquet")}


def written_chunks(out: Path, tables: tuple[str, ...] | None = None) -> set[int]:
    """Ids of the complete chunks in a results folder: every file of the chunk present, for the
    record kinds ``tables`` (default: the folder's, ``kinds``)."""
    return set.intersection(*(_chunk_ids(out, k) for k in tables or kinds(out)))


def incomplete_chunks(out: Path, tables: tuple[str, ...] | None = None) -> int:
    """How many chunks have some of their files but not all (an interrupted write)."""
    ids = [_chunk_ids(out, k) for k in tables or kinds(out)]
    return len(set.union(*ids) - set.intersection(*ids))


# -------------------------------------------------------------------------------- integrity


def chunk_problem(
    out: Path,
    chunk_id: int,
    files: dict | None,
    games_rows: int | None = None,
    tables: tuple[str, ...] | None = None,
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
                return (
                    f"{name} is damaged (truncated or changed: its checksum is not the one "
                    f"recorded when it was written, {want.get('rows')} rows)"
                )
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
        problem = chunk_problem(
            out, chunk_id, entry.get("files"), deals[1] - deals[0] if deals else None, tables
        )
        if problem:
            found[chunk_id] = problem
    return found


def check_readable(out: Path) -> None:
    """A LabError naming the first damaged chunk of a results folder, if any (its manifest says
    what each chunk must hold)."""
    out = Path(out)
    if (out / f"{GAMES}.parquet").exists():
        return
    bad = damaged_chunks(out, read_manifest(out))
    if bad:
        chunk_id, problem = next(iter(bad.items()))
        more = f" (and {len(bad) - 1} more chunk(s))" if len(bad) > 1 else ""
        raise LabError(
            f"{problem}{more}; run the experiment again with --resume on this folder to replay it",
            source=str(out),
        )


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
    found = [
        *out.glob(".manifest.json.*.tmp"),
        *(out / GAMES).glob(".chunk-*.tmp"),
        *(out / CARDS).glob(".chunk-*.tmp"),
    ]
    for p in found:
        p.unlink(missing_ok=True)
    return len(found)


# ------------------------------------------------------------------------------------ manifest


def read_manifest(out: str | Path) -> dict | None:
    """A results folder's manifest.json (None when it has none); one line when unreadable."""
    path = Path(out) / MANIFEST
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise LabError(
            f"not valid JSON ({e}); this folder is not a usable results folder", source=str(path)
        ) from None
    if not isinstance(data, dict):
        raise LabError(
            f"{MANIFEST} must hold a JSON object; this folder is not a usable results folder",
            source=str(path),
        )
    return data


def write_manifest(out: str | Path, data: dict) -> None:
    """Atomically replace manifest.json (temp file, then rename)."""
    path = Path(out) / MANIFEST
    tmp = path.with_name(f".{MANIFEST}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


# ------------------------------------------------------------------------------------- reading


def files(out: str | Path, kind: str, tables: tuple[str, ...] | None = None) -> list[Path]:
    """The files of a results folder that hold its ``kind`` records: the merged
    ``KIND.parquet`` when there is one, else the chunks complete in every table of ``tables``
    (default: the folder's record kinds), in chunk order."""
    out = Path(out)
    merged = out / f"{kind}.parquet"
    if merged.is_file():
        return [merged]
    return [chunk_path(out, kind, i) for i in sorted(written_chunks(out, tables))]


def read_frame(paths: list[Path], source: str) -> pd.DataFrame:
    """Parquet files as one DataFrame, their columns checked alike (one line when not)."""
    try:
        frames = [pd.read_parquet(f) for f in paths]
    except Exception as e:  # pyarrow raises several types for a damaged file
        raise LabError(f"cannot read the Parquet file(s): {e}", source=source) from None
    if len(frames) == 1:
        return frames[0]
    cols = list(frames[0].columns)
    for f, df in zip(paths[1:], frames[1:]):
        if set(df.columns) != set(cols):
            diff = sorted(set(df.columns) ^ set(cols))
            raise LabError(
                f"its columns differ from {paths[0].name}'s ({', '.join(diff)}); the "
                "chunks of one run must share one schema",
                source=str(f),
            )
    return pd.concat(frames, ignore_index=True)


def read_table(out: str | Path, kind: str, columns=None, filter=None) -> pa.Table:
    """The records of a results folder as one Arrow table, from a merged ``KIND.parquet`` or the
    complete chunks of ``KIND/`` (a chunk missing one of its two files is skipped)."""
    out = Path(out)
    merged = out / f"{kind}.parquet"
    if not merged.exists():
        check_readable(out)
    source = files(out, kind)
    from lab.games import of_results

    schema = of_results(out).schema(kind)
    if not source:
        return schema.empty_table().select(columns) if columns else schema.empty_table()
    import pyarrow.dataset as ds

    return ds.dataset([str(p) for p in source], format="parquet", schema=schema).to_table(
        columns=columns, filter=filter
    )


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


def read_record(out, game_id: int) -> tuple[dict, dict]:
    """(manifest, games row) of one recorded game, with one-line errors."""
    man = read_manifest(out)
    if man is None:
        raise LabError(f"{out} holds no {MANIFEST}; give a results folder that `lab run` wrote")
    table = read_table(out, GAMES, filter=pc.field("game_id") == game_id)
    if table.num_rows == 0:
        ids = read_table(out, GAMES, columns=["game_id"])["game_id"]
        span = (
            f"its recorded game ids run {pc.min(ids).as_py()}–{pc.max(ids).as_py()}"
            if len(ids)
            else "it holds no recorded game yet"
        )
        raise LabError(f"no game {game_id} in {out}; {span}")
    return man, table.slice(0, 1).to_pylist()[0]
