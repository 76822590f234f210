"""大天下's cards as the design questions edit them (``GameEntry.card_design()``, the protocol's
``CardDesign``): ``lab value``'s arms, ``lab swap``'s patch, ``lab balance``'s edit catalogue
(``cards.edits``) and its paste-ready TOML, and the experiment playing a set of patches. The
design layer (``lab.design``) plans, runs and reads the runs through this object and names no
card itself.

``lab value``'s arms, for every card type of an army (or those named):

- **ability_off**: the card keeps its strength and loses every ability (``ability_off``);
- **above_vanilla**: every copy replaced by a vanilla 足軽 of the nearest strength — a unit or
  warlord of strength s by 足軽s, a general (∞) by 足軽10, a tactic or castle by the army's
  weakest vanilla 足軽 (足軽1 if it holds none).

For a unit or warlord of strength 1–10 the two contrasts are one and the same deck in play (the
engine reads no kind beyond unit / tactic / castle and nothing of a card but its strength and
ability rows), so one arm answers both rows. A 足軽 itself gets no arm: it has no ability and is
its own vanilla.
"""

from __future__ import annotations

from lab.errors import closest, did_you_mean, LabError
from lab.games.daitenka.bots.match import parse_bot
from lab.games.daitenka.cards import edits
from lab.games.daitenka.cards.patch import Patch, ability_off, replace_card
from lab.games.daitenka.cards.pool import Card, Deck, vanilla_id
from lab.games.daitenka.cards.vocab import INF, Kind
from lab.games.daitenka.experiment import BASE_PATCH, Experiment, Tier, with_patches
from lab.games.protocol import ABILITY_OFF, ABOVE_VANILLA, CardSwap, ValueArm
from lab.schema.experiment import slug


class CardDesign:
    """The protocol's ``CardDesign`` for 大天下."""

    BASE_PATCH = BASE_PATCH

    def with_patches(self, exp: Experiment, patches, patched_matchups=None) -> Experiment:
        return with_patches(exp, patches, patched_matchups=patched_matchups)

    def patch(self, name: str, edits) -> Patch:
        return Patch(name, tuple(edits))

    def value_arms(self, exp: Experiment, cards: list[str] | None) -> dict[str, list[ValueArm]]:
        pool = exp.pool()
        decks = {a.key: a.deck() for a in exp.armies}
        wanted = _value_cards(cards, decks, pool, exp.source) if cards else None
        return {army: arms_of(army, deck, wanted, pool) for army, deck in decks.items()}

    def swap(self, exp: Experiment, card: str, replacement: str, army: str | None) -> CardSwap:
        return swap(exp, card, replacement, army)

    def edit_catalogue(
        self, exp: Experiment, keep=None, cards=None, deck_lists: bool = False, abilities=True
    ) -> tuple[edits.Move, ...]:
        decks = {a.key: a.deck() for a in exp.armies}
        names = {a.key: a.name for a in exp.armies}
        pool = exp.pool()
        wanted = edits.card_ids(cards, decks, pool) if cards else None
        return edits.catalogue(
            decks,
            names,
            keep=keep,
            cards=wanted,
            pool=pool,
            deck_lists=deck_lists,
            abilities=abilities,
        )

    def patch_toml(self, moves, name: str, description: str, exp: Experiment) -> str:
        return edits.patch_toml(moves, name, description, exp.pool())

    def bot_tier(self, spec, source: str) -> Tier:
        bot = parse_bot(spec, source=source)
        return Tier(bot, bot)


# ------------------------------------------------------------------------------------ lab value


def vanilla(card: Card, deck: Deck, pool) -> Card:
    """The vanilla 足軽 of the nearest strength (the above_vanilla replacement)."""
    if card.is_unit:
        return pool.get(vanilla_id(10 if card.strength == INF else card.strength))
    plain = [c for c, _ in deck.entries if c.kind == Kind.UNIT and not c.abilities]
    return min(plain, key=lambda c: c.strength) if plain else pool.get(vanilla_id(1))


def arms_of(army: str, deck: Deck, cards: set[str] | None, pool) -> list[ValueArm]:
    """The arms of one army's cards (those in ``cards`` when given), in deck order."""
    out = []
    for card, n in deck.entries:
        if cards is not None and card.id not in cards:
            continue
        if card.kind == Kind.UNIT and not card.abilities:
            continue  # a 足軽: no ability to turn off, and its own vanilla
        plain = vanilla(card, deck, pool)
        if card.abilities:
            off = Patch(
                f"{army}:{card.id}:off",
                (ability_off(card.id, army=army, pool=pool),),
                f"{card.name} without its abilities in {deck.name}",
            )
            both = card.is_unit and card.strength != INF  # off is its vanilla: one arm
            out.append(
                ValueArm(
                    off,
                    army,
                    card,
                    n,
                    ((ABILITY_OFF, ""),) + (((ABOVE_VANILLA, plain.name),) if both else ()),
                )
            )
            if both:
                continue
        swap = Patch(
            f"{army}:{card.id}:vanilla",
            (replace_card(army, card.id, plain.id, pool=pool),),
            f"{card.name} → {plain.name} in {deck.name}",
            allow_no_general=card.kind == Kind.GENERAL,
        )
        out.append(ValueArm(swap, army, card, n, ((ABOVE_VANILLA, plain.name),)))
    return out


def _value_cards(names: list[str], decks: dict[str, Deck], pool, source: str) -> set[str]:
    held = {c.id: c for d in decks.values() for c, _ in d.entries}
    out = set()
    for name in names:
        if name not in pool:
            held_names = [c.name for c in held.values()] + list(held)
            did = did_you_mean(name, held_names)
            raise LabError(
                f"--cards: unknown card \"{name}\"; {did}(`lab decks ARMY` lists a deck's cards)"
            )
        card = pool.get(name)
        if card.id not in held:
            hint = closest(card.name, [c.name for c in held.values()])
            did = f"; cards they hold that look alike: {', '.join(hint)}" if hint else ""
            raise LabError(
                f"--cards: no army of {source} holds {card.name} (armies: {', '.join(decks)}){did}"
            )
        out.add(card.id)
    return out


# ------------------------------------------------------------------------------------- lab swap


def swap(exp: Experiment, card: str, replacement: str, army: str | None = None) -> CardSwap:
    """The patch replacing ``card`` by ``replacement``, copy for copy and in place, in every
    army of ``exp`` that holds it — or, with ``army`` (a key or printed name), in that army's
    deck only. One-line errors: an unknown card (with suggestions), no army holding the card,
    an army not in the config or not holding the card."""
    pool = exp.pool()
    old = pool.get(card, source="--card")
    new = pool.get(replacement, source="--with")
    held = {a.key: sum(k for c, k in a.deck().entries if c.index == old.index) for a in exp.armies}
    if not any(held.values()):
        raise LabError(
            f"--card {old.name}: no army of {exp.source} holds it (armies: "
            f"{', '.join(a.key for a in exp.armies)}); pick a card one of them "
            "holds (`lab decks ARMY` lists a deck)"
        )
    only = _army(exp, army, old, held) if army is not None else None
    copies = {k: n for k, n in held.items() if n and only in (None, k)}
    unaffected = tuple(k for k in held if k not in copies)
    kept = tuple(k for k in unaffected if held[k])
    name = f"{slug(old.name)}→{slug(new.name)}"
    patch = Patch(
        f"{only}:{name}" if only else name,
        tuple(replace_card(a, old.id, new.id, pool=pool) for a in copies),
        f"{old.name} → {new.name} in {', '.join(copies)}",
    )
    return CardSwap(old, new, patch, copies, unaffected, only, kept)


def _army(exp: Experiment, name: str, card: Card, held: dict[str, int]) -> str:
    """The key of ``--army`` (a key or printed name) among the config's armies, holding the
    card."""
    keys = {a.key: a.key for a in exp.armies} | {a.name: a.key for a in exp.armies}
    if name not in keys:
        did = did_you_mean(name, keys)
        raise LabError(
            f"--army \"{name}\" is not an army of {exp.source}; {did}armies: "
            f"{', '.join(a.key for a in exp.armies)}"
        )
    key = keys[name]
    if not held[key]:
        holders = ", ".join(k for k, n in held.items() if n)
        raise LabError(
            f"--army {name}: its deck holds no {card.name} (armies holding it: {holders})"
        )
    return key


DESIGN = CardDesign()
