"""Experiments at scale, whatever the game: a TOML experiment config becomes deterministic,
chunked, resumable runs whose records land in Parquet (docs/records.md).

The modules, in data-path order: ``config`` (read an experiment file and hand it to the game it
names), ``seeding`` (the deal and play streams of architecture.md principle 5), ``receipt`` (what
a played chunk hands back), ``manifest`` (manifest.json's content, versions, the folder check),
``lock`` (one run per results folder), ``runner`` (the order of a run, timings), ``dispatch``
(loky workers or a Dask cluster), ``cluster`` (the Dask side: connecting, warming the workers, a
lost worker or scheduler) and ``progress`` (status lines and the progress bar). The record files
themselves — atomic Parquet writes, chunk checksums, readers — are ``lab.records``'.

The package knows no game: the runner reaches one through ``lab.games`` (its experiment, plan,
warm-up, chunk player, record tables and end-of-run summary), so every registered game runs
through the same runner, lock, manifest, resume and dispatch. 大天下's experiment, plan, worker,
record columns, summary and replay are in ``lab.games.daitenka``.
"""

from lab.sim.config import load_experiment
from lab.records import read_cards, read_games

__all__ = ["load_experiment", "read_cards", "read_games"]
