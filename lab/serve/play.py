"""The 試験場 page's matches: set up from the page's form, stepped by the human's clicks, and shown
as the human's seat may see it — for every registered game, through its entry (``lab.games``).

Owns the matches a server holds (``Matches``: an id each, a lock each, the oldest dropped past a
limit) and the form ⇄ settings translation common to every game (game, preset, toggles that
differ from it, seed, bot). What a game's form adds (armies, seat), its toggles with their allowed
values, and the match itself with its ``view()`` — the only thing a page or its JSON is built
from — are the entry's (``page_settings``, ``page_rule_fields``, ``page_match``; the protocol's
``PageMatch``); nothing here holds a rule or names a game.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from pathlib import Path

from lab.errors import LabError
from lab.games import DEFAULT, get

MAX_MATCHES = 64  # matches a server keeps; the oldest is dropped first


# ------------------------------------------------------------------------------ rule toggles


def rule_fields(game: str, preset: str, overrides: dict | None = None) -> list[dict]:
    """Every toggle of ``game`` under ``preset`` + ``overrides``: key, shown value, the
    preset's value, allowed values (a list, or (lowest, highest)), input kind, meaning."""
    return get(game).page_rule_fields(preset, overrides)


def presets(game: str) -> tuple[list[str], str]:
    """The game's presets and its default."""
    entry = get(game)
    return list(entry.PRESETS), entry.DEFAULT_PRESET


def overrides_from_form(game: str, preset: str, form: dict) -> dict[str, str]:
    """The toggles of the form that differ from the preset (as typed; the rules layer checks
    them and names a bad one in one line)."""
    shown = {f["key"]: f["preset"] for f in rule_fields(game, preset)}
    out = {}
    for key, was in shown.items():
        value = str(form.get(f"rule_{key}", was)).strip()
        if value and value != was:
            if key == "map":
                raise LabError(
                    "map: the page plays the default map; name another map in a "
                    "config file under configs/"
                )
            out[key] = value
    return out


# ------------------------------------------------------------------------------ the setup


class Setup:
    """What the page's form chose, checked: ``settings`` is the game's own settings object
    (its entry's ``page_settings``)."""

    def __init__(self, form: dict, decks_dir: Path):
        from lab.schema.base import parse_seed
        from lab.serve.paths import inside

        game = str(form.get("game") or DEFAULT)
        entry = get(game)
        names, default = presets(game)
        preset = str(form.get("preset") or default)
        if preset not in names:
            raise LabError(f"preset \"{preset}\" is not one of: {', '.join(names)}")
        self.game, self.preset = game, preset
        self.form = {k: str(v) for k, v in form.items()}
        self.overrides = overrides_from_form(game, preset, form)
        seed_text = str(form.get("seed") or "").strip()
        self.seed = parse_seed(seed_text) if seed_text else None
        self.bot = str(form.get("bot") or "heuristic").strip()
        self.seat, self.settings = entry.page_settings(
            self.form,
            preset,
            self.overrides,
            self.bot,
            self.seed,
            lambda name: inside(decks_dir, name, "the uploaded decks"),
        )


# ------------------------------------------------------------------------------ matches


class Matches:
    """The matches a server holds, by id; each has its own lock (one click at a time)."""

    def __init__(self, replay_dir: Path, limit: int = MAX_MATCHES):
        self.replay_dir = replay_dir
        self.limit = limit
        self._items: OrderedDict[str, tuple[object, threading.Lock]] = OrderedDict()
        self._lock = threading.Lock()

    def new(self, setup: Setup):
        match = get(setup.game).page_match(setup, self.replay_dir)
        match_id = secrets.token_urlsafe(9)
        match.id, match.created = match_id, time.time()
        with self._lock:
            self._items[match_id] = (match, threading.Lock())
            while len(self._items) > self.limit:
                self._items.popitem(last=False)
        return match

    def get(self, match_id: str):
        with self._lock:
            item = self._items.get(match_id)
            if item is not None:
                self._items.move_to_end(match_id)
        if item is None:
            raise KeyError(match_id)
        return item


__all__ = ["Matches", "Setup", "overrides_from_form", "presets", "rule_fields"]
