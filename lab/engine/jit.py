"""The two decorators every engine kernel uses.

Kernels are compiled without numba's reference-counting runtime (``_nrt=False``): they never
allocate, they only read and write arrays the caller owns, and dropping the runtime removes an
atomic increment and decrement around every call that would otherwise dominate the cost of a
decision. Tiny helpers are also inlined at numba's IR level (``hot``). Under NUMBA_DISABLE_JIT=1
both decorators return the plain Python function, so the same code runs uncompiled.
"""

from numba import njit

kernel = njit(cache=True, _nrt=False)
hot = njit(cache=True, _nrt=False, inline="always")
