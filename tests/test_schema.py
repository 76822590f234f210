"""The schema layer (issue 15 item 6): one adapter from a pydantic error to the one-line
LabError for every input file, each rules toggle declared once, and one bot grammar for every
command-line option that names a bot.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

import lab.games.daitenka.rules as rules_module
from lab.games.daitenka.bots.match import parse_bot
from lab.errors import LabError
from lab.games.daitenka.rules import BOOLS, CHOICES, DESCRIPTIONS, N_RULES, RANGES, RuleSet
from lab.schema.base import check
from lab.games.daitenka.schema.bots import bot_from_text, bot_text
from lab.games.daitenka.schema.experiment import ExperimentFile
from lab.games.daitenka.scenario_file import ScenarioTable


def problem(model, data, where: str = "") -> str:
    with pytest.raises(LabError) as e:
        check(model, data, "f.toml", where=where)
    assert "\n" not in str(e.value)
    return str(e.value)


# ---------------------------------------------------------------------------------- adapter


@pytest.mark.parametrize(
    "data, message",
    [
        (
            {"seed": 1, "games": 2, "armys": "all"},
            'f.toml: unknown key "armys"; did you mean armies, games, name? allowed keys: name, seed',
        ),
        ({"games": 2}, 'f.toml: missing key "seed"; add seed = <whole number>'),
        (
            {"seed": 1, "games": 0},
            "f.toml: games = 0 is not allowed; allowed values: whole numbers 1–1,000,000,000",
        ),
        ({"seed": True, "games": 1}, "f.toml: seed = True is not allowed"),  # a bool is no number
        (
            {"seed": 1, "games": 1, "swap": {"card": "x", "wiht": "y"}},
            'f.toml: [swap]: unknown key "wiht"; did you mean with?',
        ),
        (
            {
                "seed": 1,
                "games": 1,
                "patch": [{"name": "p", "edit": [{"card": "x", "strength": 3, "off": "all"}]}],
            },
            'f.toml: patch[0] "p" edit[0]: an edit does exactly one of strength, amount, off, add, '
            "replace; it has strength, off",
        ),
        (
            {"seed": 1, "games": 1, "extra_cards": ["a.toml", 3]},
            "f.toml: extra_cards = ['a.toml', 3] is not allowed; allowed values: a card file or a "
            "list of card files",
        ),
    ],
)
def test_experiment_file_problems_read_as_one_line(data, message):
    assert problem(ExperimentFile, data).startswith(message)


def test_a_key_of_a_table_reads_as_the_file_does():
    msg = problem(ScenarioTable, {"name": "x", "steps": [], "expect": {"A": {"walls": "7"}}})
    assert msg == (
        "f.toml: [expect.A] walls = '7' is not allowed; allowed values: a whole number ≥ 0"
    )


def test_an_item_of_a_list_is_named_by_its_index():
    msg = problem(ScenarioTable, {"name": "x", "steps": ["A pass", 3]})
    assert msg.startswith("f.toml: steps[1] = 3 is not allowed; allowed values: a list of step")


def test_where_names_the_entry_a_table_came_from():
    from lab.schema.experiment import PatchTable

    msg = problem(
        PatchTable, {"name": "p", "edit": [{"card": "x", "strenght": 8}]}, where='patch "p"'
    )
    assert msg.startswith(
        'f.toml: patch "p" edit[0]: unknown key "strenght"; did you mean strength?'
    )


# ------------------------------------------------------------------------- toggles, once


def test_every_list_of_toggles_derives_from_the_one_declaration():
    declared = [f.name for f in fields(RuleSet)]
    assert set(CHOICES) | set(RANGES) | set(BOOLS) == set(declared) == set(DESCRIPTIONS)
    assert N_RULES == len(declared)
    for slot, f in enumerate(fields(RuleSet)):
        assert getattr(rules_module, f.metadata["slot"]) == slot  # the engine's offsets


def test_packing_follows_the_declared_codes():
    rs = RuleSet(
        walls=10,
        logistics=True,
        leader_pass_cost="none",
        first_player="B",
        odawara="fortify",
        damage="last_set_size",
    )
    packed = rs.pack()
    assert packed[rules_module.R_WALLS] == 10 and packed[rules_module.R_LOGISTICS] == 1
    assert packed[rules_module.R_PASS_COSTS_WALL] == 0  # wall_to_hand is 1, none is 0
    assert packed[rules_module.R_FIRST] == 1 and packed[rules_module.R_ODAWARA_FORTIFY] == 1
    assert packed[rules_module.R_DAMAGE_LAST_SET] == 1
    assert np.array_equal(
        RuleSet().pack()[[rules_module.R_PASS_COSTS_WALL, rules_module.R_FIRST]], [1, -1]
    )


def test_toggles_typed_at_a_prompt_are_coerced_once():
    assert RuleSet().with_overrides({"walls": "10", "logistics": "on"}) == RuleSet(
        walls=10, logistics=True
    )
    with pytest.raises(
        LabError, match="walls = 99 is not allowed; allowed values: whole numbers 1–12"
    ):
        RuleSet().with_overrides({"walls": "99"})


# ------------------------------------------------------------------------------ bot grammar


@pytest.mark.parametrize(
    "text, spec",
    [
        ("search:simulations=50", {"kind": "search", "simulations": 50}),
        ("aggressive", {"kind": "heuristic", "persona": "aggressive"}),
        ('{ kind = "search", simulations = 50 }', {"kind": "search", "simulations": 50}),
        ("random", "random"),
    ],
)
def test_one_bot_grammar_for_every_option(text, spec):
    want = parse_bot(spec)
    assert bot_from_text(text, "--bots") == bot_from_text(text, "--bot") == want
    assert bot_from_text(bot_text(want)) == want


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("serch", '--bots "serch" is not a bot; did you mean search?'),
        ("{ kind = ", '--bots "{ kind = ": not a TOML inline table'),
        ('{ kind = "search", simulations = 0 }', "simulations = 0 must be 1–100000"),
    ],
)
def test_bad_bots_name_the_option(text, fragment):
    with pytest.raises(LabError, match=fragment.replace("?", "\\?").replace("{", "\\{")):
        bot_from_text(text, "--bots")
