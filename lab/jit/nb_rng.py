"""The games' generator, xoshiro128**, shared by every engine (大天下's and Rumble Nation's).

A generator is four 32-bit words kept inside a game's state array (architecture.md principle 5),
so a copy of the state made for search copies it too. The words are held in int64 with every
intermediate below 2**41, so the arithmetic is exact whether numba compiles it or Python runs it
(NUMBA_DISABLE_JIT=1): the same seed gives the same game either way.
"""

from lab.jit import hot

M32 = 0xFFFFFFFF


@hot
def _rotl32(x, k):
    return ((x << k) | (x >> (32 - k))) & M32


@hot
def xoshiro_step(s0, s1, s2, s3):
    """One step of xoshiro128** on four 32-bit words held as ints: (output, new words)."""
    result = (_rotl32((s1 * 5) & M32, 7) * 9) & M32
    t = (s1 << 9) & M32
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl32(s3, 11)
    return result, s0, s1, s2, s3


@hot
def next32(s, at):
    """Next 32-bit output of the generator whose four words start at ``s[at]``."""
    result, s0, s1, s2, s3 = xoshiro_step(s[at], s[at + 1], s[at + 2], s[at + 3])
    s[at] = s0
    s[at + 1] = s1
    s[at + 2] = s2
    s[at + 3] = s3
    return result


@hot
def rand_below(s, at, n):
    """A uniform integer in [0, n) from the generator at ``s[at]`` (n < 2**31)."""
    return (next32(s, at) * n) >> 32
