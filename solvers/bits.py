"""The bit helpers every kind's numba kernels share: ``popcount`` (bits set) and ``lowest_bit``
(the index of the lowest bit set) of an int64, compiled to the processor's own instructions
(LLVM's ctpop and cttz) inside a kernel, and plain Python under NUMBA_DISABLE_JIT=1, where the
kernels call these functions themselves; and ``nth_bit`` (the n-th lowest bit set), a kernel.
A kernel imports them from here rather than keeping a copy."""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload

_WORD = (1 << 64) - 1


def popcount(x: int) -> int:
    """The number of bits set in the 64 bits of ``x`` (a negative int64 as the processor counts it)."""
    return bin(int(x) & _WORD).count("1")


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


@njit(cache=True)
def nth_bit(x: int, n: int) -> int:
    """The ``n``-th (from 0) lowest bit set in ``x`` as a one-bit word (x >= 0 with more than n set)."""
    for _ in range(n):
        x &= x - 1
    return x & -x
