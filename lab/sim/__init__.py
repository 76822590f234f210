"""Experiments at scale: a TOML experiment config becomes deterministic, chunked, resumable runs
of the compiled engine whose records land in Parquet (docs/records.md).

The modules, in data-path order: ``config`` (load and validate an experiment file), ``plan``
(cells, game ids, chunks), ``seeding`` (the deal and play streams of architecture.md principle 5),
``worker`` (play one chunk and write its records), ``records`` (大天下's games/cards tables;
the files themselves — atomic Parquet writes, chunk checksums, readers — are ``lab.records``'),
``manifest`` (manifest.json's content, versions, the folder check), ``lock`` (one run per results folder), ``runner`` (the order of a run, timings),
``dispatch`` (loky workers or a Dask cluster), ``cluster`` (the Dask side: connecting, warming
the workers, a lost worker or scheduler), ``progress`` (status lines and the progress bar),
``summary`` (the end-of-run tables) and ``replay`` (one recorded game again, with its log). The package knows no rule of the game: it hands contexts,
seed words and bot specs to ``lab.bots.match`` and turns the arrays that come back into records.
The runner reaches the game through ``lab.games`` (its plan, warm-up, chunk player and record
tables), so another registered game (Rumble Nation) runs through the same runner, lock,
manifest, resume and dispatch; ``config.from_dict`` hands a config naming another game to it.
"""

from lab.sim.config import Experiment, load_experiment
from lab.records import read_cards, read_games

__all__ = ["Experiment", "load_experiment", "read_cards", "read_games"]
