"""Cards from the user's own files (issue 15 item 7): a designer adds a card built from existing
effects with one TOML file — configs/my_card/ — and no edit of the package: the card file is
checked like cards.toml, a deck of the designer's folder uses it, an experiment config loads it
with extra_cards (its digest in the fingerprint, its data carried to the workers), and every
command that loads the pool takes --cards FILE.
"""

from __future__ import annotations

import json
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import lab.cli as cli
from lab.games.daitenka.cards.pool import load_pool
from lab.errors import LabError
from lab.sim.config import load_experiment

EXAMPLE = Path(__file__).resolve().parent.parent / "configs" / "my_card"
CARDS = EXAMPLE / "my_cards.toml"


def invoke(*args: str):
    return CliRunner().invoke(cli.app, list(args), env={"COLUMNS": "200"})


@pytest.fixture
def folder(tmp_path) -> Path:
    """A copy of the example folder, free to edit."""
    return Path(shutil.copytree(EXAMPLE, tmp_path / "my_card"))


def test_the_example_card_joins_the_pool_after_the_package_cards():
    base = load_pool()
    pool = load_pool(extra=(CARDS,))
    card = pool.get("母衣衆")
    assert len(pool) == len(base) + 1 and card.index == len(base)
    assert [a.name for a in card.abilities] == ["母衣"] and card.strength == 7
    assert "母衣衆" not in base and pool.digest != base.digest


def test_the_example_config_uses_the_card_in_a_deck_of_its_folder():
    exp = load_experiment(EXAMPLE / "experiment.toml")
    deck = exp.army("oda_horoshu").deck()
    assert "母衣衆" in {c.name for c, _ in deck.entries} and deck.size == 30
    assert exp.pool().get("母衣衆").index == len(load_pool())
    resolved = exp.resolved()["cards"]
    assert resolved["digest"] == exp.pool().digest
    assert [f["toml"] for f in resolved["extra"]] == [CARDS.read_text(encoding="utf-8")]


def test_an_edited_card_file_is_another_experiment(folder):
    before = load_experiment(folder / "experiment.toml").fingerprint()
    cards = folder / "my_cards.toml"
    cards.write_text(
        cards.read_text(encoding="utf-8").replace("amount = 1", "amount = 2"), encoding="utf-8"
    )
    assert load_experiment(folder / "experiment.toml").fingerprint() != before


def test_workers_get_the_card_data_not_the_path(folder):
    """A worker (a loky process, a Dask worker on another machine) receives the pickled job;
    the extra cards and the deck file travel inside it, so a fresh process builds the deck
    after the folder is gone."""
    exp = load_experiment(folder / "experiment.toml")
    shipped = pickle.dumps(exp.army("oda_horoshu"))
    shutil.rmtree(folder)
    code = (
        "import pickle, sys; army = pickle.loads(sys.stdin.buffer.read()); "
        "print(sorted(c.name for c, _ in army.deck().entries if c.index >= 80))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], input=shipped, capture_output=True, check=True
    )
    assert out.stdout.decode().strip() == "['母衣衆']"


def test_cards_option_adds_a_file_on_top_of_the_config(folder, tmp_path):
    (folder / "experiment.toml").write_text(
        (folder / "experiment.toml")
        .read_text(encoding="utf-8")
        .replace('extra_cards = "my_cards.toml"', ""),
        encoding="utf-8",
    )
    with pytest.raises(LabError, match='unknown card "母衣衆"'):
        load_experiment(folder / "experiment.toml")
    exp = load_experiment(folder / "experiment.toml", cards=(folder / "my_cards.toml",))
    assert "母衣衆" in exp.pool()


@pytest.mark.parametrize(
    "value, fragments",
    [
        ('extra_cards = 3', ["extra_cards = 3 is not allowed", "relative to this config"]),
        (
            'extra_cards = "nowhere.toml"',
            ['experiment.toml: extra_cards = "nowhere.toml": ', "nowhere.toml is not found"],
        ),
    ],
)
def test_bad_extra_cards_are_one_line(folder, value, fragments):
    path = folder / "experiment.toml"
    path.write_text(
        path.read_text(encoding="utf-8").replace('extra_cards = "my_cards.toml"', value),
        encoding="utf-8",
    )
    with pytest.raises(LabError) as e:
        load_experiment(path)
    assert "\n" not in str(e.value)
    for frag in fragments:
        assert frag in str(e.value)


def test_a_bad_card_in_the_user_file_is_named_like_a_package_card(folder):
    cards = folder / "my_cards.toml"
    cards.write_text(
        cards.read_text(encoding="utf-8").replace('"on_win"', '"on_wim"'), encoding="utf-8"
    )
    with pytest.raises(LabError) as e:
        load_experiment(folder / "experiment.toml")
    msg = str(e.value)
    assert msg.startswith(
        f"{cards}: [ability.horo] effects[0]: trigger = 'on_wim' is not "
        "allowed; did you mean on_win"
    )


@pytest.mark.parametrize(
    "row, fragments",
    [
        (
            '{ trigger = "on_lead", effect = "extra_damage", amount = 1 }',
            [
                "on_lead × effect extra_damage is not supported",
                "effects with trigger on_lead: draw",
            ],
        ),
        (
            '{ trigger = "on_death", effect = "kill_hand", amount = 1 }',
            ["on_death × effect kill_hand is not supported", "draw"],
        ),
        (
            '{ trigger = "standing", effect = "hold_once" }',
            ["standing × effect hold_once works only on a castle, not on a unit"],
        ),
        (
            '{ trigger = "on_win", effect = "draw", amount = 1, condition = "vs_inf" }',
            ["draw with condition vs_inf is not supported", "conditions it takes: none, single"],
        ),
    ],
)
def test_a_row_the_engine_does_not_run_stops_the_load(folder, row, fragments):
    """vocab.SUPPORT (issue 15 item 1): a row the engine would ignore never loads — one line
    naming the file, the card, the ability and its row, and what is supported."""
    cards = folder / "my_cards.toml"
    text = cards.read_text(encoding="utf-8")
    cards.write_text(
        text.replace('{ trigger = "on_win", effect = "draw", amount = 1 }', row), encoding="utf-8"
    )
    with pytest.raises(LabError) as e:
        load_pool(extra=(cards,))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{cards}: cards[0] \"母衣衆\": 〈母衣〉 row 0: "), (
        msg
    )
    for frag in fragments:
        assert frag in msg, (frag, msg)


def test_every_row_of_the_package_pool_is_supported():
    """The support table covers the shipped cards (it is what the engine runs)."""
    from lab.games.daitenka.cards.vocab import unsupported

    pool = load_pool()
    bad = [
        (c.name, r)
        for c in pool.cards
        for r in c.rows()
        if unsupported(c.kind_class, r.trigger, r.effect, r.condition)
    ]
    assert not bad


def test_commands_take_cards_file():
    shown = invoke("cards", "--cards", str(CARDS), "--kind", "unit")
    assert shown.exit_code == 0 and "母衣衆" in shown.stdout and "〈母衣〉" in shown.stdout
    deck = str(EXAMPLE / "oda_horoshu.toml")
    checked = invoke("decks", "--check", deck, "--cards", str(CARDS))
    assert checked.exit_code == 0 and checked.stdout.startswith("OK ")
    refused = invoke("decks", "--check", deck)
    assert refused.exit_code == 2 and 'unknown card "母衣衆"' in refused.stderr
    assert "--cards FILE" in refused.stderr


def test_the_example_scenario_passes_with_the_card_file():
    scenario = str(EXAMPLE / "horo.toml")
    r = invoke("scenario", scenario, "--cards", str(CARDS))
    assert r.exit_code == 0 and "1 passed, 0 failed" in r.stdout, r.stdout
    # without the card file the position holds an unknown card: a malformed file (issue 27),
    # one line naming the card and the fix, exit 2 — not a pass
    bad = invoke("scenario", scenario)
    assert bad.exit_code == 2 and 'unknown card "母衣衆"' in bad.stderr
    assert "--cards FILE" in bad.stderr and bad.stdout == ""


def test_the_example_experiment_runs_and_records_the_new_card(tmp_path):
    out = tmp_path / "horoshu"
    r = invoke(
        "run", str(EXAMPLE / "experiment.toml"), "--games", "2", "--jobs", "1", "--out", str(out)
    )
    assert r.exit_code == 0, r.stderr
    cards = pd.read_parquet(out / "cards")
    mine = cards[cards["card"] == "母衣衆"]
    assert set(mine["army"]) == {"oda_horoshu"} and (mine["copies"] == 1).all()
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["cards"]["digest"] == load_pool(extra=(CARDS,)).digest
