"""The rules engine: 大天下 compiled with numba over fixed-size integer arrays.

``layout`` names every offset; ``context`` compiles two decks and a rule set into the per-matchup
table the kernels read; the ``nb_*`` modules hold the kernels (no I/O, no Python objects); ``api``
is the Python facade for notebooks, tests, scenarios and custom bots.
"""
