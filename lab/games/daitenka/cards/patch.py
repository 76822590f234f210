"""Card patches: named edits of the card pool and the decks, the data ``lab run`` varies like a
rules toggle (``[[patch]]`` tables and ``[grid] patch = […]``) and ``lab value`` / ``lab swap``
build in Python.

Owns the patch model — a ``Patch`` is a name and an ordered list of ``Edit``s: set a card's
strength, set an ability row's amount, turn an ability off, give a card an ability (one of the
pool's, or rows written in the closed vocabulary of ``vocab.py``), or replace a card in one army's
deck copy for copy — its checks (one-line ``LabError`` naming the patch, the edit and the fix), its
TOML/JSON form (``as_dict`` and ``parse_patch`` round-trip, so a manifest can rebuild a patch), and
``Patch.apply``: the patched pool and decks of one matchup, from which the engine's context is
built exactly as for unpatched cards (the engine is never edited and reads nothing else).

An edit without ``army`` changes the card wherever it is held; with ``army`` it changes only that
army's copies (in a mirror match both seats are that army). When both seats of a matchup hold a
card in two different versions, the second seat's version becomes a separate card type placed
right after the first in the pool, so each seat's cards keep their order (and the play stream its
meaning: common random numbers stay as close as they can). It plays nothing and reads no records.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from lab.games.daitenka.cards.pool import (
    MAX_ABILITY_ROWS,
    Ability,
    Card,
    CardPool,
    Deck,
    EffectRow,
    check_rows,
    load_pool,
    validate_deck,
)
from lab.games.daitenka.cards.vocab import (
    CONDITION_NAMES,
    EFFECT_NAMES,
    INF,
    TRIGGER_NAMES,
    Condition,
    Kind,
)
from lab.errors import closest, did_you_mean, LabError
from lab.schema.base import check
from lab.games.daitenka.schema.cards import EffectRow as EffectRowTable
from lab.schema.experiment import BASE, PATCH_NAME, PATCH_NAME_ALLOWED, PatchTable
from lab.schema.experiment import Edit as EditTable


@dataclass(frozen=True)
class Edit:
    """One change. ``card``: the card's id. ``value``: the strength (1–10, or INF), the amount,
    the replacement's card id, or the ``Ability`` to add; ``ability``: the ability id an amount
    or an off applies to ("" with off: every ability); ``row``: the ability's effect row."""

    op: str
    card: str
    value: object = None
    army: str = ""  # "" = wherever the card is held; else the army key whose copies change
    ability: str = ""
    row: int = 0

    def as_dict(self, pool: CardPool | None = None) -> dict:
        """The TOML/JSON table of this edit (card ids, ability ids)."""
        d: dict = {"card": self.card}
        if self.army:
            d["army"] = self.army
        if self.op == "strength":
            d["strength"] = "inf" if self.value == INF else self.value
        elif self.op == "amount":
            d.update(ability=self.ability, row=self.row, amount=self.value)
        elif self.op == "off":
            d["off"] = self.ability or "all"
        elif self.op == "replace":
            d["replace"] = self.value
        else:
            pool = pool or load_pool()
            a = self.value
            d["add"] = a.id if pool.abilities.get(a.id) == a else [_row_dict(r) for r in a.rows]
        return d


@dataclass(frozen=True)
class Patch:
    """A named set of edits. ``allow_no_general``: a deck may lose its general (R2 forbids it;
    ``lab value`` uses it to replace a general by 足軽10 — never set from a config file)."""

    name: str
    edits: tuple[Edit, ...] = ()
    description: str = ""
    allow_no_general: bool = False

    def __post_init__(self):
        if self.name == BASE and self.edits:
            raise LabError(
                f"patch name \"{BASE}\" is reserved for the unpatched cards; choose another name"
            )
        if self.name != BASE and not self.edits:
            raise LabError(f"patch \"{self.name}\" has no edit; add at least one [[patch.edit]]")
        check_name(self.name, "patch name")

    @property
    def is_base(self) -> bool:
        return not self.edits

    def as_dict(self, pool: CardPool | None = None) -> dict:
        d: dict = {"name": self.name}
        if self.description:
            d["description"] = self.description
        if self.allow_no_general:
            d["allow_no_general"] = True
        d["edit"] = [e.as_dict(pool) for e in self.edits]
        return d

    # ---------------------------------------------------------------------- decks and armies
    def deck(self, army: str, deck: Deck, pool: CardPool | None = None) -> Deck:
        """``deck`` (army ``army``) after this patch's replacements — each replacement in the
        card's place, copy for copy, so a deal shuffles the same positions — checked against
        the deck rules (rules.md R2). Card data edits do not show here (see ``apply``)."""
        mine = [e for e in self.edits if e.op == "replace" and e.army == army]
        if not mine:
            return deck
        pool = pool or load_pool()
        entries = list(deck.entries)
        for e in mine:
            old, new = pool.get(e.card), pool.get(e.value)
            if not any(c.index == old.index for c, _ in entries):
                raise LabError(
                    f"patch \"{self.name}\": {old.name} is not in the {deck.name} "
                    f"({army}) deck; replace a card it holds (`lab decks {army}`)"
                )
            entries = [(new if c.index == old.index else c, n) for c, n in entries]
        patched = replace(deck, entries=tuple(entries))
        try:
            if self.allow_no_general and patched.general() is None and deck.general():
                # every rule but the general's: checked with the general put back
                validate_deck(
                    replace(patched, entries=patched.entries + ((deck.general(), 1),)), size=None
                )
            else:
                validate_deck(patched)
        except LabError as err:
            msg = str(err).removeprefix(f"{err.source}: ") if err.source else str(err)
            what = ", ".join(f"{pool.get(e.card).name} → {pool.get(e.value).name}" for e in mine)
            raise LabError(
                f"patch \"{self.name}\": {what} makes the {deck.name} ({army}) deck illegal: {msg}"
            ) from None
        return patched

    def with_army_keys(self, keys: dict[str, str]) -> "Patch":
        """This patch with each edit's army given by a printed name (``keys``: name → key)
        named by its key instead."""
        if not any(e.army in keys for e in self.edits):
            return self
        edits = tuple(replace(e, army=keys.get(e.army, e.army)) for e in self.edits)
        return replace(self, edits=edits)

    def affected(self, decks: dict[str, Deck], pool: CardPool | None = None) -> set[str]:
        """The armies (keys of ``decks``) whose cards this patch changes: a matchup of two
        other armies plays exactly as unpatched."""
        out = set()
        for army, deck in decks.items():
            patched = self.deck(army, deck, pool)
            held = {c.id for c, _ in patched.entries}
            if patched is not deck or any(
                e.card in held for e in self.edits if e.op != "replace" and e.army in ("", army)
            ):
                out.add(army)
        return out

    def check(
        self, decks: dict[str, Deck], source: str | None = None, pool: CardPool | None = None
    ) -> None:
        """One-line errors for what only the experiment's armies can tell: an unknown army, a
        card not in the army's deck, a deck made illegal, an edit no army's deck meets."""
        pool = pool or load_pool()
        try:
            self.check_cards(pool)
        except LabError as err:
            raise LabError(str(err), source=source) from None
        for i, e in enumerate(self.edits):
            where = f"patch \"{self.name}\" edit[{i}]"
            if e.army and e.army not in decks:
                did = did_you_mean(e.army, decks)
                raise LabError(
                    f"{where}: army \"{e.army}\" is not in this experiment; {did}"
                    f"armies: {', '.join(decks)}",
                    source=source,
                )
        patched = {}
        for army, deck in decks.items():
            try:
                patched[army] = self.deck(army, deck, pool)
            except LabError as err:
                raise LabError(str(err), source=source) from None
        for i, e in enumerate(self.edits):
            if e.op == "replace":
                continue
            holders = [
                a
                for a, d in patched.items()
                if (not e.army or a == e.army) and any(c.id == e.card for c, _ in d.entries)
            ]
            if not holders:
                card = pool.get(e.card).name
                what = (
                    f"{card} is not in the {e.army} deck"
                    if e.army
                    else f"no deck of this experiment holds {card} (armies: {', '.join(decks)})"
                )
                raise LabError(
                    f"patch \"{self.name}\" edit[{i}]: {what}; edit a card a deck holds",
                    source=source,
                )

    # ------------------------------------------------------------------------- card data
    def card_versions(self, pool: CardPool, held: dict[str, set[str]]) -> dict:
        """{(army, card id): patched Card} for every edited card an army holds."""
        out = {}
        for army, ids in held.items():
            for cid in ids:
                edits = [
                    e
                    for e in self.edits
                    if e.op != "replace" and e.card == cid and e.army in ("", army)
                ]
                if edits:
                    out[(army, cid)] = _edited(pool.get(cid), edits, self.name)
        return out

    def check_cards(self, pool: CardPool | None = None) -> None:
        """Every edited card, in every scope, within the engine's limits (one-line error)."""
        pool = pool or load_pool()
        cards = {e.card for e in self.edits if e.op != "replace"}
        scopes = {""} | {e.army for e in self.edits if e.army}
        self.card_versions(pool, {s: cards for s in scopes})

    def apply(
        self, sides: tuple[tuple[str, Deck], tuple[str, Deck]], pool: CardPool | None = None
    ) -> tuple[CardPool, Deck, Deck]:
        """The patched pool and the two patched decks of one matchup (``sides``: (army key,
        deck) of seat A and seat B). The base patch returns them unchanged."""
        pool = pool or load_pool()
        (key_a, deck_a), (key_b, deck_b) = sides
        if self.is_base:
            return pool, deck_a, deck_b
        decks = [self.deck(key_a, deck_a, pool), self.deck(key_b, deck_b, pool)]
        keys = (key_a, key_b)
        versions = [
            self.card_versions(pool, {k: {c.id for c, _ in d.entries}}) for k, d in zip(keys, decks)
        ]
        held = [{c.index for c, _ in d.entries} for d in decks]
        cards: list[Card] = []
        # (seat, original index) → the Card that seat's deck holds in the patched pool
        mapping: dict[tuple[int, int], Card] = {}
        for card in pool.cards:
            mine = [
                versions[s].get((keys[s], card.id), card) if card.index in held[s] else None
                for s in (0, 1)
            ]
            first = mine[0] or mine[1] or card
            cards.append(replace(first, index=len(cards)))
            for s in (0, 1):
                mapping[(s, card.index)] = cards[-1]
            if mine[0] is not None and mine[1] is not None and mine[1] != mine[0]:
                # both seats hold the card in two versions: seat B's is a type of its own
                cards.append(replace(mine[1], index=len(cards)))
                mapping[(1, card.index)] = cards[-1]
        patched = CardPool(cards, dict(pool.abilities), pool.sources)
        out = [
            replace(d, entries=tuple((mapping[(s, c.index)], n) for c, n in d.entries))
            for s, d in enumerate(decks)
        ]
        return patched, out[0], out[1]


def check_name(name, what: str) -> str:
    if not isinstance(name, str) or not PATCH_NAME.match(name):
        raise LabError(f"{what} = {name!r} is not allowed; allowed values: {PATCH_NAME_ALLOWED}")
    return name


# ----------------------------------------------------------------------------- the edits API


def set_strength(card: str, strength, *, army: str = "", pool: CardPool | None = None) -> Edit:
    """``card`` (name or id) at ``strength``: 1–10 for units and warlords; a general stays ∞."""
    c = _card(card, pool)
    if not c.is_unit:
        raise LabError(
            f"{c.name} is a {c.kind.name.lower()} and has no strength; set the "
            "strength of a unit, warlord or general"
        )
    if strength in ("inf", "∞"):
        strength = INF
    elif isinstance(strength, bool) or not isinstance(strength, int) or not 1 <= strength <= 10:
        raise LabError(
            f"strength = {strength!r} is not allowed for {c.name}; allowed values: "
            "whole numbers 1–10 (\"inf\" only for a general)"
        )
    if c.kind == Kind.GENERAL and strength != INF:
        raise LabError(
            f"strength = {strength} is not allowed for {c.name}: a general (総大将) "
            "has strength ∞ (rules.md R2); allowed values: \"inf\""
        )
    if c.kind != Kind.GENERAL and strength == INF:
        raise LabError(
            f"strength = \"inf\" is not allowed for {c.name}: ∞ is only for "
            "generals (総大将); allowed values: 1–10"
        )
    return Edit("strength", c.id, strength, army=_army(army))


def set_amount(
    card: str,
    amount: int,
    *,
    ability: str | None = None,
    row: int | None = None,
    army: str = "",
    pool: CardPool | None = None,
) -> Edit:
    """The amount of one effect row of one of ``card``'s abilities (default: its only one)."""
    c = _card(card, pool)
    a = _own_ability(c, ability, "amount")
    if row is None:
        if len(a.rows) != 1:
            raise LabError(
                f"{c.name} 〈{a.name}〉 has {len(a.rows)} effect rows; name one with "
                f"row = 0–{len(a.rows) - 1}"
            )
        row = 0
    if isinstance(row, bool) or not isinstance(row, int) or not 0 <= row < len(a.rows):
        raise LabError(
            f"row = {row!r} is not allowed for {c.name} 〈{a.name}〉; allowed values: "
            f"0–{len(a.rows) - 1}"
        )
    _amount(amount)
    return Edit("amount", c.id, amount, army=_army(army), ability=a.id, row=row)


def ability_off(
    card: str, ability: str | None = None, *, army: str = "", pool: CardPool | None = None
) -> Edit:
    """``card`` without one ability (or, with ``ability`` None or "all", without any): it keeps
    its strength; a tactic without abilities cannot be played, a castle without abilities is
    still built and still counts as a wall."""
    c = _card(card, pool)
    if not c.abilities:
        raise LabError(f"{c.name} has no ability to turn off")
    aid = "" if ability in (None, "all") else _own_ability(c, ability, "off").id
    return Edit("off", c.id, None, army=_army(army), ability=aid)


def add_ability(card: str, ability, *, army: str = "", pool: CardPool | None = None) -> Edit:
    """Give ``card`` an ability: one of the pool's (id, printed name or ``Ability``) or effect
    rows in the vocabulary (tables {trigger, effect, amount, condition} or ``EffectRow``s)."""
    pool = pool or load_pool()
    c = _card(card, pool)
    if isinstance(ability, Ability):
        a = ability
    elif isinstance(ability, str):
        a = _pool_ability(ability, pool)
    else:
        rows = ability if isinstance(ability, (list, tuple)) else [ability]
        if not rows:
            raise LabError("add = []: give an ability of the pool or at least one effect row")
        parsed = tuple(
            r if isinstance(r, EffectRow) else _parse_row(r, f"add[{i}]")
            for i, r in enumerate(rows)
        )
        label = "+".join(".".join(str(x) for x in _row_dict(r).values()) for r in parsed)
        a = Ability(f"added:{label}", f"追加({label})", "", "追加", parsed)
    if any(x.id == a.id for x in c.abilities):
        raise LabError(f"{c.name} already has 〈{a.name}〉")
    check_rows(c, a, c.name)
    return Edit("add", c.id, a, army=_army(army))


def replace_card(army: str, card: str, with_: str, *, pool: CardPool | None = None) -> Edit:
    """Every copy of ``card`` in ``army``'s deck replaced by ``with_``, in its place."""
    if not army:
        raise LabError("a replacement names its army: army = \"<army key>\" (the deck it changes)")
    old, new = _card(card, pool), _card(with_, pool, what="replace")
    return Edit("replace", old.id, new.id, army=_army(army))


# ------------------------------------------------------------------------------- from TOML


def parse_patch(
    table: dict | PatchTable,
    source: str | None = None,
    where: str = "patch",
    pool: CardPool | None = None,
) -> Patch:
    """One patch from its table (the form ``Patch.as_dict`` writes), checked by the schema
    (``lab.schema.experiment.PatchTable``) and then against the pool."""
    pool = pool or load_pool()
    if not isinstance(table, PatchTable):
        name = table.get("name") if isinstance(table, dict) else None
        named = isinstance(name, str) and name != BASE and bool(name)
        table = check(PatchTable, table, source, where=f"patch \"{name}\"" if named else where)
    where = f"patch \"{table.name}\""
    parsed = tuple(_edit(e, source, f"{where} edit[{k}]", pool) for k, e in enumerate(table.edit))
    patch = Patch(table.name, parsed, table.description, table.allow_no_general)
    try:
        patch.check_cards(pool)
    except LabError as e:
        raise LabError(str(e), source=source) from None
    return patch


def _edit(e: EditTable, source, where: str, pool: CardPool) -> Edit:
    """One validated ``[[patch.edit]]`` as an ``Edit`` of the pool's cards."""
    try:
        if e.op == "strength":
            return set_strength(e.card, e.strength, army=e.army, pool=pool)
        if e.op == "amount":
            return set_amount(
                e.card, e.amount, ability=e.ability, row=e.row, army=e.army, pool=pool
            )
        if e.op == "off":
            return ability_off(e.card, "all" if e.off is True else e.off, army=e.army, pool=pool)
        if e.op == "add":
            return add_ability(e.card, e.add, army=e.army, pool=pool)
        return replace_card(e.army, e.card, e.replace, pool=pool)
    except LabError as err:
        raise LabError(f"{where}: {err}", source=source) from None


# ------------------------------------------------------------------------------- internals


def _card(key, pool: CardPool | None, what: str = "card") -> Card:
    pool = pool or load_pool()
    if isinstance(key, Card):
        return key
    if not isinstance(key, str):
        raise LabError(f"{what} = {key!r} is not a card name")
    return pool.get(key)


def _army(army) -> str:
    if not isinstance(army, str):
        raise LabError(f"army = {army!r} is not an army key (e.g. \"takeda\")")
    return army


def _amount(amount) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
        raise LabError(f"amount = {amount!r} is not allowed; allowed values: whole numbers ≥ 0")


def _show(strength) -> str:
    return "inf" if strength == INF else str(strength)


def _own_ability(card: Card, key, op: str) -> Ability:
    if not card.abilities:
        raise LabError(f"{card.name} has no ability")
    if key is None:
        if len(card.abilities) != 1:
            raise LabError(
                f"{card.name} has {len(card.abilities)} abilities; name one with "
                f"ability = \"…\" ({_ability_list(card)})"
            )
        return card.abilities[0]
    for a in card.abilities:
        if key in (a.id, a.name):
            return a
    raise LabError(f"{card.name} has no ability \"{key}\"; its abilities: {_ability_list(card)}")


def _ability_list(card: Card) -> str:
    return ", ".join(f"{a.name} ({a.id})" for a in card.abilities)


def _pool_ability(key: str, pool: CardPool) -> Ability:
    if key in pool.abilities:
        return pool.abilities[key]
    named = [a for a in pool.abilities.values() if a.name == key]
    if len(named) == 1:
        return named[0]
    if named:
        raise LabError(
            f"the ability name \"{key}\" is shared by {', '.join(a.id for a in named)};"
            " name it by id"
        )
    hint = closest(key, list(pool.abilities) + [a.name for a in pool.abilities.values()])
    did = f" — did you mean {', '.join(hint)}?" if hint else ""
    raise LabError(
        f"unknown ability \"{key}\"{did} (the [ability.*] tables of cards.toml; or "
        "give effect rows {trigger, effect, amount, condition})"
    )


def _parse_row(r, where: str) -> EffectRow:
    row = check(EffectRowTable, r, where=where)
    return EffectRow(
        TRIGGER_NAMES[row.trigger],
        EFFECT_NAMES[row.effect],
        row.amount,
        CONDITION_NAMES[row.condition],
    )


def _row_dict(r: EffectRow) -> dict:
    d = {"trigger": r.trigger.name.lower(), "effect": r.effect.name.lower(), "amount": r.amount}
    if r.condition != Condition.NONE:
        d["condition"] = r.condition.name.lower()
    return d


def _edited(card: Card, edits: list[Edit], patch: str) -> Card:
    """``card`` with ``edits`` applied in order, checked against the engine's limits."""
    for e in edits:
        if e.op == "strength":
            card = replace(card, strength=e.value)
        elif e.op == "off":
            card = replace(
                card, abilities=tuple(a for a in card.abilities if e.ability and a.id != e.ability)
            )
        elif e.op == "add":
            if any(a.id == e.value.id for a in card.abilities):
                raise LabError(f"patch \"{patch}\": {card.name} already has 〈{e.value.name}〉")
            card = replace(card, abilities=card.abilities + (e.value,))
        elif e.op == "amount":
            own = [a for a in card.abilities if a.id == e.ability]
            if not own:
                raise LabError(
                    f"patch \"{patch}\": {card.name} no longer has the ability "
                    f"{e.ability} when its amount is set (an earlier edit turned it "
                    "off); reorder or remove an edit"
                )
            a = own[0]
            rows = list(a.rows)
            rows[e.row] = replace(rows[e.row], amount=e.value)
            new = replace(a, rows=tuple(rows))
            card = replace(
                card, abilities=tuple(new if x.id == a.id else x for x in card.abilities)
            )
    if len(card.rows()) > MAX_ABILITY_ROWS:
        raise LabError(
            f"patch \"{patch}\": {card.name} would have {len(card.rows())} effect "
            f"rows; the engine allows {MAX_ABILITY_ROWS} per card — turn an ability "
            "off first"
        )
    return card
