"""Rule sets (rules.md R14): presets, toggles from TOML, validation, identity and packing."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from itertools import product

import pytest

from lab.errors import LabError
from lab.games.daitenka.rules import (
    CHOICES,
    DESCRIPTIONS,
    N_RULES,
    PRESETS,
    R_FIRST,
    R_LOGISTICS,
    R_ODAWARA_FORTIFY,
    R_WALLS,
    RANGES,
    RuleSet,
)

# rules.md R14, transcribed: the table plus "All presets: initial_hand 5, broken_walls to_hand,
# max_turns 500, first player random".
ALL_PRESETS = {
    "initial_hand": 5,
    "broken_walls": "to_hand",
    "max_turns": 500,
    "first_player": "random",
}
R14 = {
    "second_edition": dict(
        walls=7,
        logistics=False,
        hand_cap=0,
        mulligan=False,
        damage="plays",
        leader_pass="always",
        leader_pass_cost="wall_to_hand",
        gun="kill",
        odawara="draw",
    ),
    "sekigahara_trial": dict(
        walls=6,
        logistics=False,
        hand_cap=0,
        mulligan=False,
        damage="plays",
        leader_pass="always",
        leader_pass_cost="wall_to_hand",
        gun="kill",
        odawara="draw",
    ),
    "legacy_testlab": dict(
        walls=10,
        logistics=True,
        hand_cap=7,
        mulligan=True,
        damage="last_set_size",
        leader_pass="always",
        leader_pass_cost="none",
        gun="retreat",
        odawara="fortify",
    ),
}
KEYS = [f.name for f in dataclasses.fields(RuleSet)]


def write(tmp_path, text: str, name: str = "rules.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------------- presets


@pytest.mark.parametrize("name", list(R14))
def test_presets_equal_the_r14_table(name):
    assert PRESETS[name].as_dict() == R14[name] | ALL_PRESETS


def test_exactly_the_three_presets_and_second_edition_is_the_default():
    assert list(PRESETS) == ["second_edition", "sekigahara_trial", "legacy_testlab"]
    assert RuleSet() == PRESETS["second_edition"] == RuleSet.preset("second_edition")


def test_unknown_preset_lists_the_presets():
    with pytest.raises(LabError) as e:
        RuleSet.preset("third_edition")
    assert "third_edition" in str(e.value)
    for name in PRESETS:
        assert name in str(e.value)


def test_every_toggle_has_a_description():
    assert set(DESCRIPTIONS) == set(KEYS)


# --------------------------------------------------------------------------- TOML and overrides


def test_toml_overrides_sit_on_top_of_the_given_preset(tmp_path):
    path = write(tmp_path, 'walls = 8\ngun = "kill"\n')
    rs = RuleSet.from_toml(path, preset="legacy_testlab")
    assert (rs.walls, rs.gun) == (8, "kill")
    assert rs.logistics is True and rs.hand_cap == 7 and rs.odawara == "fortify"


def test_toml_without_a_preset_starts_from_second_edition(tmp_path):
    rs = RuleSet.from_toml(write(tmp_path, "mulligan = true\n"))
    assert rs == dataclasses.replace(PRESETS["second_edition"], mulligan=True)


def test_toml_naming_its_preset_wins_over_the_argument(tmp_path):
    path = write(tmp_path, 'preset = "sekigahara_trial"\nhand_cap = 6\n')
    rs = RuleSet.from_toml(path, preset="legacy_testlab")
    assert rs == dataclasses.replace(PRESETS["sekigahara_trial"], hand_cap=6)


def test_toml_rules_table_is_read(tmp_path):
    path = write(tmp_path, '[rules]\npreset = "legacy_testlab"\nmax_turns = 200\n')
    rs = RuleSet.from_toml(path)
    assert rs == dataclasses.replace(PRESETS["legacy_testlab"], max_turns=200)


def test_unknown_key_lists_the_valid_keys(tmp_path):
    path = write(tmp_path, "wall = 8\n")
    with pytest.raises(LabError) as e:
        RuleSet.from_toml(path)
    msg = str(e.value)
    assert msg.startswith(f"{path}: ") and 'unknown rules key "wall"' in msg
    for key in KEYS:
        assert key in msg


@pytest.mark.parametrize(
    "key, value, allowed",
    [
        ("gun", "explode", "kill, retreat"),
        ("damage", "all", "plays, last_set_size"),
        ("first_player", "C", "random, A, B"),
        ("walls", 13, "whole numbers 1–12"),
        ("walls", 0, "whole numbers 1–12"),
        ("walls", "many", "whole numbers 1–12"),
        ("walls", 7.5, "whole numbers 1–12"),
        ("walls", True, "whole numbers 1–12"),
        ("max_turns", 0, "whole numbers 1–100000"),
        ("logistics", "maybe", "true, false"),
        ("logistics", 1, "true, false"),
    ],
)
def test_bad_value_lists_the_allowed_values(key, value, allowed):
    with pytest.raises(LabError) as e:
        RuleSet().with_overrides({key: value}, source="cfg.toml")
    msg = str(e.value)
    assert msg.startswith("cfg.toml: ") and key in msg and repr(value) in msg
    assert f"allowed values: {allowed}" in msg


def test_bad_value_from_toml_names_the_file(tmp_path):
    path = write(tmp_path, 'odawara = "burn"\n')
    with pytest.raises(LabError, match=r"rules\.toml: odawara = 'burn' is not allowed"):
        RuleSet.from_toml(path)


def test_bad_toml_and_missing_file(tmp_path):
    with pytest.raises(LabError, match="not valid TOML"):
        RuleSet.from_toml(write(tmp_path, "walls = \n"))
    with pytest.raises(LabError, match="file not found"):
        RuleSet.from_toml(tmp_path / "none.toml")
    with pytest.raises(LabError, match="is a directory"):
        RuleSet.from_toml(tmp_path)


def test_unknown_preset_in_a_file_names_the_file(tmp_path):
    path = write(tmp_path, 'preset = "first_edition"\n')
    with pytest.raises(
        LabError,
        match=r"rules\.toml: preset = 'first_edition' is not allowed; "
        r"did you mean second_edition\? allowed values: second_edition, "
        r"sekigahara_trial",
    ):
        RuleSet.from_toml(path)


# ------------------------------------------------------------------------- cross-checks (R14)


def test_odawara_fortify_without_logistics_is_refused():
    with pytest.raises(LabError) as e:
        PRESETS["second_edition"].with_overrides({"odawara": "fortify"})
    assert "logistics = true" in str(e.value) and 'odawara = "draw"' in str(e.value)
    with pytest.raises(LabError, match="needs logistics"):
        PRESETS["legacy_testlab"].with_overrides({"logistics": False})
    with pytest.raises(LabError, match="needs logistics"):
        RuleSet(odawara="fortify")


def test_odawara_fortify_from_toml_is_refused(tmp_path):
    with pytest.raises(LabError, match=r"rules\.toml: odawara = \"fortify\" needs logistics"):
        RuleSet.from_toml(write(tmp_path, 'odawara = "fortify"\n'))


def test_odawara_fortify_with_logistics_is_fine():
    rs = PRESETS["second_edition"].with_overrides({"odawara": "fortify", "logistics": True})
    assert rs.odawara == "fortify" and rs.logistics is True


# ------------------------------------------------------------------------------------ values


def test_rule_sets_are_frozen_and_hashable():
    rs = PRESETS["second_edition"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rs.walls = 9
    assert rs.walls == 7
    table = {rs: "a", PRESETS["legacy_testlab"]: "b"}
    assert table[RuleSet()] == "a"
    assert len({RuleSet(), RuleSet(walls=7), PRESETS["second_edition"]}) == 1


def test_with_overrides_returns_a_new_rule_set():
    base = PRESETS["second_edition"]
    changed = base.with_overrides({"walls": 9})
    assert changed.walls == 9 and base.walls == 7 and changed is not base
    assert base.with_overrides({}) is base


@pytest.mark.parametrize(
    "text, expected",
    [("on", True), ("off", False), ("true", True), ("False", False), ("yes", True), ("0", False)],
)
def test_string_coercion_of_booleans(text, expected):
    rs = RuleSet().with_overrides({"mulligan": text})
    assert rs.mulligan is expected


def test_string_coercion_of_numbers():
    rs = RuleSet().with_overrides({"walls": "10", "hand_cap": " 7 ", "max_turns": "300"})
    assert (rs.walls, rs.hand_cap, rs.max_turns) == (10, 7, 300)
    assert type(rs.walls) is int
    assert rs == RuleSet(walls=10, hand_cap=7, max_turns=300)


def test_strings_from_toml_are_coerced(tmp_path):
    rs = RuleSet.from_toml(write(tmp_path, 'walls = "10"\nlogistics = "on"\n'))
    assert rs.walls == 10 and rs.logistics is True


def test_direct_construction_coerces_too():
    """RuleSet(walls="10") is the same rule set as RuleSet(walls=10), with the same id and hash;
    a string "off" must not pass for logistics on (it would let odawara = fortify through)."""
    assert RuleSet(walls="10") == RuleSet(walls=10)
    assert hash(RuleSet(walls="10")) == hash(RuleSet(walls=10))
    assert RuleSet(logistics="off").logistics is False
    with pytest.raises(LabError, match="needs logistics"):
        RuleSet(logistics="off", odawara="fortify")


# -------------------------------------------------------------------------------------- ids


def test_preset_ids_are_their_names():
    for name, rs in PRESETS.items():
        assert rs.id == name == str(rs)


def test_id_names_the_nearest_preset_and_the_changes():
    rs = PRESETS["second_edition"].with_overrides({"walls": 8, "mulligan": "on"})
    assert rs.id == "second_edition+walls=8+mulligan=on"
    assert PRESETS["legacy_testlab"].with_overrides({"gun": "kill"}).id == "legacy_testlab+gun=kill"
    # a rule set equal to a preset has that preset's id, however it was built
    assert PRESETS["second_edition"].with_overrides({"walls": 6}).id == "sekigahara_trial"


def test_id_is_stable_across_processes():
    code = (
        "from lab.games.daitenka.rules import PRESETS; "
        "print(PRESETS['legacy_testlab'].with_overrides({'walls': 7, 'first_player': 'B'}).id)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    here = PRESETS["legacy_testlab"].with_overrides({"walls": 7, "first_player": "B"}).id
    assert out.stdout.strip() == here == "legacy_testlab+walls=7+first_player=B"


def _variants() -> list[RuleSet]:
    """Every preset with each toggle set to each of a few allowed values."""
    values = {k: list(v) for k, v in CHOICES.items()}
    values |= {k: sorted({lo, hi, (lo + hi) // 2}) for k, (lo, hi) in RANGES.items()}
    values |= {"logistics": [True, False], "mulligan": [True, False]}
    out = []
    for preset, (key, vals) in product(PRESETS.values(), values.items()):
        for v in vals:
            try:
                out.append(preset.with_overrides({key: v}))
            except LabError:  # odawara = fortify without logistics and the like
                pass
    return out


def test_ids_are_equal_exactly_when_rule_sets_are_equal():
    variants = _variants()
    assert len(variants) > 60
    by_id: dict[str, RuleSet] = {}
    for rs in variants:
        other = by_id.setdefault(rs.id, rs)
        assert other == rs, (rs.id, other, rs)
    assert len(by_id) == len(set(variants))


def test_a_rule_set_rebuilt_from_its_toggles_has_the_same_id(tmp_path):
    rs = PRESETS["legacy_testlab"].with_overrides({"walls": 8, "gun": "kill"})
    lines = [
        f"{k} = {str(v).lower() if isinstance(v, bool) else repr(v)}"
        for k, v in rs.as_dict().items()
    ]
    again = RuleSet.from_toml(write(tmp_path, "\n".join(lines).replace("'", '"') + "\n"))
    assert again == rs and again.id == rs.id and hash(again) == hash(rs)


# ---------------------------------------------------------------------------------- packing


def test_pack_gives_the_engine_integers():
    r = PRESETS["legacy_testlab"].pack()
    assert r.shape == (N_RULES,) and r.dtype.kind == "i"
    assert (r[R_WALLS], r[R_LOGISTICS], r[R_ODAWARA_FORTIFY], r[R_FIRST]) == (10, 1, 1, -1)
    assert RuleSet(first_player="B").pack()[R_FIRST] == 1
