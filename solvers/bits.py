"""Bit counts for the numba kernels (Sudoku's fast kernel, the n-Queens constellation search):
``popcount`` (bits set) and ``lowest_bit`` (the index of the lowest bit set) of a non-negative
int64, compiled to the processor's own instructions (LLVM's ctpop and cttz) inside a kernel, and
plain Python under NUMBA_DISABLE_JIT=1, where the kernels call these functions themselves."""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload


def popcount(x: int) -> int:
    """The number of bits set in ``x`` (x >= 0)."""
    return bin(int(x)).count("1")


def lowest_bit(x: int) -> int:
    """The index of the lowest bit set in ``x`` (x > 0)."""
    x = int(x)  # numpy integers have no bit_length
    return (x & -x).bit_length() - 1


@intrinsic
def _ctpop(typingctx: Any, x: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


@intrinsic
def _cttz(typingctx: Any, x: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.int64), codegen


@overload(popcount, inline="always")
def _popcount_jit(x: Any) -> Any:
    def impl(x: Any) -> Any:  # the typing function's signature, annotations included
        return _ctpop(np.int64(x))  # type: ignore[call-arg]  # numba passes the typing context

    return impl if isinstance(x, types.Integer) else None


@overload(lowest_bit, inline="always")
def _lowest_bit_jit(x: Any) -> Any:
    def impl(x: Any) -> Any:
        return _cttz(np.int64(x))  # type: ignore[call-arg]  # numba passes the typing context

    return impl if isinstance(x, types.Integer) else None
