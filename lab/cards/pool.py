"""The card pool and the armies, loaded from data files and checked for the designer.

Owns: reading ``cards.toml`` (and any extra card files, e.g. test-only cards), turning ability
names into the integer codes of ``vocab.py``, reading deck files, and enforcing the deck limits of
rules.md R2 with one-line errors. It compiles nothing for a particular game (the engine does that
from a ``CardPool`` and two ``Deck``s) and never simulates.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from lab.cards.vocab import (CONDITION_NAMES, EFFECT_NAMES, INF, INF_AS_NUMBER, KIND_NAMES,
                             TRIGGER_NAMES, Condition, Effect, Kind, Trigger)
from lab.errors import LabError, closest, read_toml

DATA_DIR = Path(__file__).parent
CARDS_FILE = DATA_DIR / "cards.toml"
DECKS_DIR = DATA_DIR / "decks"

DECK_SIZE = 30
MAX_TACTICS = 4
MAX_CASTLES = 4
BALANCE_TOLERANCE = 0.05  # cards.md: total strength within ±5% of the others
MAX_ABILITY_ROWS = 4  # effect rows per card, all abilities together

# The nine armies in their canonical order (file stem, printed name).
ARMIES = ("oda", "honganji", "saika", "takeda", "mouri", "houjou", "uesugi", "tougun", "seigun")


@dataclass(frozen=True)
class EffectRow:
    trigger: Trigger
    effect: Effect
    amount: int
    condition: Condition

    def codes(self) -> tuple[int, int, int, int]:
        return (int(self.trigger), int(self.effect), self.amount, int(self.condition))


@dataclass(frozen=True)
class Ability:
    id: str
    name: str  # as printed, e.g. 〈築城の名手〉 → "築城の名手"
    text: str
    family: str  # the rulebook family name (謀略 for 関ヶ原の調略); equals name when it heads one
    rows: tuple[EffectRow, ...]


@dataclass(frozen=True)
class Card:
    index: int  # position in the pool: the global card-type id used in tables and records
    id: str
    name: str
    kind: Kind
    strength: int  # 1–10, INF for ∞, 0 for tactics and castles
    person: str  # uniqueness key; "" for ordinary units, tactics and castles
    cost: int  # legacy logistics cost (tactics)
    abilities: tuple[Ability, ...]

    @property
    def is_unit(self) -> bool:
        return self.kind in (Kind.UNIT, Kind.WARLORD, Kind.GENERAL)

    @property
    def strength_label(self) -> str:
        if not self.is_unit:
            return "—"
        return "∞" if self.strength == INF else str(self.strength)

    @property
    def deck_strength(self) -> int:
        """Strength as counted in deck totals: ∞ as 10, tactics and castles as 0 (cards.md)."""
        return INF_AS_NUMBER if self.strength == INF else self.strength

    def rows(self) -> list[EffectRow]:
        return [r for a in self.abilities for r in a.rows]


@dataclass
class CardPool:
    cards: list[Card]
    abilities: dict[str, Ability]
    sources: tuple[str, ...]
    _by_key: dict[str, Card] = field(default_factory=dict, repr=False)

    def __post_init__(self):
        for c in self.cards:
            for key in (c.name, c.id):
                self._by_key[key] = c
                self._by_key.setdefault(normal_name(key), c)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self):
        return iter(self.cards)

    def get(self, key: str, *, source: str | None = None, entry: str | None = None) -> Card:
        """Find a card by printed name or id; unknown names fail with the closest names."""
        card = self._by_key.get(key)
        if card is None:
            card = self._by_key.get(normal_name(key))
        if card is None:
            hint = closest(key, [c.name for c in self.cards] + [c.id for c in self.cards])
            did = f" — did you mean {', '.join(hint)}?" if hint else ""
            where = f"entry \"{entry}\": " if entry else ""
            raise LabError(f"{where}unknown card \"{key}\"{did} (`lab cards` lists the pool)",
                           source=source)
        return card

    def __contains__(self, key: str) -> bool:
        return key in self._by_key

    def tables(self) -> "PoolTables":
        return _tables(self)


def normal_name(text: str) -> str:
    """A typed name as the pool spells it: NFKC folds full-width digits and letters (足軽２ is
    足軽2) and half-width katakana; surrounding spaces go."""
    return unicodedata.normalize("NFKC", text).strip()


@dataclass(frozen=True)
class PoolTables:
    """The pool as numpy arrays, indexed by global card-type id (what the engine compiles from)."""

    strength: np.ndarray  # int64[NT]
    kind: np.ndarray  # int64[NT]
    cost: np.ndarray  # int64[NT]
    rows: np.ndarray  # int64[NT, MAX_ABILITY_ROWS, 4]: trigger, effect, amount, condition (0 = none)


def _tables(pool: CardPool) -> PoolTables:
    n = len(pool.cards)
    strength = np.array([c.strength for c in pool.cards], dtype=np.int64)
    kind = np.array([int(c.kind) for c in pool.cards], dtype=np.int64)
    cost = np.array([c.cost for c in pool.cards], dtype=np.int64)
    rows = np.zeros((n, MAX_ABILITY_ROWS, 4), dtype=np.int64)
    for c in pool.cards:
        for j, r in enumerate(c.rows()):
            rows[c.index, j] = r.codes()
    return PoolTables(strength, kind, cost, rows)


# ------------------------------------------------------------------------------------- loading

def _load_toml(path: Path) -> dict:
    return read_toml(path)


def _code(table: dict, key: str, names: dict, default: str | None, source: str, where: str):
    value = table.get(key, default)
    if value is None:
        raise LabError(f"{where}: missing key \"{key}\" (allowed: {', '.join(names)})", source=source)
    code = names.get(str(value).lower())
    if code is None:
        raise LabError(f"{where}: {key} = \"{value}\" is not one of: {', '.join(names)}",
                       source=source)
    return code


def _parse_abilities(data: dict, source: str, known: dict[str, Ability]) -> dict[str, Ability]:
    out = dict(known)
    for aid, a in data.get("ability", {}).items():
        where = f"[ability.{aid}]"
        if not isinstance(a, dict) or "name" not in a:
            raise LabError(f"{where}: needs a printed `name`", source=source)
        rows = []
        for i, r in enumerate(a.get("effects", [])):
            w = f"{where} effects[{i}]"
            unknown = set(r) - {"trigger", "effect", "amount", "condition"}
            if unknown:
                raise LabError(f"{w}: unknown key(s) {', '.join(sorted(unknown))} "
                               "(allowed: trigger, effect, amount, condition)", source=source)
            amount = r.get("amount", 0)
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
                raise LabError(f"{w}: amount must be a whole number ≥ 0, got {amount!r}",
                               source=source)
            rows.append(EffectRow(_code(r, "trigger", TRIGGER_NAMES, None, source, w),
                                  _code(r, "effect", EFFECT_NAMES, None, source, w),
                                  amount,
                                  _code(r, "condition", CONDITION_NAMES, "none", source, w)))
        out[aid] = Ability(aid, a["name"], a.get("text", ""), a.get("family", a["name"]),
                           tuple(rows))
    return out


_CARD_KEYS = {"id", "name", "kind", "strength", "person", "abilities", "cost"}


def _parse_cards(data: dict, source: str, abilities: dict[str, Ability], start: int,
                 taken: dict[str, str]) -> list[Card]:
    cards = []
    for i, c in enumerate(data.get("cards", [])):
        where = f"cards[{i}]" + (f" \"{c.get('name')}\"" if isinstance(c, dict) else "")
        if not isinstance(c, dict):
            raise LabError(f"{where}: each card is a table {{ id, name, kind, … }}", source=source)
        unknown = set(c) - _CARD_KEYS
        if unknown:
            raise LabError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} "
                           f"(allowed: {', '.join(sorted(_CARD_KEYS))})", source=source)
        for key in ("id", "name", "kind"):
            if key not in c:
                raise LabError(f"{where}: missing key \"{key}\"", source=source)
        for key in (c["id"], c["name"]):
            if key in taken:
                raise LabError(f"{where}: \"{key}\" is already used by {taken[key]}; ids and "
                               "names must be unique", source=source)
        kind = _code(c, "kind", KIND_NAMES, None, source, where)
        is_unit = kind in (Kind.UNIT, Kind.WARLORD, Kind.GENERAL)
        raw = c.get("strength")
        if is_unit:
            if raw == "inf" or raw == "∞":
                strength = INF
            elif isinstance(raw, int) and not isinstance(raw, bool) and 1 <= raw <= 10:
                strength = raw
            else:
                raise LabError(f"{where}: strength must be 1–10 or \"inf\", got {raw!r}",
                               source=source)
            if kind == Kind.GENERAL and strength != INF:
                raise LabError(f"{where}: a general (総大将) has strength \"inf\"", source=source)
        else:
            if raw is not None:
                raise LabError(f"{where}: a {c['kind']} has no strength; remove `strength`",
                               source=source)
            strength = 0
        cost = c.get("cost", 0)
        if isinstance(cost, bool) or not isinstance(cost, int) or cost < 0:
            raise LabError(f"{where}: cost must be a whole number ≥ 0, got {cost!r}",
                           source=source)
        person = c.get("person", "")
        if kind in (Kind.WARLORD, Kind.GENERAL) and not person:
            person = c["id"]
        abil = []
        for aid in c.get("abilities", []):
            if aid not in abilities:
                hint = closest(aid, abilities)
                did = f" — did you mean {', '.join(hint)}?" if hint else ""
                raise LabError(f"{where}: unknown ability \"{aid}\"{did}", source=source)
            abil.append(abilities[aid])
        card = Card(start + len(cards), c["id"], c["name"], kind, strength, person,
                    cost, tuple(abil))
        if len(card.rows()) > MAX_ABILITY_ROWS:
            raise LabError(f"{where}: at most {MAX_ABILITY_ROWS} effect rows per card",
                           source=source)
        taken[c["id"]] = taken[c["name"]] = f"{source} {where}"
        cards.append(card)
    return cards


def load_pool(extra: tuple[str | Path, ...] = ()) -> CardPool:
    """The default pool, plus any extra card files (which may define abilities and cards)."""
    return _load_pool(tuple(str(p) for p in extra))


@lru_cache(maxsize=8)
def _load_pool(extra: tuple[str, ...]) -> CardPool:
    abilities: dict[str, Ability] = {}
    cards: list[Card] = []
    taken: dict[str, str] = {}
    sources = (str(CARDS_FILE),) + extra
    for src in sources:
        data = _load_toml(Path(src))
        unknown = set(data) - {"cards", "ability"}
        if unknown:
            raise LabError(f"unknown key(s) or table(s) {', '.join(sorted(unknown))} (a card "
                           "file holds cards = [ … ] and [ability.ID] tables)", source=src)
        abilities = _parse_abilities(data, src, abilities)
        cards += _parse_cards(data, src, abilities, len(cards), taken)
    return CardPool(cards, abilities, sources)


# --------------------------------------------------------------------------------------- decks

@dataclass(frozen=True)
class Deck:
    key: str  # file stem, e.g. "oda"
    name: str  # printed army name, e.g. "織田"
    description: str
    path: str
    entries: tuple[tuple[Card, int], ...]  # in file order

    @property
    def size(self) -> int:
        return sum(n for _, n in self.entries)

    @property
    def total_strength(self) -> int:
        return sum(c.deck_strength * n for c, n in self.entries)

    def card_indices(self) -> list[int]:
        """One global card-type id per copy, in file order."""
        return [c.index for c, n in self.entries for _ in range(n)]

    def general(self) -> Card | None:
        gens = [c for c, _ in self.entries if c.kind == Kind.GENERAL]
        return gens[0] if gens else None

    def strength_curve(self) -> dict[str, int]:
        curve = {str(s): 0 for s in range(1, 11)} | {"∞": 0, "軍略": 0, "城": 0}
        for c, n in self.entries:
            if c.kind == Kind.TACTIC:
                curve["軍略"] += n
            elif c.kind == Kind.CASTLE:
                curve["城"] += n
            else:
                curve[c.strength_label] += n
        return curve


def validate_deck(deck: Deck, size: int | None = DECK_SIZE) -> None:
    """Enforce rules.md R2 (uniques, one general, ≤4 tactics, ≤4 castles) and the deck size."""
    src = deck.path
    seen: dict[str, str] = {}
    for card, n in deck.entries:
        if card.person:
            if n > 1:
                raise LabError(f"entry \"{card.name}\" = {n}: {card.name} is unique (one per deck); "
                               "set it to 1", source=src)
            if card.person in seen:
                raise LabError(f"entry \"{card.name}\": the same person as \"{seen[card.person]}\" "
                               "— one card per person per deck; remove one of them", source=src)
            seen[card.person] = card.name
    gens = [c.name for c, _ in deck.entries if c.kind == Kind.GENERAL]
    if len(gens) != 1:
        have = f"has {len(gens)} ({', '.join(gens)})" if gens else "has none"
        raise LabError(f"a deck needs exactly one general (総大将); it {have} — "
                       "keep exactly one", source=src)
    for kind, limit, label in ((Kind.TACTIC, MAX_TACTICS, "tactics (軍略)"),
                               (Kind.CASTLE, MAX_CASTLES, "castles (城)")):
        got = [(c.name, n) for c, n in deck.entries if c.kind == kind]
        total = sum(n for _, n in got)
        if total > limit:
            names = ", ".join(f"{c}×{n}" for c, n in got)
            raise LabError(f"{total} {label} ({names}); at most {limit} per deck — "
                           f"remove {total - limit}", source=src)
    if size is not None and deck.size != size:
        diff = deck.size - size
        fix = f"remove {diff}" if diff > 0 else f"add {-diff}"
        raise LabError(f"the deck has {deck.size} cards; a deck has exactly {size} — {fix}",
                       source=src)


def load_deck(path: str | Path, pool: CardPool | None = None, *,
              size: int | None = DECK_SIZE) -> Deck:
    pool = pool or load_pool()
    path = Path(path)
    src = str(path)
    data = _load_toml(path)
    unknown = set(data) - {"name", "description", "cards"}
    if unknown:
        raise LabError(f"unknown key(s) {', '.join(sorted(unknown))} "
                       "(allowed: name, description, [cards])", source=src)
    table = data.get("cards")
    if not isinstance(table, dict) or not table:
        raise LabError("needs a [cards] table of card name = copies", source=src)
    merged: dict[int, list] = {}
    for key, n in table.items():
        card = pool.get(key, source=src, entry=key)
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise LabError(f"entry \"{key}\": copies must be a whole number ≥ 1, got {n!r}",
                           source=src)
        if card.index in merged:
            raise LabError(f"entry \"{key}\": {card.name} is listed twice (as "
                           f"\"{merged[card.index][2]}\" too); list it once", source=src)
        merged[card.index] = [card, n, key]
    deck = Deck(path.stem, data.get("name", path.stem), data.get("description", ""), src,
                tuple((c, n) for c, n, _ in merged.values()))
    validate_deck(deck, size)
    return deck


def army_path(name: str) -> Path:
    """Find an army by file stem (oda), printed name (織田) or path."""
    p = Path(name)
    if p.suffix == ".toml" and p.exists():
        return p
    if p.suffix == ".toml" or len(p.parts) > 1:
        raise LabError("deck file not found (an army is a key such as oda, a printed name such "
                       "as 織田, or the path of a deck .toml file)", source=name)
    name = normal_name(name)
    for stem in _army_stems():
        path = DECKS_DIR / f"{stem}.toml"
        if name == stem or name == _army_name(path):
            return path
    names = [f"{s} ({_army_name(DECKS_DIR / f'{s}.toml')})" for s in _army_stems()]
    raise LabError(f"unknown army \"{name}\"; armies: {', '.join(names)}, or a path to a deck file")


def _army_stems() -> list[str]:
    found = sorted(p.stem for p in DECKS_DIR.glob("*.toml"))
    return [a for a in ARMIES if a in found] + [s for s in found if s not in ARMIES]


@lru_cache(maxsize=64)
def _army_name(path: Path) -> str:
    return _load_toml(path).get("name", path.stem)


def load_army(name: str, pool: CardPool | None = None) -> Deck:
    return load_deck(army_path(name), pool)


def load_armies(pool: CardPool | None = None) -> list[Deck]:
    pool = pool or load_pool()
    return [load_deck(DECKS_DIR / f"{s}.toml", pool) for s in _army_stems()]


def balance_warnings(decks: list[Deck], tolerance: float = BALANCE_TOLERANCE) -> list[str]:
    """Decks whose total strength is more than ±tolerance off the mean of the others."""
    out = []
    for d in decks:
        others = [o.total_strength for o in decks if o is not d]
        if not others:
            continue
        ref = sum(others) / len(others)
        off = (d.total_strength - ref) / ref
        if abs(off) > tolerance:
            out.append(f"{d.path}: total strength {d.total_strength} is {off:+.1%} off the other "
                       f"decks' mean {ref:.1f} (allowed ±{tolerance:.0%}) — rebalance its units")
    return out
