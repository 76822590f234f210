"""Runs ``lab.games.daitenka.bots.evalfit`` (its old path: ``python -m lab.bots.evalfit`` in docs/bots.md)."""

if __name__ == "__main__":
    import runpy

    runpy.run_module("lab.games.daitenka.bots.evalfit", run_name="__main__", alter_sys=True)
