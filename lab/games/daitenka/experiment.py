"""大天下's experiment configs: the data of a TOML file (read by ``lab.sim.config``) checked and
resolved into an Experiment.

The file's keys and value types are declared in ``lab.games.daitenka.schema.experiment`` (one-line errors from
its adapter); this module owns what needs the cards, armies and rules — resolving them — and the
resolved, hashable ``Experiment`` the runner (through the entry), the plan and the worker work
from: the rule variants (presets × the product of the ``[grid]`` toggles, ``[overrides]``
applied to all), the armies and their matchups, the bot tiers, and the record-determining fingerprint that ``--resume``
compares. It plays nothing and writes nothing.

Keys: ``name`` (default: the file name), ``seed`` and ``games`` (deals per cell) are whole numbers;
``rules`` is a preset or a list of presets; ``[overrides]`` and ``[grid]`` hold rules toggles (a
grid value is a list); ``armies`` is "all", a list of armies (a round robin of ordered pairs,
mirrors included) or a list of [seat A, seat B] pairs; ``bots`` is one bot for both seats or
[seat A, seat B]; ``tiers`` is a list of such entries; ``seat_swap`` plays each deal twice with the
armies exchanged; ``chunk_size`` is the most games one chunk (one Parquet file) holds;
``extra_cards`` are card files of the user's, carried as data (``lab.games.daitenka.cards.pool.CardSource``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields, replace
from pathlib import Path

from functools import lru_cache

from lab.games.daitenka.bots.match import BotSpec, parse_bot
from lab.games.daitenka.cards.patch import BASE, Patch, parse_patch
from lab.games.daitenka.cards.pool import (
    ARMIES,
    CardPool,
    CardSource,
    Deck,
    deck_from,
    load_army,
    pool_from,
    read_card_files,
)
from lab.errors import did_you_mean, LabError, parse_toml, read_text
from lab.games.daitenka.rules import PRESETS, RuleSet
from lab.schema.base import check
from lab.games.daitenka.schema.experiment import ExperimentFile
from lab.sim.config import check_games_option
from lab.schema.grid import check_grid, expand_grid

BASE_PATCH = Patch(BASE)
PATCH_SEPARATOR = "@"  # variant id of a patched variant: RULES@PATCH (rules id, patch name)
# which matchups a patched variant plays: "all" (those its patch leaves unchanged are copied from
# the first variant that plays them, so every variant holds every matchup) or "affected" (only
# the matchups holding a patched army: lab value, screening many patches)
PATCHED_MATCHUPS = ("all", "affected")
DEFAULT_BOTS = "heuristic"
TOGGLES = tuple(f.name for f in fields(RuleSet))


@dataclass(frozen=True)
class Army:
    key: str  # deck file stem: "oda"; the key records and seeds use
    name: str  # printed name: "織田"
    path: str  # the deck file
    builtin: bool  # one of the nine armies shipped with the lab
    digest: str  # hash of the deck's card list (an edited deck is another experiment)
    cards: CardSource = ()  # the experiment's extra card files, as data (see lab.games.daitenka.cards.pool)
    text: str = ""  # a deck file's content (not builtin): a worker needs no copy of the file

    def deck(self) -> Deck:
        return _army_deck(self)

    def pool(self) -> CardPool:
        """The card pool this army's deck is read with (the package's and the extra cards)."""
        return pool_from(self.cards)


@lru_cache(maxsize=64)
def _army_deck(army: Army) -> Deck:
    if army.builtin:
        return load_army(army.key, army.pool())
    return deck_from(parse_toml(army.text, army.path), army.path, army.pool())


def deck_digest(deck: Deck) -> str:
    """A hash of a deck's card list, in order."""
    return hashlib.sha256("|".join(f"{c.id}×{n}" for c, n in deck.entries).encode()).hexdigest()[
        :16
    ]


def variant_id(rules: RuleSet, patch: Patch) -> str:
    """The ``variant`` of the records: the rule set id, plus ``@PATCH`` when patched."""
    return rules.id if patch.is_base else f"{rules.id}{PATCH_SEPARATOR}{patch.name}"


@dataclass(frozen=True)
class Tier:
    """A bot pairing: the bot in seat A and the bot in seat B (a seat swap moves the armies,
    not the bots)."""

    a: BotSpec
    b: BotSpec

    @property
    def label(self) -> str:
        return f"{self.a.label}-vs-{self.b.label}"


@dataclass(frozen=True)
class Experiment:
    name: str
    source: str
    seed: int
    games: int  # deals per cell; a cell holds 2 × games games when seat_swap is on
    seat_swap: bool
    chunk_size: int
    variants: tuple[RuleSet, ...]
    armies: tuple[Army, ...]
    matchups: tuple[tuple[str, str], ...]  # (army in seat A, army in seat B) as listed
    tiers: tuple[Tier, ...]
    patches: tuple[Patch, ...] = (BASE_PATCH,)
    patched_matchups: str = "all"
    cards: CardSource = ()  # extra card files (extra_cards, --cards), as data
    # the registered game (lab.games); a class attribute, not a field, so that 大天下's
    # resolved config and fingerprint stay what they were before games were registered
    game = "daitenka"

    def pool(self) -> CardPool:
        """The card pool: the package's cards, then those of the extra card files."""
        return pool_from(self.cards)

    def army(self, key: str) -> Army:
        return next(a for a in self.armies if a.key == key)

    def affected(self, patch: Patch) -> frozenset[str]:
        """The armies whose cards ``patch`` changes (their matchups play differently)."""
        return _affected(patch, self.armies)

    def plays(self, patch: Patch, matchup: tuple[str, str]) -> bool:
        """Whether the cells of ``patch`` hold ``matchup`` at all ("affected" mode drops the
        matchups a patch leaves unchanged)."""
        return (
            patch.is_base
            or self.patched_matchups == "all"
            or bool(self.affected(patch) & set(matchup))
        )

    @property
    def orders(self) -> int:
        """Seat orders each deal is played in: 2 with seat_swap, else 1."""
        return 2 if self.seat_swap else 1

    @property
    def n_cells(self) -> int:
        per_rules = sum(self.plays(p, m) for p in self.patches for m in self.matchups)
        return len(self.variants) * len(self.tiers) * per_rules

    @property
    def total_games(self) -> int:
        return self.n_cells * self.games * self.orders

    def resolved(self) -> dict:
        """The full resolved config, as manifest.json records it (JSON-ready)."""
        return {
            "name": self.name,
            "source": self.source,
            "seed": self.seed,
            "games": self.games,
            "seat_swap": self.seat_swap,
            "chunk_size": self.chunk_size,
            "variants": [{"id": v.id, "rules": v.as_dict()} for v in self.variants],
            "armies": [
                {
                    "key": a.key,
                    "name": a.name,
                    "path": None if a.builtin else a.path,
                    "digest": a.digest,
                }
                for a in self.armies
            ],
            "matchups": [list(m) for m in self.matchups],
            # the pool's identity, and the extra files themselves so a replay can rebuild it
            "cards": {
                "digest": self.pool().digest,
                "extra": [{"file": f, "toml": text} for f, text in self.cards],
            },
            "tiers": [
                {"label": t.label, "a": bot_dict(t.a), "b": bot_dict(t.b)} for t in self.tiers
            ],
            # only when patched, so an unpatched experiment keeps its fingerprint
            **(
                {"patches": [p.as_dict() for p in self.patches]}
                if self.patches != (BASE_PATCH,)
                else {}
            ),
            **(
                {"patched_matchups": self.patched_matchups}
                if self.patched_matchups != "all"
                else {}
            ),
        }

    def fingerprint(self) -> str:
        """A hash of everything that decides the records (not the name or the file path)."""
        data = {k: v for k, v in self.resolved().items() if k not in ("name", "source")}
        for a in data["armies"]:
            a.pop("path")
        data["cards"] = data["cards"]["digest"]  # the cards' data, wherever the files lie
        return hashlib.sha256(
            json.dumps(data, sort_keys=True, ensure_ascii=False).encode()
        ).hexdigest()[:16]


def bot_dict(spec: BotSpec) -> dict:
    return {"kind": spec.kind, **dict(spec.params)}


@lru_cache(maxsize=4096)
def _affected(patch: Patch, armies: tuple[Army, ...]) -> frozenset[str]:
    return frozenset(patch.affected({a.key: a.deck() for a in armies}, armies[0].pool()))


def with_patches(
    exp: Experiment, patches, *, patched_matchups: str | None = None, source: str | None = None
) -> Experiment:
    """``exp`` playing ``patches`` (Patch objects; the base patch is ``BASE_PATCH``), each
    checked against the experiment's armies — the Python entry point for code that builds
    patches (lab value, lab swap, a search over card edits)."""
    patches = tuple(patches)
    names = [p.name for p in patches]
    if not patches:
        raise LabError("give at least one patch (BASE_PATCH for the unpatched cards)")
    for n in names:
        if names.count(n) > 1:
            raise LabError(
                f"the patch name \"{n}\" is used twice; names must be unique", source=source
            )
    # an edit may name its army as the experiment does: by key (oda) or printed name (織田)
    keys = {a.name: a.key for a in exp.armies if a.name not in {b.key for b in exp.armies}}
    patches = tuple(p.with_army_keys(keys) for p in patches)
    decks = {a.key: a.deck() for a in exp.armies}
    for p in patches:
        p.check(decks, source, exp.pool())
    mode = exp.patched_matchups if patched_matchups is None else patched_matchups
    if mode not in PATCHED_MATCHUPS:
        raise LabError(
            f"patched_matchups = {mode!r}; allowed values: {', '.join(PATCHED_MATCHUPS)}"
        )
    return replace(exp, patches=patches, patched_matchups=mode)


# ------------------------------------------------------------------------------------ loading


def from_daitenka_dict(
    data: dict, src: str, games: int | None = None, cards: tuple[str | Path, ...] = ()
) -> Experiment:
    f = check(ExperimentFile, data, src)  # keys and value types (schema.experiment)
    n_games = f.games
    if games is not None:
        check_games_option(games)
        n_games = games
    extra = _extra_cards(f.extra_cards, src) + read_card_files(cards)
    pool = pool_from(extra)  # every card file checked like the package's, named in its errors
    armies, matchups = _armies(f.armies, f.seat_swap, src, extra)
    grid = dict(f.grid)
    patch_names = grid.pop("patch", None)
    exp = Experiment(
        name=f.name or Path(src).stem,
        source=src,
        seed=f.seed,
        games=n_games,
        seat_swap=f.seat_swap,
        chunk_size=f.chunk_size,
        variants=_variants(f, grid, src),
        armies=armies,
        matchups=matchups,
        tiers=_tiers(f, src),
        cards=extra,
    )
    patches = _patches(f.patch, patch_names, src, pool)
    return exp if patches == (BASE_PATCH,) else with_patches(exp, patches, source=src)


# ----------------------------------------------------------------------------------- variants


def _variants(f: ExperimentFile, grid: dict, src: str) -> tuple[RuleSet, ...]:
    presets = f.rules
    overrides = f.overrides
    if "patch" in overrides:
        raise LabError(
            "patch goes in [grid] (patch = [\"base\", \"<patch name>\"]), not in "
            "[overrides]; a one-patch grid plays that patch alone",
            source=src,
        )
    check_grid(grid, overrides, TOGGLES, src, _example)
    return expand_grid(PRESETS, presets, overrides, grid, src)


def _extra_cards(files: list[str], src: str) -> CardSource:
    """``extra_cards``: card files (paths relative to the config) added to the pool."""
    base = Path(src).parent
    paths = []
    for f in files:
        path = Path(f) if Path(f).is_absolute() else base / f
        if not path.is_file():  # named by the key that asks for it, not only by its path
            what = "is a folder, not a card file" if path.is_dir() else "is not found"
            relative = "" if Path(f).is_absolute() else " (paths are relative to the config)"
            raise LabError(f"extra_cards = \"{f}\": {path} {what}{relative}", source=src)
        paths.append(path)
    return read_card_files(paths)


def _patches(tables, names, src: str, pool: CardPool) -> tuple[Patch, ...]:
    """The patches the grid picks (default: base, then every [[patch]] in file order)."""
    defined = tuple(parse_patch(t, src, pool=pool) for t in tables)
    by_name = {BASE: BASE_PATCH} | {p.name: p for p in defined}
    if names is None:
        return (BASE_PATCH,) + defined
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise LabError(
            f"[grid] patch = {names!r}: a list of patch names, e.g. patch = "
            f"[\"base\", \"{defined[0].name if defined else 'akazonae8'}\"]",
            source=src,
        )
    for n in names:
        if n not in by_name:
            did = did_you_mean(n, by_name)
            raise LabError(
                f"[grid] patch: unknown patch \"{n}\"; {did}defined: "
                f"{', '.join(by_name)} (a patch is a [[patch]] table with name = "
                "\"…\"; base is the unpatched cards)",
                source=src,
            )
        if names.count(n) > 1:
            raise LabError(f"[grid] patch: \"{n}\" is listed twice", source=src)
    return tuple(by_name[n] for n in names)


def _example(key: str) -> str:
    return {"walls": "6, 7, 10", "logistics": "false, true", "hand_cap": "0, 7"}.get(key, "…")


# ------------------------------------------------------------------------------------- armies


def _armies(spec, seat_swap: bool, src: str, cards: CardSource) -> tuple[tuple[Army, ...], tuple]:
    allowed = (
        "allowed values: \"all\", a list of armies (e.g. [\"oda\", \"takeda\"]) or a list "
        "of [seat A, seat B] pairs (e.g. [[\"tougun\", \"seigun\"]])"
    )
    if spec == "all":
        spec = list(ARMIES)
    if not isinstance(spec, list) or not spec:
        raise LabError(f"armies = {spec!r} is not allowed; {allowed}", source=src)
    base = Path(src).parent
    loaded: dict[str, Army] = {}

    def army(entry, where: str) -> str:
        if not isinstance(entry, str) or not entry:
            raise LabError(f"{where} = {entry!r} is not an army; {allowed}", source=src)
        name = entry
        if entry.endswith(".toml") and not Path(entry).is_absolute():
            name = str(base / entry)  # a deck file next to the config
        try:
            deck = load_army(name, pool_from(cards))
        except LabError as e:
            raise LabError(f"{where}: {e}", source=src) from None
        builtin = deck.key in ARMIES and not entry.endswith(".toml")
        a = Army(
            deck.key,
            deck.name,
            deck.path,
            builtin,
            deck_digest(deck),
            cards,
            "" if builtin else read_text(deck.path),
        )
        if a.key in loaded and loaded[a.key] != a:
            raise LabError(
                f"{where}: two different decks are named \"{a.key}\" "
                f"({loaded[a.key].path} and {a.path}); rename one file",
                source=src,
            )
        loaded[a.key] = a
        return a.key

    if all(isinstance(e, list) for e in spec):
        matchups = []
        for i, pair in enumerate(spec):
            if len(pair) != 2:
                raise LabError(f"armies[{i}] = {pair!r}: a matchup is [seat A, seat B]", source=src)
            m = (army(pair[0], f"armies[{i}][0]"), army(pair[1], f"armies[{i}][1]"))
            if m in matchups:
                raise LabError(
                    f"armies[{i}]: the matchup {m[0]} vs {m[1]} is listed twice", source=src
                )
            if seat_swap and m[::-1] in matchups and m[0] != m[1]:
                raise LabError(
                    f"armies[{i}]: {m[0]} vs {m[1]} is the seat swap of "
                    f"{m[1]} vs {m[0]}, which seat_swap = true already plays; "
                    "list one of them",
                    source=src,
                )
            matchups.append(m)
    else:
        keys = [army(e, f"armies[{i}]") for i, e in enumerate(spec)]
        if len(set(keys)) != len(keys):
            dup = next(k for k in keys if keys.count(k) > 1)
            raise LabError(f"armies: \"{dup}\" is listed twice", source=src)
        # ordered pairs, mirrors included; with seat_swap each unordered pair once (its seat
        # swap is the other order, played on the same deals)
        matchups = [
            (a, b)
            for i, a in enumerate(keys)
            for j, b in enumerate(keys)
            if not seat_swap or i <= j
        ]
    return tuple(loaded.values()), tuple(matchups)


# --------------------------------------------------------------------------------------- bots


def _tiers(f: ExperimentFile, src: str) -> tuple[Tier, ...]:
    if f.tiers is not None:
        entries = f.tiers
        if not isinstance(entries, list) or not entries:
            raise LabError(
                f"tiers = {entries!r} is not allowed; allowed values: a list of "
                "tiers, each a bot for both seats or [seat A bot, seat B bot], e.g. "
                "tiers = [[\"random\", \"random\"], [\"heuristic\", \"heuristic\"]]",
                source=src,
            )
        tiers = [_tier(e, f"tiers[{i}]", src) for i, e in enumerate(entries)]
    else:
        tiers = [_tier(DEFAULT_BOTS if f.bots is None else f.bots, "bots", src)]
    labels = [t.label for t in tiers]
    for lab in labels:
        if labels.count(lab) > 1:
            raise LabError(f"tiers: the pairing {lab} is listed twice", source=src)
    return tuple(tiers)


def _tier(entry, where: str, src: str) -> Tier:
    if isinstance(entry, list):
        if len(entry) not in (1, 2):
            raise LabError(
                f"{where} = {entry!r}: name one bot for both seats or two "
                "[seat A, seat B]; for several pairings use "
                "tiers = [[a, b], [c, d]]",
                source=src,
            )
        a = parse_bot(entry[0], source=f"{src} {where}[0]")
        b = parse_bot(entry[-1], source=f"{src} {where}[{len(entry) - 1}]")
        return Tier(a, b)
    bot = parse_bot(entry, source=f"{src} {where}")
    return Tier(bot, bot)
