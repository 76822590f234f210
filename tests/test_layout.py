"""The state layout declared once (issue 15 item 3): the tables of lab.engine.layout give every
field one offset, no two fields overlap, and the read-only view (lab.engine.view) reads a game by
those names — the same values the scenario format's zones show."""

from __future__ import annotations

import pytest

from lab.engine import layout as L
from lab.engine.api import Game
from lab.engine.view import describe


def _spans(table):
    return sorted((f.offset, f.offset + f.size, f.name) for f in table)


@pytest.mark.parametrize("table, end", [(L.HEADER, L.H_SIZE), (L.PLAYER, L.P_SIZE),
                                        (L.CONTEXT, L.C_SIZE), (L.ACTION, L.AW)])
def test_fields_do_not_overlap_and_fit_their_block(table, end):
    spans = _spans(table)
    for (a0, a1, a), (b0, _, b) in zip(spans, spans[1:]):
        assert a1 <= b0, f"{a} overlaps {b}"
    assert spans[-1][1] <= end
    for f in table:
        prefix = {id(L.HEADER): "G", id(L.PLAYER): "PB", id(L.CONTEXT): "C",
                  id(L.ACTION): "AX"}[id(table)]
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
        "leader_start", "leader", "leader_act", "response", "over")
    with pytest.raises(AttributeError, match="header fields: phase"):
        v.no_such_field


def test_describe_lists_every_field_once():
    rows = describe()
    assert len({(t, n) for t, n, *_ in rows}) == len(rows)
    assert ("header", "TOP_KURUMAGAKARI") in {(t, n) for t, n, *_ in rows}
