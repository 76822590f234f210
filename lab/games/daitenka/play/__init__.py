"""`lab play`: a terminal game against a bot, with replay files and scenario export.

- ``options``: the match settings (armies, bot, rules preset and toggles, seed) and their parsing;
- ``session``: the game loop, the play-again prompt, saving;
- ``view`` / ``narrate``: the board as seat A sees it and the event lines told to it;
- ``record``: replay files (JSON) and scenario files (TOML) of played matches;
- ``show``: ``show_replay_file``, what `lab replay PATH` prints for a replay file.
"""

from lab.games.daitenka.play.options import PlaySettings, parse_bot_option
from lab.games.daitenka.play.record import MatchRecord, load_record, replay_game
from lab.games.daitenka.play.session import DEFAULT_REPLAY_DIR, PlaySession
from lab.games.daitenka.play.show import show_replay_file


def is_replay_file(path) -> bool:
    """True for a path that names a file (a `lab play` replay), not a results folder."""
    from pathlib import Path

    return Path(path).is_file()


__all__ = [
    "PlaySettings",
    "PlaySession",
    "parse_bot_option",
    "MatchRecord",
    "load_record",
    "replay_game",
    "show_replay_file",
    "is_replay_file",
    "DEFAULT_REPLAY_DIR",
]
