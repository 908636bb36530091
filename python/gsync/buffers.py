"""Mapping Python buffers to (bytes view, gsync dtype).

An all-reduce works in place on any writable, C-contiguous buffer: a
``bytearray``, a ``memoryview``, an ``array.array``, a numpy array, or a
contiguous CPU torch tensor. The element type is taken from the object
(numpy/torch dtype or the buffer-protocol format); raw byte buffers, and
16-bit integer buffers holding bf16 or fp16 bits, need ``dtype=``.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple, Union

from . import _abi

DtypeLike = Union[None, int, str, Any]

_ALIASES = {
    "fp32": _abi.DTYPE_FP32, "float32": _abi.DTYPE_FP32, "f32": _abi.DTYPE_FP32,
    "float": _abi.DTYPE_FP32,
    "bf16": _abi.DTYPE_BF16, "bfloat16": _abi.DTYPE_BF16,
    "fp16": _abi.DTYPE_FP16, "float16": _abi.DTYPE_FP16, "f16": _abi.DTYPE_FP16,
    "half": _abi.DTYPE_FP16,
    "int32": _abi.DTYPE_INT32, "i32": _abi.DTYPE_INT32, "int": _abi.DTYPE_INT32,
}

_OPS = {"sum": _abi.OP_SUM, "avg": _abi.OP_AVG, "mean": _abi.OP_AVG,
        "min": _abi.OP_MIN, "max": _abi.OP_MAX}

# buffer-protocol format character -> dtype, for formats that say it all
_FORMATS = {"f": _abi.DTYPE_FP32, "e": _abi.DTYPE_FP16}
# formats holding raw bits: any dtype of a matching element size may be named
_RAW = {"B", "b", "c", "H", "h", "I", "i", "l", "L", "q", "Q"}


def dtype_code(dtype: DtypeLike) -> int:
    """The gsync dtype number of a name (``"fp32"``, ``"bf16"``,
    ``"fp16"``, ``"int32"`` and their numpy/torch spellings), a numpy or
    torch dtype object, or a number 0..3."""
    if isinstance(dtype, bool):
        raise TypeError("dtype must be a name, a numpy/torch dtype or 0..3")
    if isinstance(dtype, int):
        if dtype in _abi.DTYPE_NAMES:
            return dtype
        raise ValueError(f"dtype {dtype}: gsync has 0..3 (fp32, bf16, fp16, int32)")
    name = str(dtype)
    if name.startswith("torch."):
        name = name[6:]
    if name.startswith("<class 'numpy."):
        name = name[14:-2]
    code = _ALIASES.get(name.lower())
    if code is None:
        raise ValueError(f"dtype {dtype!r} is not supported; gsync reduces "
                         "fp32, bf16, fp16 and int32")
    return code


def op_code(op: Union[str, int]) -> int:
    """The gsync operator number of ``"sum"``, ``"avg"`` (or ``"mean"``),
    ``"min"``, ``"max"`` or a number 0..3."""
    if isinstance(op, bool):
        raise TypeError("op must be 'sum', 'avg', 'min', 'max' or 0..3")
    if isinstance(op, int):
        if op in _abi.OP_NAMES:
            return op
        raise ValueError(f"op {op}: gsync has 0..3 (sum, avg, min, max)")
    if not isinstance(op, str):
        raise TypeError(f"op must be a string or 0..3, got {type(op).__name__}")
    code = _OPS.get(op.lower())
    if code is None:
        raise ValueError(f"op {op!r}: gsync has sum, avg, min, max")
    return code


def _is_torch_tensor(obj: Any) -> bool:
    t = type(obj)
    return t.__module__.split(".")[0] == "torch" and hasattr(obj, "data_ptr")


def _torch_view(t: Any, dtype: DtypeLike) -> Tuple[Any, Optional[int]]:
    """A numpy array sharing the tensor's memory, and its gsync dtype."""
    if t.device.type != "cpu":
        raise ValueError(f"tensor on {t.device}: gsync reduces CPU memory "
                         "(copy it to the CPU first)")
    if t.is_sparse:
        raise ValueError("sparse tensors are not supported")
    if not t.is_contiguous():
        raise ValueError("tensor is not contiguous; all_reduce_ works in place "
                         "on contiguous memory (use .contiguous() and copy back)")
    tname = str(t.dtype)[6:]
    code = _ALIASES.get(tname)
    if dtype is not None:
        want = dtype_code(dtype)
        if code is not None and code != want:
            raise ValueError(f"dtype={_abi.DTYPE_NAMES[want]} does not match the "
                             f"tensor's {tname}")
        if code is None and t.element_size() != _abi.DTYPE_SIZE[want]:
            raise ValueError(f"dtype={_abi.DTYPE_NAMES[want]} needs "
                             f"{_abi.DTYPE_SIZE[want]}-byte elements, the tensor's "
                             f"{tname} has {t.element_size()}")
        code = want
    if code is None:
        raise ValueError(f"tensor dtype {tname} is not supported; gsync reduces "
                         "float32, bfloat16, float16 and int32")
    d = t.detach()
    if tname == "bfloat16":  # numpy has no bfloat16: the same bits as int16
        import torch  # only reached with torch loaded
        d = d.view(torch.int16)
    return d.numpy(), code


def as_buffer(obj: Any, dtype: DtypeLike = None) -> Tuple[memoryview, int]:
    """A writable byte view of ``obj``'s memory (no copy) and its gsync
    dtype. Raises TypeError/ValueError naming what is wrong: read-only,
    not contiguous, unsupported or ambiguous element type, empty, a length
    that is not a whole number of elements."""
    src = obj
    if _is_torch_tensor(obj):
        src, code = _torch_view(obj, dtype)
        dtype = code
    try:
        mv = memoryview(src)
    except TypeError:
        raise TypeError(f"{type(obj).__name__} does not expose a buffer; pass a "
                        "bytearray, memoryview, numpy array or CPU torch tensor") from None
    if mv.readonly:
        raise TypeError(f"{type(obj).__name__} is read-only; all_reduce_ writes the "
                        "result in place (use a bytearray or a writable array)")
    if not mv.c_contiguous:
        raise ValueError("buffer is not C-contiguous; all_reduce_ works in place on "
                         "contiguous memory")
    fmt = mv.format
    if fmt[:1] in ("<", "=", "@"):
        fmt = fmt[1:]
    elif fmt[:1] in (">", "!"):
        raise ValueError("big-endian buffers are not supported")
    inferred = _FORMATS.get(fmt)
    if fmt in ("i", "l") and mv.itemsize == 4:
        inferred = _abi.DTYPE_INT32
    if fmt not in _FORMATS and fmt not in _RAW:
        raise ValueError(f"buffer format {mv.format!r} is not supported; gsync "
                         "reduces fp32, bf16, fp16 and int32")
    if dtype is None:
        if inferred is None:
            raise ValueError(f"cannot tell the element type of a buffer of format "
                             f"{mv.format!r} (itemsize {mv.itemsize}); pass dtype= "
                             "('fp32', 'bf16', 'fp16' or 'int32')")
        code = inferred
    else:
        code = dtype_code(dtype)
        if inferred is not None and inferred != code and not _is_torch_tensor(obj):
            raise ValueError(f"dtype={_abi.DTYPE_NAMES[code]} does not match the "
                             f"buffer's element type {_abi.DTYPE_NAMES[inferred]}")
        size = _abi.DTYPE_SIZE[code]
        if inferred is None and mv.itemsize not in (1, size):
            raise ValueError(f"dtype={_abi.DTYPE_NAMES[code]} has {size}-byte elements, "
                             f"the buffer's have {mv.itemsize}")
    raw = mv.cast("B") if mv.ndim != 1 or mv.format != "B" else mv
    if raw.nbytes == 0:
        raise ValueError("empty buffer: an all-reduce needs at least one element")
    if raw.nbytes % _abi.DTYPE_SIZE[code]:
        raise ValueError(f"{raw.nbytes} bytes is not a whole number of "
                         f"{_abi.DTYPE_NAMES[code]} elements")
    return raw, code


def byte_view(obj: Any) -> memoryview:
    """A writable byte view of any contiguous buffer or CPU tensor,
    whatever its element type (for bit-exact copies such as broadcast)."""
    src = obj
    if _is_torch_tensor(obj):
        if obj.device.type != "cpu" or not obj.is_contiguous():
            raise ValueError("tensor must be a contiguous CPU tensor")
        d = obj.detach()
        if str(d.dtype) == "torch.bfloat16":
            import torch
            d = d.view(torch.int16)
        src = d.numpy()
    mv = memoryview(src)
    if mv.readonly:
        raise TypeError(f"{type(obj).__name__} is read-only")
    if not mv.c_contiguous:
        raise ValueError("buffer is not C-contiguous")
    return mv.cast("B") if mv.ndim != 1 or mv.format != "B" else mv
