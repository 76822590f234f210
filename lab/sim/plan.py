"""The run plan: an experiment's cells, game ids and chunks, in one fixed order.

A cell is one (rule variant, bot tier, matchup); its games are its deals × seat orders. Game ids
and chunk ids depend on the experiment alone (never on workers or backend), so a chunk is a
unit of work that can be played anywhere, written once and skipped on ``--resume``. The plan
holds no card data and plays nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from lab.rules import RuleSet
from lab.sim.config import Army, Experiment, Tier


@dataclass(frozen=True)
class Cell:
    index: int
    variant: RuleSet
    tier: Tier
    matchup: tuple[str, str]  # (army in seat A, army in seat B) as listed; swapped games exchange


@dataclass(frozen=True)
class Job:
    """One chunk: deals [lo, hi) of one cell in one seat order — everything a worker needs."""

    id: int
    cell: int
    variant: RuleSet
    tier: Tier
    army_a: Army  # the army in seat A for these games (after the swap, if swapped)
    army_b: Army
    pair: tuple[str, str]  # the matchup as an unordered pair (sorted keys): the deal key's part
    seat_a_slot: int  # which army of ``pair`` sits in seat A (0 or 1; a mirror uses both)
    swapped: bool
    lo: int
    hi: int
    seed: int
    games: int  # deals per cell, for game ids
    orders: int  # seat orders per deal, for game ids

    @property
    def size(self) -> int:
        return self.hi - self.lo

    def game_id(self, deal):
        return game_id(self.cell, deal, self.swapped, self.games, self.orders)


def game_id(cell, deal, swapped, games: int, orders: int):
    """Stable for a config: (cell, deal, seat order) → id; a deal's two seat orders are adjacent."""
    return (cell * games + deal) * orders + swapped


def cells(exp: Experiment) -> list[Cell]:
    out = []
    for v in exp.variants:
        for t in exp.tiers:
            for m in exp.matchups:
                out.append(Cell(len(out), v, t, m))
    return out


def jobs(exp: Experiment) -> list[Job]:
    """Every chunk of the run, in id order: cell by cell, seat order, then deals."""
    out: list[Job] = []
    for c in cells(exp):
        a, b = c.matchup
        pair = (min(a, b), max(a, b))
        slot_a = 0 if a <= b else 1  # listed seat A's army's slot in the pair (mirror: 0)
        for swapped in range(exp.orders):
            seat_a, seat_b = (b, a) if swapped else (a, b)
            for lo in range(0, exp.games, exp.chunk_size):
                out.append(Job(len(out), c.index, c.variant, c.tier, exp.army(seat_a),
                               exp.army(seat_b), pair, slot_a ^ swapped, bool(swapped), lo,
                               min(lo + exp.chunk_size, exp.games), exp.seed, exp.games,
                               exp.orders))
    return out
