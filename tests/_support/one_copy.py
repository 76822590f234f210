"""Kernels for tests/test_jit_kernel.py: a callee called from a kernel with constants."""

from lab.jit import kernel


@kernel
def callee(x, flag, step):
    return x + step if flag else x - step


@kernel
def caller(x):
    return callee(x, True, 1) + callee(x, False, 2) + callee(x, flag_of(x), 3)


@kernel
def flag_of(x):
    return x > 0
