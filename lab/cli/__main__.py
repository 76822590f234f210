"""``python -m lab.cli``: the same as the ``lab`` console script."""

from lab.cli import main

main()
