"""The two decorators every engine kernel uses, and where their compiled code is cached.

Kernels are compiled without numba's reference-counting runtime (``_nrt=False``): they never
allocate, they only read and write arrays the caller owns, and dropping the runtime removes an
atomic increment and decrement around calls that would otherwise dominate the cost of a decision.
Tiny helpers are also inlined at numba's IR level (``hot``). Under NUMBA_DISABLE_JIT=1 both
decorators return the plain Python function, so the same code runs uncompiled.

numba invalidates a cached kernel only when *its own* file changes, not when a kernel it calls
does; so the cache lives in a folder named after a hash of every source file the kernels read.
"""

import hashlib
import os
from pathlib import Path

import numba
from numba import njit, types
from numba.core.dispatcher import Dispatcher

from lab.jit import compile_fixes

_LAB = Path(__file__).parent.parent
_DAITENKA = _LAB / "games" / "daitenka"
# every file a kernel is compiled from: the kernels themselves and the constants they fold in
_SOURCES = sorted(_LAB.glob("**/nb_*.py")) + [  # lab/jit/ and every game's kernels
    _DAITENKA / "engine" / "layout.py",
    _LAB / "jit" / "__init__.py",
    _LAB / "jit" / "compile_fixes.py",
    _DAITENKA / "rules.py",
    _DAITENKA / "cards" / "vocab.py",
]


def _cache_dir() -> str:
    h = hashlib.sha256()
    for p in _SOURCES:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "daitenka-lab"
    )
    return os.path.join(base, "numba-" + h.hexdigest()[:16])


numba.config.CACHE_DIR = _cache_dir()

_compiled = njit(cache=True, _nrt=False)
_inlined = njit(cache=True, _nrt=False, inline="always")


def _with_compile_fixes(dispatcher):
    """numba compiles a kernel through its dispatcher's ``compile`` (called first, from another
    kernel's typing, or by lab.games.daitenka.bots.compile): lab.jit.compile_fixes' repairs are installed
    for that and taken out after, and numba elsewhere is left as shipped."""
    if not isinstance(dispatcher, Dispatcher):  # NUMBA_DISABLE_JIT=1: the Python function
        return dispatcher
    compile_as_shipped = dispatcher.compile

    def compile(sig):
        with compile_fixes.active():
            return compile_as_shipped(sig)

    dispatcher.compile = compile
    return dispatcher


def kernel(py_func):
    """A kernel compiled once per argument *types*. Called from another kernel with a constant
    (``resolve_win(s, c, lg, w, 0, False)``), numba would otherwise compile a separate copy for
    each constant value (``Literal[int](0)``, ``Literal[bool](False)``): ``resolve_win`` had three
    copies, ``emit_equal`` and ``end_game`` four; dropping them cut the cold compile by about a
    tenth (CPU time of the random and heuristic kernels, 312 → 277 s side by side)."""
    dispatcher = _with_compile_fixes(_compiled(py_func))
    if not isinstance(dispatcher, Dispatcher):  # NUMBA_DISABLE_JIT=1: the Python function
        return dispatcher
    typed_by_constants = dispatcher.get_call_template

    def get_call_template(args, kws):
        return typed_by_constants(
            tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()}
        )

    dispatcher.get_call_template = get_call_template
    return dispatcher


def hot(py_func):
    """A helper inlined at numba's IR level into each kernel that calls it (compiled on its own
    only when Python calls it)."""
    return _with_compile_fixes(_inlined(py_func))
