"""Games other than 大天下 that the lab hosts, one package each (``lab.games.rumble_nation``).

A game package owns its rules and presets, its data files, its compiled engine and bots, its
scenario format and its batch loop; it shares nothing with 大天下's engine but the one-line error
type and the numba decorators. The registry through which the runner, records, statistics and
report reach a game is added by the integration step (issue 17 items 1, 4, 5); this package header
must not grow into that registry by accident.
"""
