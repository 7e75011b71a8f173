"""Bit tricks for stone masks inside Numba kernels (LLVM intrinsics, portable)."""

from __future__ import annotations

from llvmlite import binding, ir
from numba.core import cgutils, config, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from .kernelcache import install

install()  # before any kernel module defines a kernel: they all import this one first


@intrinsic
def popcount(typingctx, x):
    """Number of set bits; LLVM emits ``popcnt`` where the CPU has it."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


#: CPUs with BMI2 whose ``pext`` is microcode taking tens to hundreds of cycles (AMD
#: before Zen 3): slower than the loops it would replace.
SLOW_PEXT = frozenset({"bdver4", "znver1", "znver2"})

#: Whether the kernels use ``pext``: the CPU has a fast one and Numba compiles for this
#: CPU (``NUMBA_CPU_NAME`` set means portable code for another one).
HAS_PEXT = (not config.CPU_NAME and binding.get_host_cpu_name() not in SLOW_PEXT
            and bool(binding.get_host_cpu_features().get("bmi2", False)))


@intrinsic
def pext(typingctx, x, mask):
    """The bits of ``x`` at the set bits of ``mask``, packed at the bottom (x86 BMI2
    ``pext``; only where ``HAS_PEXT``: LLVM cannot compile it for other CPUs)."""
    if not (isinstance(x, types.Integer) and isinstance(mask, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(i64, [i64, i64]), "llvm.x86.bmi.pext.64"
        )
        wide = [context.cast(builder, a, t, types.int64)
                for a, t in zip(args, signature.args, strict=True)]
        return builder.call(fn, wide)

    return types.int64(x, mask), codegen


__all__ = ["HAS_PEXT", "atomic_decrement", "pext", "popcount", "prefetch", "trailing_zeros"]


def _array_and_index(array, index) -> bool:
    """Whether an intrinsic's (array, index) arguments have types it can compile for."""
    return isinstance(array, types.Array) and isinstance(index, types.Integer)


def _element_pointer(context, builder, signature, args):
    """LLVM pointer to ``array[index]`` for an intrinsic called as ``f(array, index)``."""
    arytype = signature.args[0]
    ary = context.make_array(arytype)(context, builder, args[0])
    return cgutils.get_item_pointer(context, builder, arytype, ary, [args[1]])


@intrinsic
def atomic_decrement(typingctx, array, index):
    """Atomically subtract 1 from ``array[index]`` and return the value it held before.

    Numba has no CPU atomics; this is LLVM's ``atomicrmw sub`` (monotonic ordering is
    enough: the solver only needs every decrement to land exactly once, and the
    level-synchronous passes provide the ordering between levels)."""
    if not _array_and_index(array, index):
        return None

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature, args)
        one = context.get_constant(signature.args[0].dtype, 1)
        return builder.atomic_rmw("sub", ptr, one, "monotonic")

    return array.dtype(array, index), codegen


def _prefetch_codegen(write):
    """``llvm.prefetch`` of the line of ``array[index]``: write or read intent, kept in
    all cache levels, data cache."""

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature, args)
        i32 = ir.IntType(32)
        byte_ptr = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, byte_ptr), i32(int(write)), i32(3), i32(1)])
        return context.get_dummy_value()

    return codegen


@intrinsic
def prefetch(typingctx, array, index):
    """Hint the CPU to fetch the cache line of ``array[index]`` for writing.

    The solver's atomic decrements are locked instructions: each one waits for its own
    cache miss before the next memory access may start. Prefetching all the lines a
    position's predecessors touch first lets those misses overlap (LLVM's
    ``llvm.prefetch``; no effect on results)."""
    if not _array_and_index(array, index):
        return None
    return types.none(array, index), _prefetch_codegen(write=True)


@intrinsic
def prefetch_read(typingctx, array, index):
    """Hint the CPU to fetch the cache line of ``array[index]`` for reading: for tables
    every thread reads, whose lines a write intent would take from the other cores."""
    if not _array_and_index(array, index):
        return None
    return types.none(array, index), _prefetch_codegen(write=False)
