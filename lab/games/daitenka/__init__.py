"""大天下 (Daitenka), the lab's first game: its rules (``rules``), cards and decks as data
(``cards/``), the compiled engine (``engine/``), its bots (``bots/``), the experiment it runs
(``experiment``, ``plan``, ``seeds``, ``worker``, ``records``, ``summary``, ``replay``), scenarios,
the terminal and page sessions (``play/``, ``page``), the PettingZoo environment (``env/``), the
speed measurement (``bench``) and its entry in the registry (``entry``, with ``commands``).

The package itself imports nothing, so importing one of its modules costs only that module."""
