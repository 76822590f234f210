"""What the lab reads from the user: the one place where input files and option texts are
checked.

Owns the grammar of every input — card and deck files, rules files, experiment configs, scenario
files, replay files, bot specs typed on the command line — and the translation of a problem in one
of them into the project's one-line ``LabError`` (file, entry, what is wrong, allowed values or
fix). It builds no game object of its own beyond the validated data: the loaders
(``lab.games.daitenka.cards.pool``, ``lab.games.daitenka.rules``, ``lab.games.daitenka.experiment``, ``lab.games.daitenka.scenario``, ``lab.games.daitenka.play.record``)
turn that data into the lab's values. It must stay import-light and never simulate.
"""

FLAG = "flag"  # the allowed values of an on/off toggle, in every game's declaration of its rules
