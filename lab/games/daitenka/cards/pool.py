"""The card pool and the armies, loaded from data files and checked for the designer.

Owns: building the pool from ``cards.toml`` and any extra card files of the user's (carried as
data, ``CardSource``, so a worker needs no file; every file checked alike: its format by
``lab.games.daitenka.schema.cards``, then names unique across files, known abilities, the engine's row limit),
turning ability names into the integer codes of ``vocab.py``, reading deck files, and enforcing
the deck limits of rules.md R2 with one-line errors. It compiles nothing for a particular game (the engine does that
from a ``CardPool`` and two ``Deck``s) and never simulates.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from lab.games.daitenka.cards.vocab import (
    CASTLE,
    CONDITION_NAMES,
    EFFECT_NAMES,
    INF,
    INF_AS_NUMBER,
    KIND_NAMES,
    TACTIC,
    TRIGGER_NAMES,
    UNIT,
    Condition,
    Effect,
    Kind,
    Trigger,
    unsupported,
)
from lab.errors import LabError, closest, parse_toml, read_text, read_toml
from lab.schema.base import check
from lab.games.daitenka.schema.cards import CardFile, DeckFile

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

    @property
    def kind_class(self) -> str:
        """unit, tactic or castle: what the engine's support table (vocab.SUPPORT) asks."""
        return {Kind.TACTIC: TACTIC, Kind.CASTLE: CASTLE}.get(self.kind, UNIT)

    def rows(self) -> list[EffectRow]:
        return [r for a in self.abilities for r in a.rows]


def vanilla_id(strength: int) -> str:
    """The id of the vanilla 足軽 of ``strength`` (1–10): ``lab value``'s replacement and the
    deck-list edits' cards."""
    return f"ashigaru{strength}"


def check_rows(card: Card, ability: Ability, where: str, source: str | None = None) -> None:
    """Refuse an ability row the engine would not run on this card (vocab.SUPPORT): one line
    naming the card, the ability and its row, and what is supported."""
    for j, r in enumerate(ability.rows):
        why = unsupported(card.kind_class, r.trigger, r.effect, r.condition)
        if why:
            raise LabError(f"{where}: 〈{ability.name}〉 row {j}: {why}", source=source)


@dataclass
class CardPool:
    cards: list[Card]
    abilities: dict[str, Ability]
    sources: tuple[str, ...]
    extra: tuple = ()  # the CardSource of the extra card files (see pool_from)
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
            raise LabError(
                f"{where}unknown card \"{key}\"{did} (`lab cards` lists the pool; "
                "a card of your own card file needs --cards FILE, or extra_cards = "
                "\"FILE\" in an experiment config)",
                source=source,
            )
        return card

    def __contains__(self, key: str) -> bool:
        return key in self._by_key

    def tables(self) -> "PoolTables":
        return _tables(self)

    @cached_property
    def digest(self) -> str:
        """A hash of every card's data (an edited card file is another experiment)."""
        data = [
            (
                c.id,
                c.name,
                int(c.kind),
                c.strength,
                c.person,
                c.cost,
                [(a.id, a.name, a.family, [r.codes() for r in a.rows]) for a in c.abilities],
            )
            for c in self.cards
        ]
        return hashlib.sha256(json.dumps(data, ensure_ascii=False).encode()).hexdigest()[:16]


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
    rows: (
        np.ndarray
    )  # int64[NT, MAX_ABILITY_ROWS, 4]: trigger, effect, amount, condition (0 = none)


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


def _parse_abilities(data: CardFile, known: dict[str, Ability]) -> dict[str, Ability]:
    out = dict(known)
    for aid, a in data.ability.items():
        rows = tuple(
            EffectRow(
                TRIGGER_NAMES[r.trigger],
                EFFECT_NAMES[r.effect],
                r.amount,
                CONDITION_NAMES[r.condition],
            )
            for r in a.effects
        )
        out[aid] = Ability(aid, a.name, a.text, a.family or a.name, rows)
    return out


def _parse_cards(
    data: CardFile, source: str, abilities: dict[str, Ability], start: int, taken: dict[str, str]
) -> list[Card]:
    """The cards of one validated file, checked against the pool so far (names, abilities)."""
    cards = []
    for i, c in enumerate(data.cards):
        where = f"cards[{i}] \"{c.name}\""
        for key in (c.id, c.name):
            if key in taken:
                raise LabError(
                    f"{where}: \"{key}\" is already used by {taken[key]}; ids and "
                    "names must be unique",
                    source=source,
                )
        kind = KIND_NAMES[c.kind]
        strength = INF if c.strength in ("inf", "∞") else (c.strength or 0)
        person = c.person or (c.id if kind in (Kind.WARLORD, Kind.GENERAL) else "")
        abil = []
        for aid in c.abilities:
            if aid not in abilities:
                hint = closest(aid, abilities)
                did = f" — did you mean {', '.join(hint)}?" if hint else ""
                raise LabError(f"{where}: unknown ability \"{aid}\"{did}", source=source)
            abil.append(abilities[aid])
        card = Card(start + len(cards), c.id, c.name, kind, strength, person, c.cost, tuple(abil))
        for a in card.abilities:
            check_rows(card, a, where, source)
        if len(card.rows()) > MAX_ABILITY_ROWS:
            raise LabError(
                f"{where}: at most {MAX_ABILITY_ROWS} effect rows per card", source=source
            )
        taken[c.id] = taken[c.name] = f"{source} {where}"
        cards.append(card)
    return cards


# The extra card files of a pool as data: (file name, TOML text) of each. An experiment carries
# this, not the paths, so a worker on another machine builds the same pool.
CardSource = tuple[tuple[str, str], ...]


def read_card_files(paths) -> CardSource:
    """The extra card files ``paths`` as data (one-line error for an unreadable file)."""
    return tuple((str(p), read_text(p, "a card .toml file")) for p in paths)


def load_pool(extra: tuple[str | Path, ...] = ()) -> CardPool:
    """The default pool, plus any extra card files (which may define abilities and cards)."""
    return pool_from(read_card_files(extra))


@lru_cache(maxsize=8)
def pool_from(extra: CardSource = ()) -> CardPool:
    """The package's cards, then the cards of each extra file, each file checked alike."""
    abilities: dict[str, Ability] = {}
    cards: list[Card] = []
    taken: dict[str, str] = {}
    for src, text in ((str(CARDS_FILE), _package_cards()),) + tuple(extra):
        data = check(CardFile, parse_toml(text, src), src)
        abilities = _parse_abilities(data, abilities)
        cards += _parse_cards(data, src, abilities, len(cards), taken)
    return CardPool(cards, abilities, (str(CARDS_FILE),) + tuple(s for s, _ in extra), tuple(extra))


@lru_cache(maxsize=1)
def _package_cards() -> str:
    return read_text(CARDS_FILE)


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
                raise LabError(
                    f"entry \"{card.name}\" = {n}: {card.name} is unique (one per deck); "
                    "set it to 1",
                    source=src,
                )
            if card.person in seen:
                raise LabError(
                    f"entry \"{card.name}\": the same person as \"{seen[card.person]}\" "
                    "— one card per person per deck; remove one of them",
                    source=src,
                )
            seen[card.person] = card.name
    gens = [c.name for c, _ in deck.entries if c.kind == Kind.GENERAL]
    if len(gens) != 1:
        have = f"has {len(gens)} ({', '.join(gens)})" if gens else "has none"
        raise LabError(
            f"a deck needs exactly one general (総大将); it {have} — keep exactly one", source=src
        )
    for kind, limit, label in (
        (Kind.TACTIC, MAX_TACTICS, "tactics (軍略)"),
        (Kind.CASTLE, MAX_CASTLES, "castles (城)"),
    ):
        got = [(c.name, n) for c, n in deck.entries if c.kind == kind]
        total = sum(n for _, n in got)
        if total > limit:
            names = ", ".join(f"{c}×{n}" for c, n in got)
            raise LabError(
                f"{total} {label} ({names}); at most {limit} per deck — remove {total - limit}",
                source=src,
            )
    if size is not None and deck.size != size:
        diff = deck.size - size
        fix = f"remove {diff}" if diff > 0 else f"add {-diff}"
        raise LabError(
            f"the deck has {deck.size} cards; a deck has exactly {size} — {fix}", source=src
        )


def load_deck(
    path: str | Path, pool: CardPool | None = None, *, size: int | None = DECK_SIZE
) -> Deck:
    return deck_from(_load_toml(Path(path)), path, pool, size=size)


def deck_from(
    data: dict, path: str | Path, pool: CardPool | None = None, *, size: int | None = DECK_SIZE
) -> Deck:
    """A deck from the content of its file (``path`` names it and gives its key)."""
    pool = pool or load_pool()
    path = Path(path)
    src = str(path)
    data = check(DeckFile, data, src)
    merged: dict[int, list] = {}
    for key, n in data.cards.items():
        card = pool.get(key, source=src, entry=key)
        if card.index in merged:
            raise LabError(
                f"entry \"{key}\": {card.name} is listed twice (as "
                f"\"{merged[card.index][2]}\" too); list it once",
                source=src,
            )
        merged[card.index] = [card, n, key]
    deck = Deck(
        path.stem,
        data.name or path.stem,
        data.description,
        src,
        tuple((c, n) for c, n, _ in merged.values()),
    )
    validate_deck(deck, size)
    return deck


def army_path(name: str) -> Path:
    """Find an army by file stem (oda), printed name (織田) or path."""
    p = Path(name)
    if p.suffix == ".toml" and p.exists():
        return p
    if p.suffix == ".toml" or len(p.parts) > 1:
        raise LabError(
            "deck file not found (an army is a key such as oda, a printed name such "
            "as 織田, or the path of a deck .toml file)",
            source=name,
        )
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
            out.append(
                f"{d.path}: total strength {d.total_strength} is {off:+.1%} off the other "
                f"decks' mean {ref:.1f} (allowed ±{tolerance:.0%}) — rebalance its units"
            )
    return out


def strength_warning(deck: Deck, armies: list[Deck]) -> str | None:
    """The balance warning of `lab decks --check` for a deck file, or None."""
    mean = sum(d.total_strength for d in armies) / len(armies)
    off = (deck.total_strength - mean) / mean
    if abs(off) <= BALANCE_TOLERANCE:
        return None
    return (
        f"{deck.path}: total strength {deck.total_strength} is {off:+.1%} off the "
        f"{len(armies)} armies' mean {mean:.1f} (allowed ±{BALANCE_TOLERANCE:.0%}) — "
        "rebalance its units"
    )
