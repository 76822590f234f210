"""大天下's card edits that ``lab balance`` may propose, and a proposal as paste-ready
``[[patch]]`` TOML (reached through the entry's ``card_design()``, ``lab.games.daitenka.design``).

Owns the catalogue of single card edits (``Move``): for every card an army of the experiment
holds — a vanilla 足軽 excepted (its strength is its name) — strength −2, −1, +1, +2 within 1–10
(units and warlords; a general stays ∞), each ability turned off, and each effect row's amount
±1 when it is at least 1 (an amount of 0 is covered by "off"); and, asked for (``deck_lists``,
`lab balance --deck-lists`), deck-list edits: each vanilla 足軽 of an army's deck, every copy,
replaced by the 足軽 a step or two away (``replace``, that army's deck); and, numbers only
(``abilities=False``, `lab balance --no-abilities`), no ability edit. A card held only by one
army is edited as the card; a card several decks hold is edited per army (``army = "…"``,
that deck's copies) and, when every deck holding it is in the experiment, also as the card
itself (every deck). ``keep`` narrows it to (army, card) pairs — the cards a ``lab value``
table ranks most responsible (``lab.design.balance_edits.responsible``). Two edits conflict
when they touch the same strength or the same ability of a card in overlapping scopes, or
replace a card in one deck that another replacement there takes or gives; an edit set holds
no conflicting pair. Also owns the TOML a designer pastes into a config (``patch_toml``),
which ``lab.games.daitenka.cards.patch.parse_patch`` reads back into the same edits. Plays
nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from lab.errors import did_you_mean, LabError
from lab.games.daitenka.cards.patch import (
    Edit,
    Patch,
    ability_off,
    replace_card,
    set_amount,
    set_strength,
)
from lab.games.daitenka.cards.pool import (
    ARMIES,
    Card,
    CardPool,
    Deck,
    load_army,
    load_pool,
    vanilla_id,
)
from lab.games.daitenka.cards.vocab import INF, Kind

STEPS = (-2, -1, 1, 2)  # strength changes tried


@dataclass(frozen=True)
class Move:
    """One card edit of the catalogue. ``armies``: the armies whose games it changes."""

    index: int
    key: str  # stable text id: SCOPE:CARD:OP:TARGET:VALUE
    edit: Edit
    armies: frozenset[str]
    text: str  # for people: "赤備え strength 7 → 8 (武田)"

    @property
    def slot(self) -> tuple[str, str]:
        """(card, what it changes): two moves with the same slot in overlapping scopes
        conflict; a deck-list edit's is (the army's deck, "replace"), shared by every
        deck-list edit of that army."""
        e = self.edit
        if e.op == "replace":
            return f"deck:{e.army}", "replace"
        return e.card, "strength" if e.op == "strength" else f"ability:{e.ability}"

    def conflicts(self, other: "Move") -> bool:
        if self.slot != other.slot:
            return False
        if self.edit.op == "replace":
            # replacements apply in order: one that takes or gives a card another gives or
            # takes would change what the other replaces
            return bool({self.edit.card, self.edit.value} & {other.edit.card, other.edit.value})
        return not self.edit.army or not other.edit.army or self.edit.army == other.edit.army


def catalogue(
    decks: dict[str, Deck],
    names: dict[str, str],
    *,
    keep: set[tuple[str, str]] | None = None,
    cards: set[str] | None = None,
    pool: CardPool | None = None,
    deck_lists: bool = False,
    abilities: bool = True,
) -> tuple[Move, ...]:
    """Every single edit of the armies ``decks`` (army key → deck; ``names``: printed army
    names), in army and deck order. ``keep``: only these (army, card id) pairs (a value
    table's ranking; no deck-list edit then: a value table ranks no 足軽); ``cards``: only
    these card ids (``--cards``); ``pool``: the experiment's cards (the package's and its extra
    card files); ``deck_lists``: with the deck-list edits (``_deck_edits``); ``abilities``: with
    the ability edits (off, amount ±1) — without them, strengths (and deck lists) only."""
    pool = pool or load_pool()
    holders: dict[str, list[str]] = {}
    for army, deck in decks.items():
        for card, _ in deck.entries:
            holders.setdefault(card.id, []).append(army)
    shipped = _shipped_holders(pool)
    moves: list[Move] = []
    seen: set[str] = set()

    def add(edit: Edit, text: str, scope_text: str) -> None:
        key = _key(edit)
        if key in seen:
            return
        seen.add(key)
        armies = frozenset(Patch("x", (edit,)).affected(decks, pool))
        if armies:
            moves.append(Move(len(moves), key, edit, armies, f"{text}{scope_text}"))

    for army, deck in decks.items():
        for card, n in deck.entries:
            if card.kind == Kind.UNIT and not card.abilities:
                if deck_lists and keep is None and (cards is None or card.id in cards):
                    for edit, text in _deck_edits(card, n, army, pool):
                        add(edit, text, f" ({names[army]})")
                continue
            if cards is not None and card.id not in cards:
                continue
            mine = holders[card.id]
            everywhere = set(shipped.get(card.id, ())) | set(mine)
            ranked = keep is None or (army, card.id) in keep
            scopes = []
            if everywhere == {army}:
                if ranked:
                    scopes.append(("", ""))
            else:
                if ranked:
                    scopes.append((army, f" ({names[army]})"))
                # the card itself, once (at its first holder), when every deck holding it plays
                if (
                    len(mine) > 1
                    and army == mine[0]
                    and everywhere <= set(decks)
                    and (keep is None or any((a, card.id) in keep for a in mine))
                ):
                    scopes.append(("", f" (every deck: {', '.join(names[a] for a in mine)})"))
            for scope, scope_text in scopes:
                for edit, text in _edits(card, scope, pool, abilities):
                    add(edit, text, scope_text)
    return tuple(moves)


def _edits(card: Card, army: str, pool, abilities: bool = True):
    """(edit, text) of one card in one scope (its abilities' only with ``abilities``)."""
    if card.is_unit and card.strength != INF:
        for step in STEPS:
            s = card.strength + step
            if 1 <= s <= 10:
                yield (
                    set_strength(card.id, s, army=army, pool=pool),
                    f"{card.name} strength {card.strength} → {s}",
                )
    for a in card.abilities if abilities else ():
        yield ability_off(card.id, a.id, army=army, pool=pool), f"{card.name} 〈{a.name}〉 off"
        for i, row in enumerate(a.rows):
            if row.amount < 1:
                continue
            where = f" row {i}" if len(a.rows) > 1 else ""
            for step in (-1, 1):
                amount = row.amount + step
                if amount >= 1:
                    yield (
                        set_amount(card.id, amount, ability=a.id, row=i, army=army, pool=pool),
                        f"{card.name} 〈{a.name}〉{where} amount {row.amount} → {amount}",
                    )


def _deck_edits(card: Card, copies: int, army: str, pool):
    """(edit, text) of a vanilla 足軽 in one army's deck: every copy replaced by the 足軽 one or
    two stronger or weaker, in its place. A strength edit of 武田's own cards moved it about
    0.7 as far at search(100) as at `tuned`, these about as far one at a time (1.04 ± 0.09),
    less in a proposal and at search(400) (docs/balancing.md, "Deck-list edits, an ability
    probe and twelve edits")."""
    for step in STEPS:
        new = vanilla_id(card.strength + step)
        if new in pool:
            yield (
                replace_card(army, card.id, new, pool=pool),
                f"{card.name} ×{copies} → {pool.get(new).name}",
            )


def _key(e: Edit) -> str:
    value = {"strength": e.value, "amount": e.value, "off": "", "replace": e.value}[e.op]
    target = e.ability if e.op != "strength" else ""
    row = f"/{e.row}" if e.op == "amount" else ""
    return f"{e.army or '*'}:{e.card}:{e.op}:{target}{row}:{value}"


def _shipped_holders(pool: CardPool) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for army in ARMIES:
        for card, _ in load_army(army, pool).entries:
            out.setdefault(card.id, []).append(army)
    return out


def card_ids(names: list[str], decks: dict[str, Deck], pool: CardPool) -> set[str]:
    """Card ids of ``--cards`` names, each held by some army (one-line error otherwise)."""
    held = {c.id: c for d in decks.values() for c, _ in d.entries}
    out = set()
    for name in names:
        if name not in pool or pool.get(name).id not in held:
            did = did_you_mean(name, [c.name for c in held.values()])
            raise LabError(
                f"--cards: no army of the experiment holds \"{name}\"; {did}"
                "(`lab decks ARMY` lists a deck's cards)"
            )
        out.add(pool.get(name).id)
    return out


# ------------------------------------------------------------------------------------ as TOML


def edit_table(e: Edit, pool: CardPool | None = None) -> dict:
    """The [[patch.edit]] table of one edit, with printed card and ability names (ids where a
    name would not find the same card or ability)."""
    pool = pool or load_pool()
    card = pool.get(e.card)
    d = e.as_dict(pool)
    d["card"] = card.name if pool.get(card.name).id == card.id else card.id
    ability = next((a for a in card.abilities if a.id == e.ability), None)
    if e.op == "replace":
        new = pool.get(e.value)
        d["replace"] = new.name if pool.get(new.name).id == new.id else new.id
    if ability is not None and sum(a.name == ability.name for a in card.abilities) == 1:
        if e.op == "off":
            d["off"] = ability.name
        elif e.op == "amount":
            d["ability"] = ability.name
    return d


def patch_toml(moves, name: str, description: str = "", pool: CardPool | None = None) -> str:
    """The ``[[patch]]`` table of an edit set, ready to paste into an experiment config."""
    return edits_toml([m.edit for m in moves], name, description, pool)


def edits_toml(edits, name: str, description: str = "", pool: CardPool | None = None) -> str:
    """The ``[[patch]]`` table of a list of ``Edit``s (applied in order)."""
    lines = ["[[patch]]", f"name = {_string(name)}"]
    if description:
        lines.append(f"description = {_string(description)}")
    for e in edits:
        lines += ["", "[[patch.edit]]"]
        lines += [f"{k} = {_value(v)}" for k, v in edit_table(e, pool).items()]
    return "\n".join(lines) + "\n"


def _string(text: str) -> str:
    # a JSON string (quotes, backslashes and control characters escaped) is a TOML basic string
    return json.dumps(text, ensure_ascii=False)


def _value(v) -> str:
    return _string(v) if isinstance(v, str) else str(v)
