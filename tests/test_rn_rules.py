"""Rumble Nation rule sets and map (rumble-nation.md RN1, RN7): presets as the spec lists them,
one-line errors for bad toggles and bad map files, stable ids, packing."""

from __future__ import annotations

import pytest

from lab.errors import LabError
from lab.games.rumble_nation import AREAS, PRESETS, RNRules, load_map
from lab.games.rumble_nation import nb_layout as L

# RN1, transcribed: the default adjacency along the archipelago.
RN1_EDGES = """徳山館–米沢城; 米沢城–春日山城, 米沢城–小田原城; 春日山城–小田原城, 春日山城–躑躅ヶ崎館,
  春日山城–清洲城; 小田原城–躑躅ヶ崎館; 躑躅ヶ崎館–清洲城; 清洲城–京; 京–吉田郡山城, 京–岡豊城;
  吉田郡山城–岡豊城, 吉田郡山城–臼杵城; 岡豊城–臼杵城; 臼杵城–首里城"""
RN1_AREAS = (
    "徳山館, 米沢城, 春日山城, 小田原城, 躑躅ヶ崎館, 清洲城, 京, 吉田郡山城, 岡豊城, 臼杵城, 首里城"
)


def _edges(text):
    out = set()
    for part in text.replace(";", ",").split(","):
        a, b = part.strip().split("–")
        out.add(frozenset((a, b)))
    return out


def test_rn1_areas_and_default_map_edges():
    assert AREAS == tuple(RN1_AREAS.split(", "))
    board = load_map()
    got = {frozenset((AREAS[a], AREAS[b])) for a, row in enumerate(board.adjacent) for b in row}
    assert got == _edges(RN1_EDGES)


def test_rn7_presets():
    want = {
        "base_2p": dict(players=2, reinforcements=1, second_place=False, daimyo=False, soldiers=18),
        "base_3p": dict(players=3, reinforcements=2, second_place=True, daimyo=False, soldiers=18),
        "base_4p": dict(players=4, reinforcements=2, second_place=True, daimyo=False, soldiers=18),
        "advanced_4p": dict(
            players=4, reinforcements=2, second_place=True, daimyo=True, soldiers=16
        ),
    }
    assert list(PRESETS) == list(want)
    for name, values in want.items():
        r = PRESETS[name]
        assert r.id == name
        assert r.reroll is True and r.soldier_counts == (1, 2, 3) and r.map == "default"
        for k, v in values.items():
            assert getattr(r, k) == v, (name, k)


def test_id_names_the_nearest_preset_and_the_differences():
    r = RNRules.from_dict({"preset": "base_4p", "reroll": False, "soldier_counts": [1, 1, 2]})
    assert r.id == "base_4p+reroll=off+soldier_counts=1-1-2"
    assert RNRules.from_dict({"players": 3}).id == "base_3p"  # players alone picks its preset
    assert RNRules.from_dict({"preset": "base_2p", "players": 3}).id == "base_2p+players=3"
    assert RNRules(players="4", reinforcements="2", second_place="on") == PRESETS["base_4p"]


@pytest.mark.parametrize(
    "key, value, fragment",
    [
        ("players", 5, "players = 5 is not allowed; allowed values: whole numbers 2–4"),
        ("reroll", "maybe", "reroll = 'maybe' is not allowed; allowed values: true, false"),
        ("soldier_counts", [1, 2], "give three whole numbers 1–9"),
        ("soldier_counts", [0, 2, 3], "give three whole numbers 1–9"),
        ("reinforcements", -1, "whole numbers 0–9"),
        ("soldiers", 0, "whole numbers 1–60"),
        ("colour", "red", "unknown Rumble Nation rules key \"colour\"; valid keys: players"),
    ],
)
def test_bad_toggles_are_one_line_errors(key, value, fragment):
    with pytest.raises(LabError) as e:
        RNRules.from_dict({key: value}, source="x.toml")
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("x.toml: ") and fragment in msg


def test_unknown_preset():
    with pytest.raises(LabError, match="base_2p, base_3p, base_4p, advanced_4p"):
        RNRules.preset("base_5p")


def test_context_packs_every_toggle():
    r = RNRules.from_dict(
        {
            "preset": "advanced_4p",
            "reroll": False,
            "soldier_counts": [2, 3, 4],
            "reinforcements": 3,
            "second_place": False,
            "soldiers": 12,
        }
    )
    c = r.context()
    assert (
        c[L.C_PLAYERS],
        c[L.C_REROLL],
        c[L.C_REINF],
        c[L.C_SECOND],
        c[L.C_DAIMYO],
        c[L.C_SOLDIERS],
    ) == (4, 0, 3, 0, 1, 12)
    assert list(c[L.C_COUNT : L.C_COUNT + 3]) == [2, 3, 4]
    assert c[L.C_AREA_ADJ + AREAS.index("首里城")] == 1 << AREAS.index("臼杵城")


# ------------------------------------------------------------------ map files (RN1, RN7 `map`)
def _write_map(tmp_path, adj: dict, extra: str = "") -> str:
    text = (
        extra
        + "[adjacent]\n"
        + "".join(
            f'"{a}" = [{", ".join(chr(34) + b + chr(34) for b in v)}]\n' for a, v in adj.items()
        )
    )
    p = tmp_path / "map.toml"
    p.write_text(text, encoding="utf-8")
    return str(p)


def _islands():
    return {a: [] for a in AREAS}


def test_a_custom_map_loads_and_is_named_in_the_id(tmp_path):
    adj = _islands()
    adj["京"] = ["首里城"]
    adj["首里城"] = ["京"]
    path = _write_map(tmp_path, adj, 'name = "京首里"\n')
    r = RNRules(map=path)
    assert r.id == "base_2p+map=京首里"
    assert r.board().adjacent[AREAS.index("京")] == (AREAS.index("首里城"),)


def test_rules_file_map_is_relative_to_the_file(tmp_path):
    (tmp_path / "maps").mkdir()
    _write_map(tmp_path / "maps", _islands())
    cfg = tmp_path / "rules.toml"
    cfg.write_text(
        'game = "rumble_nation"\npreset = "base_3p"\nmap = "maps/map.toml"\n', encoding="utf-8"
    )
    r = RNRules.from_toml(cfg)
    assert r.players == 3 and all(m == 0 for m in r.board().masks())


@pytest.mark.parametrize(
    "mutate, fragment",
    [
        (
            lambda a: a.__setitem__("京", ["清洲", "岡豊城"]),
            "unknown area in [adjacent] \"京\" \"清洲\"; did you mean 清洲城?",
        ),
        (
            lambda a: a.__setitem__("京", a["京"][:-1]),  # 京 drops 岡豊城, 岡豊城 still lists 京
            "[adjacent] \"岡豊城\" lists \"京\" but \"京\" does not list \"岡豊城\"",
        ),
        (lambda a: a.__setitem__("京", a["京"] + ["京"]), "[adjacent] \"京\" lists itself"),
        (
            lambda a: a.__setitem__("京", a["京"] + ["清洲城"]),
            "[adjacent] \"京\" lists \"清洲城\" twice",
        ),
        (lambda a: a.pop("首里城"), "[adjacent] has no line for 首里城"),
        (lambda a: a.__setitem__("大阪城", []), "unknown area in [adjacent] \"大阪城\""),
    ],
)
def test_bad_map_files_are_one_line_errors(tmp_path, mutate, fragment):
    board = load_map()
    adj = {AREAS[a]: [AREAS[b] for b in row] for a, row in enumerate(board.adjacent)}
    mutate(adj)
    path = _write_map(tmp_path, adj)
    with pytest.raises(LabError) as e:
        RNRules(map=path)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(path) and fragment in msg, msg


def test_map_file_missing_or_not_toml(tmp_path):
    with pytest.raises(LabError, match="file not found"):
        RNRules(map=str(tmp_path / "none.toml"))
    bad = tmp_path / "bad.toml"
    bad.write_text("[adjacent\n", encoding="utf-8")
    with pytest.raises(LabError, match="not valid TOML"):
        RNRules(map=str(bad))
    no_table = tmp_path / "empty.toml"
    no_table.write_text('name = "x"\n', encoding="utf-8")
    with pytest.raises(LabError, match=r"missing \[adjacent\] table"):
        RNRules(map=str(no_table))
