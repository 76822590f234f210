"""lab.jit.compile_fixes: numba with its inliner's quadratic costs and its repeated typing of
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
from lab.jit import compile_fixes
a = np.array([3, -2, 5, 0, 7], np.int64)
value = nested_hot.top(a)
used = compile_fixes._usable  # None: never looked at (LAB_COMPILE_FIXES=0)
print(value, bool(used) and all(used.values()), len(compile_fixes._untyped),
      len(compile_fixes._signatures))
asm = next(iter(nested_hot.top.inspect_asm().values()))
# numba names every function with a counter; the code around the names is what is compared
print(re.sub(r"B[0-9]+v[0-9]+B|\\$[0-9]+", "#", asm))
"""


def _compile(tmp_path, fix: str) -> tuple[list[str], str]:
    env = {
        **os.environ,
        "LAB_COMPILE_FIXES": fix,
        "NUMBA_CACHE_DIR": str(tmp_path / fix),
        "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
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


@pytest.fixture
def compile_fixes():
    """The repairs installed, as while a lab kernel compiles; taken out after the test."""
    from lab.jit import compile_fixes

    assert all(compile_fixes.usable().values())
    with compile_fixes.active():
        assert compile_fixes.is_installed()
        yield compile_fixes
    assert not compile_fixes.is_installed()


def _scope_with_vars():
    from numba.core import ir

    scope = ir.Scope(None, ir.Loc("f.py", 1))
    x = scope.define("x", ir.Loc("f.py", 2))
    scope.redefine("x", ir.Loc("f.py", 3))
    return scope, x


def test_scope_deep_copy_outside_inlining_copies_the_variables(compile_fixes):
    scope, x = _scope_with_vars()
    other = copy.deepcopy(scope)
    assert other is not scope and other.localvars.get("x") is not x
    assert other.localvars.get("x").scope is other
    assert other.localvars.get("x").name == "x" and other.redefined == scope.redefined


def test_scope_copy_while_inlining_keeps_the_original_unchanged(compile_fixes):
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


def test_ssa_reconstruction_visiting_fewer_blocks_gives_numbas_ir(compile_fixes):
    from numba.core.compiler import run_frontend

    ours, theirs = (run_frontend(_branchy) for _ in range(2))
    ours.blocks = compile_fixes._run_ssa(ours.blocks)
    theirs.blocks = compile_fixes._numba_run_ssa(theirs.blocks)
    text = _dump(ours)
    assert "phi" in text and "t.1" in text  # there was something to reconstruct
    assert text == _dump(theirs)


def test_locations_and_blocks_are_copied_as_before_outside_inlining(compile_fixes):
    from numba.core import ir

    scope, x = _scope_with_vars()
    block = ir.Block(scope, ir.Loc("f.py", 4))
    block.append(ir.Assign(ir.Const(1, ir.Loc("f.py", 5)), x, ir.Loc("f.py", 5)))
    other = copy.deepcopy(block)
    assert other is not block and other.loc is not block.loc and other.loc == block.loc
    assert other.body[0] is not block.body[0] and other.body[0].loc is not block.body[0].loc
    assert str(other.body[0]) == str(block.body[0])


def test_while_inlining_only_the_copy_of_a_copy_is_skipped(compile_fixes):
    from numba.core import ir

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


def test_live_variables_held_as_bits_are_numbas(compile_fixes):
    from numba.core import analysis
    from numba.core.compiler import run_frontend

    func_ir = run_frontend(_branchy)
    func_ir.blocks = compile_fixes._run_ssa(func_ir.blocks)
    cfg = analysis.compute_cfg_from_blocks(func_ir.blocks)
    usedefs = analysis.compute_use_defs(func_ir.blocks)
    ours = compile_fixes._compute_live_map(cfg, func_ir.blocks, usedefs.usemap, usedefs.defmap)
    theirs = compile_fixes._numba_live_map(cfg, func_ir.blocks, usedefs.usemap, usedefs.defmap)
    assert sum(map(len, theirs.values())) > 5  # something is live across blocks
    assert ours == theirs


def test_the_pinned_numba_is_the_one_every_repair_was_checked_on():
    import inspect
    import tomllib

    import numba

    from lab.jit import compile_fixes

    pins = tomllib.loads((ROOT.parent / "pyproject.toml").read_text())["project"]["dependencies"]
    assert compile_fixes.TESTED in pins  # an upper bound: a newer numba is checked first
    changed = {
        patch: [name for name, digest in parts.items() if compile_fixes.source_hash(name) != digest]
        for patch, parts in compile_fixes.PATCHES.items()
    }
    assert not any(changed.values()), (
        f"numba {numba.__version__} changed {changed}: see docs/engine.md, 'The compile repairs'"
    )
    for parts in compile_fixes.PATCHES.values():  # the text hashed is inspect.getsource's
        for name in parts:
            assert compile_fixes._source(name) == inspect.getsource(compile_fixes._resolve(name))


def test_a_repair_whose_numba_source_changed_is_left_out_saying_so_once(monkeypatch, capsys):
    from numba.core import analysis, ir, ssa
    from numba.core.inline_closurecall import InlineWorker

    from lab.jit import compile_fixes

    stock_ssa, stock_inline = ssa._run_ssa, InlineWorker.inline_function
    real_source = compile_fixes._source

    def source(name):  # numba's _run_ssa as a later numba might write it
        text = real_source(name)
        return (
            text.replace("return blocks", "return dict(blocks)")
            if name.endswith(":_run_ssa")
            else text
        )

    monkeypatch.setattr(compile_fixes, "_source", source)
    monkeypatch.setattr(compile_fixes, "_usable", None)
    monkeypatch.delenv("LAB_COMPILE_FIXES", raising=False)
    monkeypatch.delenv("LAB_COMPILE_FIXES_TOLD", raising=False)
    for _ in range(2):  # two compiles: the line is printed once
        with compile_fixes.active():
            assert ssa._run_ssa is stock_ssa  # numba's own SSA reconstruction
            # the other repairs are in
            assert InlineWorker.inline_function is compile_fixes._inline_function
            assert analysis.compute_live_map is compile_fixes._compute_live_map
            assert "__deepcopy__" in vars(ir.Scope)
    assert InlineWorker.inline_function is stock_inline and "__deepcopy__" not in vars(ir.Scope)
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "changed: ssa)" in err and "slower" in err
    # the run's compile processes and workers inherit that it was said
    assert os.environ["LAB_COMPILE_FIXES_TOLD"] == "1"


CONTAINED = """
import sys
from _support import nested_hot  # lab.jit, its decorators and a kernel made with them
import lab, lab.games.daitenka.engine.nb_resolve, lab.games.daitenka.engine.nb_pick, lab.games.daitenka.bots.compile, lab.cli
from numba.core import analysis, ir, ir_utils, ssa
from numba.core.inline_closurecall import InlineWorker
from numba.core.types.functions import Function
from lab.jit import compile_fixes


def stock():
    return {"inliner": InlineWorker.inline_function.__module__ == "numba.core.inline_closurecall"
                       and not any("__deepcopy__" in vars(c) for c in (ir.Scope, ir.Loc, ir.Block)),
            "call types": "get_call_type" not in vars(Function),
            "ssa": ssa._run_ssa.__module__ == "numba.core.ssa",
            "live variables": analysis.compute_live_map.__module__ == "numba.core.analysis"
                              and ir_utils.compute_live_map is analysis.compute_live_map}


print(all(stock().values()), compile_fixes._usable is None)
if sys.argv[1] == "compile":
    import numpy as np
    nested_hot.top(np.arange(5))
    # the repairs were in while the kernel compiled (each helper was translated once) ...
    print(len(compile_fixes._untyped), all(compile_fixes._usable.values()))
    print(all(stock().values()))  # ... and are out again
"""


def _contained(tmp_path, what: str) -> list[str]:
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path),
        "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    env.pop("LAB_COMPILE_FIXES", None)
    return subprocess.run(
        [sys.executable, "-c", CONTAINED, what],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout.split()


def test_importing_lab_and_its_kernels_leaves_numba_as_shipped(tmp_path):
    # numba as shipped, and the numba sources not even read
    assert _contained(tmp_path, "import") == ["True", "True"]


@pytest.mark.skipif(not JIT, reason="compiles a kernel")
def test_the_repairs_are_in_only_while_a_kernel_compiles(tmp_path):
    assert _contained(tmp_path, "compile") == ["True", "True", "3", "True", "True"]


KERNELS = """
import re, sys
import numba
from lab.games.daitenka.bots import compile as lab_compile
from lab.jit import compile_fixes

for name in ("apply", "random_pick"):
    lab_compile.compile_kernel(name)
    kernel = lab_compile._kernels()[name]
    asm = kernel.inspect_asm(kernel.signatures[0])
    # numba names every function and block with counters: the code around the names is compared
    print(name, len(asm), re.sub(r"B[0-9]+v[0-9]+B|\\$[0-9]+", "#", asm).replace("\\n", "|"))
used = compile_fixes._usable
print("repairs", bool(used) and all(used.values()), len(compile_fixes._untyped))
"""


@pytest.mark.slow
@pytest.mark.skipif(not JIT, reason="compiles kernels")
def test_the_engine_kernels_machine_code_is_the_same_with_and_without_the_repairs(tmp_path):
    """The real kernels (the rules' ``apply``, the random bot's pick), each compiled cold with
    the repairs and with numba as shipped (LAB_COMPILE_FIXES=0), side by side: minutes."""
    runs = {}
    for fix in ("1", "0"):
        env = {**os.environ, "LAB_COMPILE_FIXES": fix, "NUMBA_CACHE_DIR": str(tmp_path / fix)}
        runs[fix] = subprocess.Popen(
            [sys.executable, "-c", KERNELS],
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
    out = {}
    for fix, proc in runs.items():
        stdout, stderr = proc.communicate()
        assert proc.returncode == 0, stderr[-2000:]
        out[fix] = dict(line.split(" ", 1) for line in stdout.splitlines())
    assert out["1"]["repairs"].split()[0] == "True" and int(out["1"]["repairs"].split()[1]) > 50
    assert out["0"]["repairs"] == "False 0"
    for name in ("apply", "random_pick"):
        size, asm = out["1"][name].split(" ", 1)
        assert int(size) > 100_000  # a whole kernel, its callees linked in
        assert asm == out["0"][name].split(" ", 1)[1], name
