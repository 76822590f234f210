"""Daitenka Lab: a rules-variant simulation lab for 大天下.

The package owns the card pool (``lab.games.daitenka.cards``), the rule sets (``lab.games.daitenka.rules``), the compiled engine
(``lab.games.daitenka.engine``) and the command line (``lab.cli``). Nothing here does I/O at import time.
"""

__version__ = "0.1.0"
