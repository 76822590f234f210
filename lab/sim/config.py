"""Experiment files, whatever the game: read a TOML file and hand it to the game it names
(``game = "…"``, default 大天下) through the registry (``lab.games``); the game resolves it into
its ``Experiment`` (``lab.games.protocol.Experiment``), which the rest of ``lab.sim`` works from.
"""

from __future__ import annotations

from pathlib import Path

from lab.errors import LabError, read_toml
from lab.schema.experiment import MAX_GAMES


def load_experiment(path: str | Path, games: int | None = None, cards: tuple[str | Path, ...] = ()):
    """Read and validate an experiment file; ``games`` (``--games``) overrides its ``games``,
    ``cards`` (``--cards``) are extra card files loaded after the file's ``extra_cards``."""
    src = str(path)
    data = read_toml(path, "an experiment .toml file")
    return from_dict(data, src, games=games, cards=cards)


def from_dict(data: dict, src: str, games: int | None = None, cards: tuple[str | Path, ...] = ()):
    """The experiment of the game the file names (``game = "…"``; default 大天下)."""
    from lab import games as registry

    game = registry.of_config(data, src)
    return game.load_experiment(data, src, games=games, cards=cards)


def check_games_option(games) -> None:
    """``--games N``: a whole number 1–MAX_GAMES, whatever the game."""
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise LabError(
            f"--games = {games!r} is not allowed; allowed values: whole numbers 1–{MAX_GAMES:,}"
        )
