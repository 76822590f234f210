"""lab.engine.compile_fixes: numba with its inliner's quadratic costs and its repeated typing of
builtins repaired compiles the same machine code, and deep-copies IR as before outside inlining."""

import copy
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent
JIT = os.environ.get("NUMBA_DISABLE_JIT") != "1"

PROBE = """
import re, numpy as np
from _support import nested_hot
from lab.engine import compile_fixes
a = np.array([3, -2, 5, 0, 7], np.int64)
print(nested_hot.top(a), compile_fixes.applied, len(compile_fixes._untyped),
      len(compile_fixes._signatures))
asm = next(iter(nested_hot.top.inspect_asm().values()))
# numba names every function with a counter; the code around the names is what is compared
print(re.sub(r"B[0-9]+v[0-9]+B|\\$[0-9]+", "#", asm))
"""


def _compile(tmp_path, fix: str) -> tuple[list[str], str]:
    env = {**os.environ, "LAB_COMPILE_FIXES": fix, "NUMBA_CACHE_DIR": str(tmp_path / fix),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    first, asm = out.split("\n", 1)
    return first.split(), asm


@pytest.mark.skipif(not JIT, reason="compiles kernels")
def test_same_machine_code_with_and_without_the_fix(tmp_path):
    (value, applied, helpers, signatures), asm = _compile(tmp_path, "1")
    (value0, applied0, helpers0, _), asm0 = _compile(tmp_path, "0")
    assert value == value0
    assert (applied, applied0) == ("True", "False")
    # leaf, middle and outer were each translated once, though each is inlined in several places
    assert int(helpers) == 3 and int(helpers0) == 0
    assert int(signatures) > 0  # the builtins' signatures were kept
    assert "nested_hot" in asm and asm == asm0


def _scope_with_vars():
    from numba.core import ir

    scope = ir.Scope(None, ir.Loc("f.py", 1))
    x = scope.define("x", ir.Loc("f.py", 2))
    scope.redefine("x", ir.Loc("f.py", 3))
    return scope, x


def test_scope_deep_copy_outside_inlining_copies_the_variables():
    from lab.engine import compile_fixes

    compile_fixes.apply()
    scope, x = _scope_with_vars()
    other = copy.deepcopy(scope)
    assert other is not scope and other.localvars.get("x") is not x
    assert other.localvars.get("x").scope is other
    assert other.localvars.get("x").name == "x" and other.redefined == scope.redefined


def test_scope_copy_while_inlining_keeps_the_original_unchanged():
    from lab.engine import compile_fixes

    compile_fixes.apply()
    scope, _ = _scope_with_vars()
    names, versions = set(scope.localvars._con), dict(scope.redefined)
    compile_fixes._state.inlining = True
    try:
        shallow = copy.deepcopy(scope)
    finally:
        compile_fixes._state.inlining = False
    from numba.core import ir

    shallow.redefine("x", ir.Loc("f.py", 9))
    shallow.define("y", ir.Loc("f.py", 9))
    assert set(scope.localvars._con) == names and dict(scope.redefined) == versions
    assert {"x", "y"} <= set(shallow.localvars._con) and shallow.redefined["x"] == 2
    assert "x.2" not in scope.var_redefinitions["x"]


def _branchy(a, n):
    t, u = 0, 1
    for i in range(n):
        if a[i] > t:
            t = a[i]
            u += 1
        else:
            while u > 1:
                u -= 1
    if n > 3:
        t = -t
    return t * u


def _dump(func_ir) -> str:
    import io
    from contextlib import redirect_stdout

    out = io.StringIO()
    with redirect_stdout(out):
        func_ir.dump()
    return out.getvalue()


def test_ssa_reconstruction_visiting_fewer_blocks_gives_numbas_ir():
    from numba.core.compiler import run_frontend

    from lab.engine import compile_fixes

    assert compile_fixes.apply()
    ours, theirs = (run_frontend(_branchy) for _ in range(2))
    ours.blocks = compile_fixes._run_ssa(ours.blocks)
    theirs.blocks = compile_fixes._numba_run_ssa(theirs.blocks)
    text = _dump(ours)
    assert "phi" in text and "t.1" in text  # there was something to reconstruct
    assert text == _dump(theirs)


def test_locations_and_blocks_are_copied_as_before_outside_inlining():
    from numba.core import ir

    from lab.engine import compile_fixes

    compile_fixes.apply()
    scope, x = _scope_with_vars()
    block = ir.Block(scope, ir.Loc("f.py", 4))
    block.append(ir.Assign(ir.Const(1, ir.Loc("f.py", 5)), x, ir.Loc("f.py", 5)))
    other = copy.deepcopy(block)
    assert other is not block and other.loc is not block.loc and other.loc == block.loc
    assert other.body[0] is not block.body[0] and other.body[0].loc is not block.body[0].loc
    assert str(other.body[0]) == str(block.body[0])


def test_while_inlining_only_the_copy_of_a_copy_is_skipped():
    from numba.core import ir

    from lab.engine import compile_fixes

    compile_fixes.apply()
    scope, x = _scope_with_vars()
    block = ir.Block(scope, ir.Loc("f.py", 4))
    block.append(ir.Assign(ir.Const(1, ir.Loc("f.py", 5)), x, ir.Loc("f.py", 5)))
    compile_fixes._state.inlining, compile_fixes._state.copies = True, set()
    try:
        first = copy.deepcopy(block)
        second = copy.deepcopy(first)
    finally:
        compile_fixes._state.inlining, compile_fixes._state.copies = False, set()
    assert first is not block and first.body[0] is not block.body[0]
    assert first.loc is block.loc  # locations are shared while inlining
    assert second is first
    assert copy.deepcopy(first) is not first  # and copied again once inlining is over


def test_live_variables_held_as_bits_are_numbas():
    from numba.core import analysis
    from numba.core.compiler import run_frontend

    from lab.engine import compile_fixes

    assert compile_fixes.apply()
    func_ir = run_frontend(_branchy)
    func_ir.blocks = compile_fixes._run_ssa(func_ir.blocks)
    cfg = analysis.compute_cfg_from_blocks(func_ir.blocks)
    usedefs = analysis.compute_use_defs(func_ir.blocks)
    ours = compile_fixes._compute_live_map(cfg, func_ir.blocks, usedefs.usemap, usedefs.defmap)
    theirs = compile_fixes._numba_live_map(cfg, func_ir.blocks, usedefs.usemap, usedefs.defmap)
    assert sum(map(len, theirs.values())) > 5  # something is live across blocks
    assert ours == theirs
