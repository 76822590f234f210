"""lab.stats.load: both layouts of docs/records.md, and one clear error per kind of bad input."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from _support.frames import cards_frame, games_frame
from _support.synthetic import synthetic_records, write_results
from lab import stats
from lab.errors import LabError
from lab.stats.records import CARDS_COLUMNS, GAMES_COLUMNS


@pytest.fixture(scope="module")
def frames():
    return synthetic_records(("oda", "takeda"), deals=3, tiers={"t": ("random", 1.0, 1.0)})


def test_chunk_folders_and_merged_files_read_the_same(tmp_path, frames):
    games, cards = frames
    chunks = stats.load(write_results(tmp_path / "chunks", games, cards, chunk_games=7))
    merged = stats.load(write_results(tmp_path / "merged", games, cards, layout="merged"))
    assert len(list((tmp_path / "chunks" / "games").glob("chunk-*.parquet"))) > 1
    assert len(chunks.games) == len(games) and len(chunks.cards) == len(cards)
    key = ["game_id"]
    pd.testing.assert_frame_equal(
        chunks.games.sort_values(key).reset_index(drop=True),
        merged.games.sort_values(key).reset_index(drop=True),
    )
    key = ["game_id", "player", "card"]
    pd.testing.assert_frame_equal(
        chunks.cards.sort_values(key).reset_index(drop=True),
        merged.cards.sort_values(key).reset_index(drop=True),
    )
    assert chunks.manifest["synthetic"] is True


def test_merged_file_wins_when_both_layouts_exist(tmp_path, frames):
    games, cards = frames
    root = write_results(tmp_path / "both", games, cards, chunk_games=10)
    games.head(5).to_parquet(root / "games.parquet")
    cards[cards["game_id"].isin(games.head(5)["game_id"])].to_parquet(root / "cards.parquet")
    assert len(stats.load(root).games) == 5


def test_missing_folder_and_empty_folder(tmp_path):
    with pytest.raises(LabError, match="results folder not found"):
        stats.load(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(
        LabError,
        match=r"no games records: expected games\.parquet or "
        r"games/chunk-\*\.parquet",
    ):
        stats.load(tmp_path / "empty")


def test_a_missing_column_names_the_file_and_the_column(tmp_path, frames):
    games, cards = frames
    root = write_results(
        tmp_path / "r", games.drop(columns=["max_deficit_b"]), cards, layout="merged"
    )
    with pytest.raises(LabError) as e:
        stats.load(root)
    msg = str(e.value)
    assert str(root / "games.parquet") in msg
    assert "lacks column(s) max_deficit_b" in msg
    assert "docs/records.md" in msg


def test_a_bad_value_names_the_column_and_the_allowed_values(frames):
    games, cards = frames
    bad = games.copy()
    bad.loc[0, "winner"] = "C"
    with pytest.raises(
        LabError,
        match=r"column \"winner\" has value\(s\) 'C'; allowed: A, B, "
        r"draw",
    ):
        stats.Records.from_frames(bad, cards)


def test_chunks_with_different_columns_are_refused(tmp_path, frames):
    games, cards = frames
    root = write_results(tmp_path / "r", games, cards, chunk_games=10)
    last = sorted((root / "games").glob("chunk-*.parquet"))[-1]
    pd.read_parquet(last).drop(columns=["decisions"]).to_parquet(last)
    with pytest.raises(LabError, match="its columns differ"):
        stats.load(root)


def test_cards_of_unknown_games_and_repeated_rows_are_refused():
    games = games_frame([{}, {}])
    with pytest.raises(LabError, match="not in the games table"):
        stats.Records.from_frames(games, cards_frame([{"game_id": 99}]))
    with pytest.raises(LabError, match="one row per card type"):
        stats.Records.from_frames(games, cards_frame([{"game_id": 1}, {"game_id": 1}]))
    with pytest.raises(LabError, match="game_id\" repeats"):
        stats.Records.from_frames(games_frame([{"game_id": 3}, {"game_id": 3}]))


def test_a_bad_manifest_is_a_clear_error(tmp_path, frames):
    games, cards = frames
    root = write_results(tmp_path / "r", games, cards, layout="merged")
    (root / "manifest.json").write_text("{oops", encoding="utf-8")
    with pytest.raises(LabError, match="manifest.json: not valid JSON"):
        stats.load(root)
    (root / "manifest.json").write_text(json.dumps([1, 2]), encoding="utf-8")
    with pytest.raises(LabError, match="must hold a JSON object"):
        stats.load(root)


def test_grouping_by_an_unknown_column_lists_the_allowed_ones():
    rec = stats.Records.from_frames(games_frame([{}]))
    with pytest.raises(
        LabError,
        match=r"cannot group by flavour: not a games column "
        r"\(allowed: .*variant.*tier",
    ):
        stats.variant_table(rec, by=("variant", "flavour"))


def test_card_statistics_without_cards_say_what_is_missing():
    rec = stats.Records.from_frames(games_frame([{}]))
    with pytest.raises(LabError, match="needs the cards table"):
        stats.card_table(rec)


def test_the_synthetic_generator_writes_every_documented_column(frames):
    games, cards = frames
    assert set(GAMES_COLUMNS) <= set(games.columns)
    assert set(CARDS_COLUMNS) <= set(cards.columns)
    # every seat's deck has 30 cards
    assert (cards.groupby(["game_id", "player"])["copies"].sum() == 30).all()


def test_variants_come_in_the_runs_order():
    g = games_frame([{"variant": "z", "cell": 0}, {"variant": "a", "cell": 1}])
    assert stats.Records.from_frames(g).variants() == ["z", "a"]


def test_an_incomplete_chunk_is_skipped_and_counted(tmp_path, frames):
    games, cards = frames
    root = write_results(tmp_path / "r", games, cards, chunk_games=10)
    last = sorted((root / "games").glob("chunk-*.parquet"))[-1]
    lost = pd.read_parquet(last)["game_id"]
    last.unlink()  # a run killed between writing the cards and the games file of a chunk
    rec = stats.load(root)
    assert rec.skipped_chunks == 1
    assert len(rec.games) == len(games) - len(lost)
    assert not rec.cards["game_id"].isin(lost).any()
    # hidden temp files of an interrupted write are never read
    (root / "cards" / ".chunk-00000.parquet.123-abc.tmp").write_bytes(b"partial")
    assert len(stats.load(root).games) == len(games) - len(lost)


def test_games_flagged_error_are_set_aside(frames):
    games, cards = frames
    g = games.assign(error=False)
    g.loc[:2, "error"] = True
    rec = stats.Records.from_frames(g, cards)
    assert rec.error_games == 3
    assert len(rec.games) == len(games) - 3
    assert not rec.cards["game_id"].isin(games.loc[:2, "game_id"]).any()
    with pytest.raises(LabError, match="all 1 games hit an engine limit"):
        stats.Records.from_frames(games_frame([{"error": True}]))


def test_reads_what_the_runner_writes(tmp_path, frames):
    """The runner's own schema (lab.games.daitenka.records) and chunk writer (lab.records), fed synthetic
    rows."""
    sim = pytest.importorskip("lab.games.daitenka.records")
    from lab.records import write_chunk

    pa = pytest.importorskip("pyarrow")
    games, cards = frames
    assert set(GAMES_COLUMNS) <= set(sim.GAMES_SCHEMA.names)
    assert set(CARDS_COLUMNS) <= set(sim.CARDS_SCHEMA.names)

    def table(df, schema):
        df = df.copy()
        for f in schema:
            if f.name not in df.columns:  # columns the synthetic frames leave out: neutral
                df[f.name] = (
                    False
                    if pa.types.is_boolean(f.type)
                    else ""
                    if pa.types.is_string(f.type)
                    else 0
                )
        return pa.Table.from_pandas(df[schema.names], schema=schema, preserve_index=False)

    games = games.assign(error=games.index == 0)  # one game hit an engine limit
    for kind in ("games", "cards"):
        (tmp_path / kind).mkdir()
    ids = games["game_id"].to_numpy()
    for k, start in enumerate(range(0, len(games), 25)):
        part = games.iloc[start : start + 25]
        write_chunk(
            tmp_path,
            k,
            table(part, sim.GAMES_SCHEMA),
            table(cards[cards["game_id"].isin(ids[start : start + 25])], sim.CARDS_SCHEMA),
        )
    rec = stats.load(tmp_path)
    assert rec.error_games == 1 and len(rec.games) == len(games) - 1
    assert len(rec.cards) == (cards["game_id"] != ids[0]).sum()
    assert stats.card_table(rec)["games"].sum() > 0
