"""lab run: identical records for any worker count, chunk size and backend; the results folder
contract (manifest, refusal of another experiment, --resume); lab replay reproduces a game."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

import lab.cli as cli
from _support.sim_cases import SMALL, assert_same_records, records, write_config
from lab.errors import LabError
from lab import records as rec
from lab.sim.config import load_experiment
from lab.games.daitenka.plan import jobs
from lab.games.daitenka.replay import replay
from lab.sim.runner import run


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The SMALL experiment played on one worker: (experiment, results folder)."""
    folder = tmp_path_factory.mktemp("small")
    exp = load_experiment(write_config(folder, SMALL))
    out = folder / "jobs1"
    result = run(exp, out, jobs=1)
    assert result.played == exp.total_games == 576
    return exp, out


def test_records_cover_every_game_once(small):
    exp, out = small
    games, cards = records(out)
    assert list(games["game_id"]) == list(range(exp.total_games))
    assert set(cards["game_id"]) == set(games["game_id"])
    assert not games["error"].any()
    # every (variant, tier, matchup, deal) is played in both seat orders
    per_deal = games.groupby(["variant", "tier", "deal", "swapped"]).size()
    assert (per_deal == 6).all() and len(per_deal) == 2 * 2 * 12 * 2


def test_same_records_on_two_workers(small, tmp_path):
    exp, out = small
    run(exp, tmp_path / "jobs2", jobs=2)
    assert_same_records(out, tmp_path / "jobs2")


def test_same_records_with_another_chunk_size(small, tmp_path):
    exp, out = small
    text = SMALL.replace("chunk_size = 7", "chunk_size = 5")
    other = load_experiment(write_config(tmp_path, text))
    run(other, tmp_path / "chunk5", jobs=1)
    assert len(list((tmp_path / "chunk5" / "games").glob("*.parquet"))) != len(
        list((out / "games").glob("*.parquet"))
    )
    assert_same_records(out, tmp_path / "chunk5")


def test_same_records_on_a_dask_cluster(small, tmp_path):
    pytest.importorskip("distributed")
    from lab.sim.cluster import local_cluster  # 127.0.0.1, a free HTTP port (not 8787)

    exp, out = small
    with local_cluster(2) as cluster:
        result = run(exp, tmp_path / "dask", backend="dask", scheduler=cluster.scheduler_address)
    assert result.played == exp.total_games
    assert_same_records(out, tmp_path / "dask")
    man = json.loads((tmp_path / "dask" / "manifest.json").read_text())
    assert man["sessions"][0]["backend"] == "dask"


def test_manifest_records_config_versions_and_timings(small):
    exp, out = small
    man = json.loads((out / "manifest.json").read_text())
    assert man["status"] == "complete"
    assert man["fingerprint"] == exp.fingerprint()
    assert [v["id"] for v in man["config"]["variants"]] == [v.id for v in exp.variants]
    assert man["config"]["variants"][1]["rules"]["hand_cap"] == 7
    assert man["versions"]["numpy"] and man["versions"]["pyarrow"]
    assert man["chunks_written"] == len(man["chunks"]) == 96
    session = man["sessions"][0]
    assert session["games_played"] == 576 and session["play_s"] > 0
    assert man["throughput"]["games_per_s"] > 0


def test_an_output_folder_of_another_experiment_is_refused(small, tmp_path):
    exp, out = small
    other = load_experiment(write_config(tmp_path, SMALL.replace("seed = 11", "seed = 12")))
    before = sorted(p.name for p in (out / "games").iterdir())
    for resume in (False, True):
        with pytest.raises(LabError, match="another experiment .*differs in: seed"):
            run(other, out, jobs=1, resume=resume)
    assert sorted(p.name for p in (out / "games").iterdir()) == before


def test_a_finished_folder_plays_nothing_with_or_without_resume(small):
    exp, out = small
    before = (out / "manifest.json").read_bytes()
    for resume in (False, True):
        again = run(exp, out, jobs=1, resume=resume)
        assert again.already_complete and again.played == 0 and again.chunks_played == 0
    assert (out / "manifest.json").read_bytes() == before  # not even a session is added


def test_resume_plays_only_missing_chunks(small, tmp_path):
    exp, out = small
    copy = tmp_path / "partial"
    run(exp, copy, jobs=1)
    for chunk in (3, 17, 40):
        rec.chunk_path(copy, rec.GAMES, chunk).unlink()
    rec.chunk_path(copy, rec.CARDS, 41).unlink()  # a chunk missing either file is replayed
    (copy / "games" / ".chunk-00003.parquet.1-x.tmp").write_bytes(b"partial")
    assert len(rec.written_chunks(copy)) == 96 - 4
    again = run(exp, copy, jobs=1, resume=True)
    assert again.chunks_played == 4
    assert again.played == sum(jobs(exp)[i].size for i in (3, 17, 40, 41)) == 5 + 5 + 7 + 5
    assert not list((copy / "games").glob(".*.tmp"))
    games, _ = records(copy)
    assert list(games["game_id"]) == list(range(exp.total_games))


def test_a_non_empty_folder_without_manifest_is_refused(small, tmp_path):
    exp, _ = small
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(LabError, match="not empty and holds no manifest.json"):
        run(exp, tmp_path, jobs=1)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"jobs": 0}, "--jobs 0"),
        ({"backend": "spark"}, "--backend spark is not allowed; allowed values: loky, dask"),
        ({"scheduler": "tcp://127.0.0.1:1"}, "--scheduler is for --backend dask"),
    ],
)
def test_bad_run_options(small, tmp_path, options, message):
    exp, _ = small
    with pytest.raises(LabError, match=message.replace("(", r"\(")):
        run(exp, tmp_path / "x", **options)


# ----------------------------------------------------------------------------------- replay


def test_replay_reproduces_recorded_games(small):
    exp, out = small
    games, _ = records(out)
    picks = [0, 1, 100, 333, 575]  # includes swapped games and the heuristic tier
    assert games.loc[picks, "swapped"].any() and not games.loc[picks, "swapped"].all()
    assert (games.loc[picks, "tier"] == "heuristic-vs-random").any()
    for gid in picks:
        r = replay(out, gid)
        row = games.loc[gid]
        assert r.reproduced, r.mismatches
        assert r.game.winner == row["winner"] and r.game.end_reason == row["end_reason"]
        assert len(r.game.log_lines()) > row["leader_turns"]


def test_lab_replay_prints_the_log_and_the_check(small):
    _, out = small
    result = CliRunner().invoke(cli.app, ["replay", str(out), "101"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    # game id 101 = (cell 4 × 12 deals + deal 2) × 2 seat orders + swapped
    assert lines[0].startswith("game 101: second_edition, 上杉 (uesugi) vs 武田 (takeda), ")
    assert lines[0].endswith("deal 2, seats swapped")
    assert "reproduces the recorded game" in lines[-1]
    assert any(line.startswith("result: ") for line in lines)
    assert len(lines) > 10


def test_replay_of_an_unknown_game_is_one_line(small):
    _, out = small
    result = CliRunner().invoke(cli.app, ["replay", str(out), "9999"], env={"COLUMNS": "60"})
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: no game 9999 in {out}; its recorded game ids run 0–575"
    ]


def test_replay_notices_a_record_that_does_not_match(small, tmp_path):
    import shutil

    import pyarrow.parquet as pq

    _, out = small
    copy = tmp_path / "tampered"
    shutil.copytree(out, copy)
    path = rec.chunk_path(copy, rec.GAMES, 0)
    table = pq.read_table(path)
    turns = table["leader_turns"].to_pylist()
    turns[0] += 1
    table = table.set_column(
        table.schema.get_field_index("leader_turns"),
        "leader_turns",
        __import__("pyarrow").array(turns, "int32"),
    )
    pq.write_table(table, path)
    # re-sign the chunk in the manifest: an intact record the replay disagrees with (unsigned,
    # the change is reported as a damaged chunk before any replay: tests/test_sim_folder.py)
    man = json.loads((copy / "manifest.json").read_text())
    man["chunks"][0]["files"]["games"]["sha256"] = rec.file_digest(path)
    (copy / "manifest.json").write_text(json.dumps(man))
    result = CliRunner().invoke(cli.app, ["replay", str(copy), "0", "--no-log"])
    assert result.exit_code == 1
    assert "does not reproduce the record: leader_turns: recorded" in result.stderr


def test_a_manifests_provenance_is_read_once_and_the_digest_again_when_a_source_changes(
    tmp_path, monkeypatch
):
    """A search writes hundreds of manifests a minute: the package versions are read once, the
    git state at most once a GIT_EVERY_S, and the sources' digest is worked out again only when
    a file of the game's folder changed — a changed file still changes it."""
    from lab.sim import manifest

    game = tmp_path / "games" / "toy"
    (tmp_path / "jit").mkdir(parents=True)
    game.mkdir(parents=True)
    (game / "rules.py").write_text("STRENGTH = 7\n")
    monkeypatch.setattr(manifest, "_LAB", tmp_path)
    monkeypatch.setattr(manifest, "_digests", {})
    first = manifest.code_digest("toy")
    assert manifest.code_digest("toy") == first
    (game / "rules.py").write_text("STRENGTH = 9\n")  # same size, new content and time
    os.utime(game / "rules.py", ns=(1, 10**18))
    second = manifest.code_digest("toy")
    assert second != first
    (game / "cards.toml").write_text("[x]\n")  # a new data file
    assert manifest.code_digest("toy") not in (first, second)

    reads = []
    monkeypatch.setattr(manifest, "_git", None)
    monkeypatch.setattr(manifest, "_read_git", lambda: reads.append(1) or {"commit": "abc"})
    clock = [1000.0]
    monkeypatch.setattr(manifest.time, "monotonic", lambda: clock[0])
    assert manifest.git_commit() == {"commit": "abc"}
    clock[0] += manifest.GIT_EVERY_S / 2
    manifest.git_commit()["commit"] = "changed by a caller"
    assert manifest.git_commit() == {"commit": "abc"} and len(reads) == 1
    clock[0] += manifest.GIT_EVERY_S
    manifest.git_commit()
    assert len(reads) == 2
    v = manifest.versions()
    v["numpy"] = "0"
    assert manifest.versions()["numpy"] != "0"
