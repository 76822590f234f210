"""Three repairs to numba's front end that halve a cold compile (239 → 124 CPU s for the
default run's kernels); the compiled code is the same (tests/test_compile_fixes.py compares
the machine code).

Inlining. numba (0.6x) inlines an ``inline="always"`` helper (``jit.hot``) at each call site
by (1) running the whole untyped pipeline on the helper again — its own inlined helpers included,
so nested helpers are re-translated once per copy of every caller — and (2) deep-copying the
helper's IR block by block with a fresh memo each time, so every block copies the function's
whole variable scope again: quadratic in the helper's size. Known upstream (numba issue #8989,
numba-cuda issue #688). Our kernels inline hundreds of copies, and these two costs were most of
the engine's cold start.

(1) The untyped IR of a helper is computed once per process and flags; each call site gets it
with a fresh function identity (so its variables are named apart, as before), and numba's
inliner copies it before changing anything. (2) While a helper is inlined, a block's copy
shares a shallow copy of the scope: the inliner only reads the names and places of the scope's
variables and adds renamed ones, which the shallow copy keeps apart from the original.

Typing. (3) numba types every ``+``, ``<``, ``range`` … of a kernel by trying the operator's
templates again, and an inlined engine types the same few hundred (operator, argument types)
pairs tens of thousands of times. The signature found for a builtin
function is kept per typing context and argument types (a failure is not kept: it raises again).

Applied once, on import of ``lab.engine.jit``, and only to a numba whose internals have the shape
this was written against (otherwise numba is left as it is: slower, still correct).
"""

from __future__ import annotations

import copy
import threading
from collections import defaultdict

_state = threading.local()
_untyped: dict = {}  # (helper, flags, contexts) → its untyped IR
_SCOPE_FIELDS = {"parent", "localvars", "loc", "redefined", "var_redefinitions"}
applied = False


def _shallow_scope(scope, memo):
    from numba.core import ir

    new = ir.Scope.__new__(ir.Scope)
    memo[id(scope)] = new
    new.parent = scope.parent
    new.loc = scope.loc
    new.localvars = ir.VarMap()
    new.localvars._con = dict(scope.localvars._con)
    new.redefined = defaultdict(int, scope.redefined)
    new.var_redefinitions = defaultdict(set, {k: set(v) for k, v in
                                              scope.var_redefinitions.items()})
    return new


def _scope_deepcopy(scope, memo):
    if getattr(_state, "inlining", False):
        return _shallow_scope(scope, memo)
    # what copy.deepcopy does for a plain object without __deepcopy__
    new = type(scope).__new__(type(scope))
    memo[id(scope)] = new
    new.__dict__.update(copy.deepcopy(scope.__dict__, memo))
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
    _state.inlining = True
    try:
        return self.inline_ir(caller_ir, block, i, callee_ir, function.__code__.co_freevars,
                              arg_typs=arg_typs)
    finally:
        _state.inlining = False


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


def apply() -> bool:
    """Install the repairs if this numba's internals are the ones they were written for."""
    global applied
    if applied:
        return True
    try:
        from numba.core import bytecode, ir
        from numba.core.inline_closurecall import InlineWorker
        from numba.core.types.functions import Function
    except ImportError:
        return False
    probe = ir.Scope(None, ir.Loc("probe", 1))
    if (set(vars(probe)) != _SCOPE_FIELDS or "__deepcopy__" in vars(ir.Scope)
            or not hasattr(bytecode.FunctionIdentity, "derive")
            or not hasattr(InlineWorker, "run_untyped_passes")
            or not hasattr(InlineWorker, "inline_ir")
            or "get_call_type" in vars(Function)):
        return False
    ir.Scope.__deepcopy__ = _scope_deepcopy
    InlineWorker.inline_function = _inline_function
    # builtin functions only: a dispatcher's or a bound method's typing has its own caches
    Function.get_call_type = _memo_call_type(Function.get_call_type)
    applied = True
    return True
