"""What the lab reads from the user: how input files and option texts are checked.

Owns the schema helpers (``base``: strict tables, the translation of a problem into the
project's one-line ``LabError`` — file, entry, what is wrong, allowed values or fix), rules files
(``rules``), the grid of toggles (``grid``) and the parts every game's experiment and scenario
files share (``experiment``, ``scenario``). It sits below every game and names none: a game
declares its own tables from these parts in its folder (大天下's experiment file, scenario
tables, card, deck, bot and replay tables: ``lab/games/daitenka/schema/``,
``lab/games/daitenka/scenario_file.py``), and its loaders turn the validated data into the lab's
values. It must stay import-light and never simulate.
"""

FLAG = "flag"  # the allowed values of an on/off toggle, in every game's declaration of its rules
