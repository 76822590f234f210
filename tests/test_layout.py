"""The state layout declared once (issue 15 item 3): the tables of lab.games.daitenka.engine.layout give every
field one offset, no two fields overlap, and the read-only view (lab.games.daitenka.engine.view) reads a game by
those names — the same values the scenario format's zones show."""

from __future__ import annotations

import pytest

from lab.games.daitenka.engine import layout as L
from lab.games.daitenka.engine.api import Game
from lab.games.daitenka.engine.view import describe


def _spans(table):
    return sorted((f.offset, f.offset + f.size, f.name) for f in table)


@pytest.mark.parametrize(
    "table, end",
    [(L.HEADER, L.H_SIZE), (L.PLAYER, L.P_SIZE), (L.CONTEXT, L.C_SIZE), (L.ACTION, L.AW)],
)
def test_fields_do_not_overlap_and_fit_their_block(table, end):
    spans = _spans(table)
    for (a0, a1, a), (b0, _, b) in zip(spans, spans[1:]):
        assert a1 <= b0, f"{a} overlaps {b}"
    assert spans[-1][1] <= end
    for f in table:
        prefix = {id(L.HEADER): "G", id(L.PLAYER): "PB", id(L.CONTEXT): "C", id(L.ACTION): "AX"}[
            id(table)
        ]
        assert getattr(L, f"{prefix}_{f.name}") == f.offset


def test_every_event_code_is_declared_with_its_meaning():
    codes = [getattr(L, f"EV_{f.name}") for f in L.EVENTS]
    assert codes == list(range(1, len(codes) + 1)) and all(f.meaning for f in L.EVENTS)


def test_the_view_reads_what_the_zones_show():
    g = Game("second_edition", "oda", "takeda", seed=5)
    while not g.is_over and g.view.battles < 6:
        legal = g.legal_actions()
        g.step(next((a for a in legal if " lead " in a.text), legal[0]))
    v = g.view
    for seat in "AB":
        assert v.hand(seat) == g.zone(seat, "hand")
        assert v.walls(seat) == g.zone(seat, "walls")
        assert v.deck(seat) == g.zone(seat, "deck")
        assert v.wall_count(seat) == g.zone(seat, "wall_count")
        assert v.hand_count(seat) == sum(v.hand(seat).values())
    assert v.battles >= 6 and v.turns == int(g.s[L.G_TURNS]) and v.decisions == g.decisions
    assert v.plays("A") == int(g.s[L.G_PLAYS]) and v.phase_name in (
        "leader_start",
        "leader",
        "leader_act",
        "response",
        "over",
    )
    with pytest.raises(AttributeError, match="header fields: phase"):
        v.no_such_field


def test_describe_lists_every_field_once():
    rows = describe()
    assert len({(t, n) for t, n, *_ in rows}) == len(rows)
    assert ("header", "TOP_KURUMAGAKARI") in {(t, n) for t, n, *_ in rows}


# ------------------------------------------------------------------ state by names (issue 28.4)


def _player_offset_reads(path):
    """Subscripts of a module that compute a player-block address themselves: an index holding
    ``L.PB_*`` (or ``pb(…)``, ``L.H_SIZE``, ``L.P_SIZE``)."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Subscript):
            continue
        for sub in ast.walk(node.slice):
            name = (
                sub.attr
                if isinstance(sub, ast.Attribute)
                else sub.func.id
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
                else None
            )
            if name and (name.startswith("PB_") or name in ("pb", "H_SIZE", "P_SIZE")):
                found.append(f"{path.name}:{node.lineno}")
                break
    return found


def test_outside_the_engine_a_player_block_is_read_through_accessors():
    """Bots, the environment and every other package read a seat's zones through nb_core's
    accessors or ``game.view``, never ``s[b + L.PB_X]`` (docs/engine.md)."""
    from pathlib import Path

    engine = Path(L.__file__).resolve().parent
    lab = engine.parents[2]
    rumble_nation = lab / "games" / "rumble_nation"  # its own layout, not 大天下's
    files = [
        p for p in lab.rglob("*.py") if engine not in p.parents and rumble_nation not in p.parents
    ]
    assert any(p.name == "nb_eval.py" for p in files)
    offenders = [hit for p in files for hit in _player_offset_reads(p)]
    assert offenders == []


def test_the_offset_finder_sees_an_address_computed_by_hand(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(s, b, L):\n    return s[b + L.PB_HAND_N]\n", encoding="utf-8")
    assert _player_offset_reads(bad) == ["bad.py:2"]


def test_the_written_out_constants_are_plain_assignments():
    """Editors and linters see every offset: each G_/PB_/ST_/C_/AX_/EV_ name is assigned in
    layout.py's source, not made at run time."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(L.__file__).read_text(encoding="utf-8"))
    assigned = {
        t.id
        for n in tree.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    for prefix, table in (
        ("G", L.HEADER),
        ("PB", L.PLAYER),
        ("ST", L.STATS),
        ("C", L.CONTEXT),
        ("AX", L.ACTION),
        ("EV", L.EVENTS),
    ):
        for f in table:
            assert f"{prefix}_{f.name}" in assigned
