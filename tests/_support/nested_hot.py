"""Kernels for tests/test_compile_fixes.py: inlined helpers inside inlined helpers, each called
from several places, the shape the engine's kernels have."""

from lab.jit import hot, kernel


@hot
def leaf(a, i):
    return a[i] * 3 + 1 if a[i] > 0 else -a[i]


@hot
def middle(a, i):
    t = 0
    for j in range(i + 1):
        t += leaf(a, j)
    return t + leaf(a, 0)


@hot
def outer(a, i):
    return middle(a, i) - middle(a, 0) + leaf(a, i)


@kernel
def top(a):
    s = 0
    for i in range(a.shape[0]):
        s += outer(a, i) if i % 2 else middle(a, i)
    return s + outer(a, 0)
