"""A script of benchmarks/ loaded as a module, for the tests of what it computes (the scripts are
not a package: each runs as `python benchmarks/NAME.py`)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent.parent / "benchmarks"


def load(name: str):
    """benchmarks/NAME.py as a module; its own imports of sibling scripts resolve while it loads."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module
