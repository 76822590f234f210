"""Repairs to numba's front end that cut a cold compile to three eighths (the default run's
kernels one after another in one process: 94.7 → 35.3 CPU s); the compiled code is the same
(tests/test_compile_fixes.py compares the machine code).

Inlining. numba (0.6x) inlines an ``inline="always"`` helper (``jit.hot``) at each call site
by (1) running the whole untyped pipeline on the helper again — its own inlined helpers included,
so nested helpers are re-translated once per copy of every caller — and (2) deep-copying the
helper's IR block by block with a fresh memo each time, so every block copies the function's
whole variable scope again: quadratic in the helper's size; then it copies that copy again, to
return an unmutated helper IR its caller drops. Known upstream (numba issue #8989, numba-cuda
issue #688). Our kernels inline hundreds of copies, and these costs were most of the engine's
cold start.

(1) The untyped IR of a helper is computed once per process and flags; each call site gets it
with a fresh function identity (so its variables are named apart, as before), and numba's
inliner copies it before changing anything. (2) While a helper is inlined, a block's copy
shares a shallow copy of the scope (the inliner only reads the names and places of the scope's
variables and adds renamed ones, which the shallow copy keeps apart from the original) and
the source locations (never changed once made); the copy of the copy is not made.

Typing. (3) numba types every ``+``, ``<``, ``range`` … of a kernel by trying the operator's
templates again, and an inlined engine types the same few hundred (operator, argument types)
pairs tens of thousands of times. The signature found for a builtin
function is kept per typing context and argument types (a failure is not kept: it raises again).

SSA. (4) numba rebuilds SSA form with two passes over every block for each variable assigned
more than once; an inlined kernel has thousands of those. Only the blocks that mention the
variable are visited — the others came out unchanged. (5) Its live-variable analysis (run after
most passes) iterates set unions over every block, the sets holding most of a kernel's thousands
of variables; the same iteration runs on the bits of ints.

Contained. Each repair replaces or mirrors a few numba functions, and the sha256 of their source
(``inspect.getsource``) on the numba it was checked on is recorded in ``PATCHES``; a repair whose
functions' source differs is left out (numba as shipped for that part: slower, still correct) and
one line on stderr says so. The repairs are installed only while a lab kernel compiles (``active``,
entered by ``lab.jit``'s decorators around a dispatcher's ``compile``) and taken out after,
so importing lab, or compiling one's own numba code beside it, meets numba as shipped.
``LAB_COMPILE_FIXES=0`` leaves them out (to compare: slower, the same machine code). How to move
to a new numba: docs/engine.md, "The compile repairs".
"""

from __future__ import annotations

import contextlib
import copy
import os
import threading
from collections import defaultdict

_state = threading.local()
_untyped: dict = {}  # (helper, flags, contexts) → its untyped IR


def _shallow_scope(scope, memo):
    from numba.core import ir

    new = ir.Scope.__new__(ir.Scope)
    memo[id(scope)] = new
    new.parent = scope.parent
    new.loc = scope.loc
    new.localvars = ir.VarMap()
    new.localvars._con = dict(scope.localvars._con)
    new.redefined = defaultdict(int, scope.redefined)
    new.var_redefinitions = defaultdict(
        set, {k: set(v) for k, v in scope.var_redefinitions.items()}
    )
    return new


def _plain_deepcopy(obj, memo):
    """What copy.deepcopy does for a plain object without ``__deepcopy__``."""
    new = type(obj).__new__(type(obj))
    memo[id(obj)] = new
    new.__dict__.update(copy.deepcopy(obj.__dict__, memo))
    return new


def _inlining() -> bool:
    """Is a helper being inlined on this thread (``_inline_function``)? The copy rules below
    hold only then."""
    return getattr(_state, "inlining", False)


def _scope_deepcopy(scope, memo):
    if _inlining():
        return _shallow_scope(scope, memo)
    return _plain_deepcopy(scope, memo)


def _loc_deepcopy(loc, memo):
    # numba never changes a source location once made (only caches its lines): shared
    return loc if _inlining() else _plain_deepcopy(loc, memo)


def _block_deepcopy(block, memo):
    if not _inlining():
        return _plain_deepcopy(block, memo)
    if id(block) in _state.copies:
        # numba's inliner copies its copy again, to return an unmutated helper IR that its only
        # caller (the inline-inlinables pass) drops: that second copy is skipped
        return block
    new = _plain_deepcopy(block, memo)
    _state.copies.add(id(new))
    return new


def _untyped_ir(worker, function):
    """The helper's untyped IR, from the first time it was inlined with these flags."""
    worker.flags.enable_ssa = False  # what run_untyped_passes does to the caller's flags
    # a snapshot of the flags (compared by value); numba derives a new target context for every
    # compile, and the untyped passes do not depend on it
    key = (function, worker.flags.copy(), id(worker.typingctx), type(worker.targetctx))
    cached = _untyped.get(key)
    if cached is None:
        cached = _untyped[key] = worker.run_untyped_passes(function)
    fresh = cached.copy()
    fresh.func_id = cached.func_id.derive()
    return fresh


def _inline_function(self, caller_ir, block, i, function, arg_typs=None):
    callee_ir = _untyped_ir(self, function)
    _state.inlining, _state.copies = True, set()
    try:
        _, blocks, var_dict, new_blocks = self.inline_ir(
            caller_ir, block, i, callee_ir, function.__code__.co_freevars, arg_typs=arg_typs
        )
    finally:
        _state.inlining, _state.copies = False, set()
    # numba's first item, an unmutated copy of the helper's IR, was not made (see _block_deepcopy)
    return None, blocks, var_dict, new_blocks


_signatures: dict = {}  # (builtin, typing context, argument types, templates) → signature


def _memo_call_type(original):
    def get_call_type(self, context, args, kws):
        key = (self, context, args, tuple(sorted(kws.items())), len(self.templates))
        try:
            sig = _signatures.get(key)
        except TypeError:  # an unhashable argument type: type it as numba does
            return original(self, context, args, kws)
        if sig is None:
            sig = _signatures[key] = original(self, context, args, kws)
        return sig

    return get_call_type


def _run_ssa(blocks):
    """numba's SSA reconstruction (``numba.core.ssa._run_ssa``) visiting, for each variable it
    fixes, only the blocks that assign or use it: the others come out of numba's two passes per
    variable unchanged, and an inlined kernel has thousands of such variables and blocks."""
    from numba.core import errors, ssa
    from numba.core.analysis import compute_cfg_from_blocks

    if not blocks:
        return {}
    cfg = compute_cfg_from_blocks(blocks)
    df_plus = ssa._iterated_domfronts(cfg)
    violators = ssa._find_defs_violators(blocks, cfg)
    scope = ssa._get_scope(blocks)
    if any(name not in scope.localvars for name in violators):
        # a fresh name could then equal a violator's, and its blocks would change: numba's way
        return _numba_run_ssa(blocks)
    # renaming one variable neither adds nor removes another's assignments or uses, so the blocks
    # that mention each violator are found once
    mentions = defaultdict(list)
    for label, block in blocks.items():
        names = set()
        for stmt in block.body:
            names.update(var.name for var in stmt.list_vars())
        for name in names.intersection(violators):
            mentions[name].append(label)
    cache_list_vars = ssa._CacheListVars()
    for name in violators:
        labels = mentions[name]
        states = ssa._make_states(blocks)
        states["varname"] = name
        states["defmap"] = defmap = defaultdict(list)
        blocks = _rewrite(blocks, labels, states, ssa._FreshVarHandler())
        states = ssa._make_states(blocks)
        states.update(
            varname=name,
            defmap=defmap,
            phimap=defaultdict(list),
            cfg=cfg,
            phi_locations=ssa._compute_phi_locations(df_plus, defmap),
        )
        blocks = _rewrite(blocks, labels, states, ssa._FixSSAVars(cache_list_vars))
        for label, phis in states["phimap"].items():
            old = blocks[label]
            blocks[label] = with_phis = type(old)(scope=old.scope, loc=old.loc)
            with_phis.body = phis + old.body
    if compute_cfg_from_blocks(blocks) != cfg:
        raise errors.CompilerError("CFG mutated in SSA pass")
    return blocks


def _rewrite(blocks, labels, states, handler):
    """numba's ``_run_block_rewrite`` on the blocks ``labels``; the others are kept as they are
    (not copied: nothing changes them)."""
    from numba.core import ir

    new = dict(blocks)
    for label in labels:
        block = blocks[label]
        states["label"], states["block"] = label, block
        rewritten = ir.Block(scope=block.scope, loc=block.loc)
        rewritten.body = [
            handler.on_assign(states, stmt)
            if isinstance(stmt, ir.Assign)
            else handler.on_other(states, stmt)
            for stmt in block.body
        ]
        new[label] = rewritten
    return new


_numba_run_ssa = _numba_live_map = None


def _compute_live_map(cfg, blocks, var_use_map, var_def_map):
    """numba's ``analysis.compute_live_map`` — the same two fix points over the same blocks in
    the same order — with each set of variable names held as the bits of an int: an inlined
    kernel has thousands of variables and blocks, and the sets of what reaches a block hold
    most of them."""
    bit: dict = {}

    def bits(names):
        b = 0
        for name in names:
            b |= 1 << bit.setdefault(name, len(bit))
        return b

    order = cfg.topo_order()
    uses = {k: bits(v) for k, v in var_use_map.items()}
    defs = {k: bits(v) for k, v in var_def_map.items()}
    reach: dict = {}
    changed = True
    while changed:  # definitions reaching each block's entry
        changed = False
        for label in order:
            before = reach.get(label, 0)
            here = before | defs.get(label, 0) | uses.get(label, 0)
            if here != before:
                reach[label], changed = here, True
            for succ, _ in cfg.successors(label):
                after = reach.get(succ, 0) | here
                if after != reach.get(succ, 0):
                    reach[succ], changed = after, True
    live = {label: uses.get(label, 0) for label in blocks}
    changed = True
    while changed:  # variables live at each block's entry, pushed back to its predecessors
        changed = False
        for label in reversed(order):
            for pred, _ in cfg.predecessors(label):
                after = live[pred] | (live[label] & reach.get(pred, 0) & ~defs.get(pred, 0))
                if after != live[pred]:
                    live[pred], changed = after, True
    names = list(bit)

    def named(b):
        out = set()
        while b:
            low = b & -b
            out.add(names[low.bit_length() - 1])
            b ^= low
        return out

    return {label: named(b) for label, b in live.items()}


# repair → the numba functions and classes it replaces or mirrors ("module:qualified name") and
# the first 16 hex digits of the sha256 of their source on numba 0.67.0 and 0.68.1, where the
# tests (tests/test_compile_fixes.py, the slow machine-code comparison included) passed
PATCHES = {
    "inliner": {  # (1) and (2): inline_function replaced, deep copies of the rest made shallow
        "numba.core.inline_closurecall:InlineWorker.inline_function": "1b53f183258e659d",
        "numba.core.inline_closurecall:InlineWorker.inline_ir": "26fd2b7600c9d929",
        "numba.core.inline_closurecall:InlineWorker.run_untyped_passes": "b6ca82e78918c615",
        "numba.core.bytecode:FunctionIdentity.derive": "253f34213598ce2e",
        "numba.core.ir:FunctionIR.copy": "502716c3e8f6c579",
        "numba.core.ir:Scope": "79283888bbf10e57",
        "numba.core.ir:Loc": "4d2eabf94e187f92",
        "numba.core.ir:Block": "84251a9088b27dac",
    },
    "call types": {  # (3)
        "numba.core.types.functions:BaseFunction.get_call_type": "6559c167bfc0ad36"
    },
    "ssa": {  # (4): _run_ssa replaced, its passes mirrored on fewer blocks, its parts called
        "numba.core.ssa:_run_ssa": "c497422bcf049990",
        "numba.core.ssa:_fresh_vars": "4a4d13bc0ec57cfb",
        "numba.core.ssa:_fix_ssa_vars": "3f183045a5355bf4",
        "numba.core.ssa:_run_block_rewrite": "d17efdbed57062bf",
        "numba.core.ssa:_run_ssa_block_pass": "b48d590f81cc8b20",
        "numba.core.ssa:_make_states": "4b44d7827493e4b7",
        "numba.core.ssa:_FreshVarHandler": "8b6650f7113790e5",
        "numba.core.ssa:_FixSSAVars": "4113314a369d1dea",
        "numba.core.ssa:_CacheListVars": "5258bb7ea7f47240",
        "numba.core.ssa:_iterated_domfronts": "5457ae972a154114",
        "numba.core.ssa:_find_defs_violators": "013daf6becaf6429",
        "numba.core.ssa:_get_scope": "2fad0960dd02e705",
        "numba.core.ssa:_compute_phi_locations": "9d418ed0e65a2a6a",
    },
    "live variables": {  # (5)
        "numba.core.analysis:compute_live_map": "713c4c094977e93b"
    },
}
TESTED = "numba>=0.67,<0.69"  # pyproject.toml pins the same range

_usable: dict | None = None  # repair → does this numba's source match the one it was checked on
_installed: list = []  # (owner, attribute, what it held before or _MISSING) while active
_MISSING = object()
_TOLD = "LAB_COMPILE_FIXES_TOLD"  # set once the line about a left-out repair was printed
_depth = 0
_numba_run_ssa = _numba_live_map = None  # numba's own, for the tests


def _resolve(name: str):
    import importlib

    module, _, path = name.partition(":")
    obj = importlib.import_module(module)
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _source(name: str) -> str:
    """``inspect.getsource`` of a numba function or top-level class, the same text found faster:
    inspect parses a class's whole module (a third of a second for numba's ir.py), and a process
    looks at these each time it first compiles or loads a kernel."""
    import inspect
    import linecache
    import re
    import sys

    obj = _resolve(name)
    if isinstance(obj, type):
        file = sys.modules[obj.__module__].__file__
        lines = linecache.getlines(file)
        start = next(
            i for i, line in enumerate(lines) if re.match(rf"class {obj.__name__}\b", line)
        )
    else:
        code = inspect.unwrap(obj).__code__
        lines = linecache.getlines(code.co_filename)
        start = code.co_firstlineno - 1
    if not lines:
        raise OSError(f"no source for {name}")
    return "".join(inspect.getblock(lines[start:]))


def source_hash(name: str) -> str | None:
    """The first 16 hex digits of the sha256 of a numba function's source, or None when it is
    gone or has no source."""
    import hashlib

    try:
        text = _source(name)
    except (ImportError, AttributeError, OSError, TypeError, StopIteration):
        return None
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def usable() -> dict[str, bool]:
    """Which repairs this numba's source allows (checked once per process); when any does not,
    one line on stderr says that compiling will be slower."""
    global _usable
    if _usable is None:
        _usable = {
            patch: all(source_hash(name) == digest for name, digest in parts.items())
            for patch, parts in PATCHES.items()
        }
        left_out = [patch for patch, ok in _usable.items() if not ok]
        if left_out and not os.environ.get(_TOLD):
            import sys

            import numba

            os.environ[_TOLD] = "1"  # the run's compile processes and workers do not say it again
            print(
                f"lab: numba {numba.__version__} is not the one lab's compile repairs were "
                f"checked on ({TESTED}; changed: {', '.join(left_out)}): compiling with numba "
                "as shipped there, so the first compile of the engine will be slower "
                "(docs/engine.md, 'The compile repairs')",
                file=sys.stderr,
                flush=True,
            )
    return _usable


def _set(owner, attribute: str, value) -> None:
    _installed.append((owner, attribute, vars(owner).get(attribute, _MISSING)))
    setattr(owner, attribute, value)


def _install() -> None:
    # each part imports only what it replaces: a numba that moved a module loses that part only
    global _numba_run_ssa, _numba_live_map
    ok = usable()
    if ok["inliner"]:
        from numba.core import ir
        from numba.core.inline_closurecall import InlineWorker

        _set(ir.Scope, "__deepcopy__", _scope_deepcopy)
        _set(ir.Loc, "__deepcopy__", _loc_deepcopy)
        _set(ir.Block, "__deepcopy__", _block_deepcopy)
        _set(InlineWorker, "inline_function", _inline_function)
    if ok["call types"]:
        from numba.core.types.functions import Function

        # builtin functions only: a dispatcher's or a bound method's typing has its own caches
        _set(Function, "get_call_type", _memo_call_type(Function.get_call_type))
    if ok["ssa"]:
        from numba.core import ssa

        _numba_run_ssa = ssa._run_ssa
        _set(ssa, "_run_ssa", _run_ssa)
    if ok["live variables"]:
        from numba.core import analysis, ir_utils

        _numba_live_map = analysis.compute_live_map
        _set(analysis, "compute_live_map", _compute_live_map)
        if getattr(ir_utils, "compute_live_map", None) is _numba_live_map:
            _set(ir_utils, "compute_live_map", _compute_live_map)


def _uninstall() -> None:
    while _installed:
        owner, attribute, before = _installed.pop()
        if before is _MISSING:
            delattr(owner, attribute)
        else:
            setattr(owner, attribute, before)


def is_installed() -> bool:
    return bool(_installed)


@contextlib.contextmanager
def active():
    """The repairs this numba allows, installed for the duration (nested uses install once).
    numba's compiler lock is held throughout, so no other thread compiles with them meanwhile."""
    from numba.core.compiler_lock import global_compiler_lock

    global _depth
    if os.environ.get("LAB_COMPILE_FIXES", "1") == "0":
        yield
        return
    with global_compiler_lock:
        if _depth == 0:
            try:
                _install()
            except BaseException:
                _uninstall()  # numba as shipped, not half repaired
                raise
        _depth += 1
        try:
            yield
        finally:
            _depth -= 1
            if _depth == 0:
                _uninstall()
