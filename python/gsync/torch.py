"""PyTorch on gsync: in-place all-reduce of CPU tensors, a DDP comm hook,
DiLoCo's outer synchronization, and a digest of a model's state.

Imported as ``gsync.torch`` (needs ``torch``; Debian: python3-torch).

Data-parallel training across islands::

    g = gsync.Group.from_env(window=8)
    model = gsync.torch.ddp(model, g)          # DDP over a size-1 gloo group
    ...                                         # train as usual: loss.backward()

``ddp()`` first copies rank 0's parameters and buffers to every rank
through gsync (DDP's own broadcast runs over the local size-1 process
group and does nothing), then registers :func:`allreduce_hook`, which
averages each gradient bucket with one gsync operation; DDP issues the
hook for every bucket as it fills, so several buckets are in flight.

Low-communication training (DiLoCo)::

    outer = gsync.torch.OuterSync(model, g, every=5)
    for batch in data:
        loss = model(batch).loss; loss.backward(); inner_opt.step(); inner_opt.zero_grad()
        outer.step()       # every 5 steps: all-reduce the pseudo-gradient, outer SGD

Every rank ends each synchronization with bit-identical parameters:
gsync reduces in a fixed rank order, and what follows is deterministic.
"""
import hashlib
import os
import threading
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

import torch as _torch
import torch.distributed as _dist

from . import _abi
from .buffers import byte_view
from .group import Group

__all__ = ["DTYPES", "all_reduce_", "all_reduce_async", "set_default_group",
           "default_group", "local_process_group", "sync_module_states", "HookState",
           "allreduce_hook", "ddp", "OuterSync", "state_digest", "flatten", "unflatten",
           "WIRE_DTYPES", "wire_dtype_of"]

DTYPES: Dict[_torch.dtype, int] = {
    _torch.float32: _abi.DTYPE_FP32,
    _torch.bfloat16: _abi.DTYPE_BF16,
    _torch.float16: _abi.DTYPE_FP16,
    _torch.int32: _abi.DTYPE_INT32,
}
"""Tensor dtypes gsync reduces natively (uapi: enum gsync_dtype)."""

_default: Optional[Group] = None


def set_default_group(group: Optional[Group]) -> None:
    """The group used when a function here is called without ``group=``."""
    global _default
    _default = group


def default_group() -> Group:
    if _default is None:
        raise RuntimeError("no gsync group: pass group= or call "
                           "gsync.torch.set_default_group(gsync.Group(...))")
    return _default


def _check(t: _torch.Tensor) -> None:
    if not isinstance(t, _torch.Tensor):
        raise TypeError(f"expected a torch.Tensor, got {type(t).__name__}")
    if t.device.type != "cpu":
        raise ValueError(f"tensor on {t.device}: gsync reduces CPU memory")
    if t.dtype not in DTYPES:
        raise ValueError(f"tensor dtype {t.dtype} is not supported; gsync reduces "
                         "float32, bfloat16, float16 and int32")


def all_reduce_async(tensor: _torch.Tensor, op: str = "sum",
                     group: Optional[Group] = None):
    """Submit an in-place all-reduce of a contiguous CPU tensor; returns the
    gsync Future (its result is the tensor)."""
    _check(tensor)
    if not tensor.is_contiguous():
        raise ValueError("all_reduce_async needs a contiguous tensor "
                         "(all_reduce_ copies non-contiguous ones)")
    return (group or default_group()).all_reduce_async(tensor, op)


def all_reduce_(tensor: _torch.Tensor, op: str = "sum",
                group: Optional[Group] = None) -> _torch.Tensor:
    """All-reduce a CPU tensor in place and return it.

    Contiguous tensors are reduced in their own memory (no copy on the
    Python side); others go through a contiguous copy. ``op``: sum, avg,
    min, max. dtypes: float32, bfloat16, float16, int32."""
    _check(tensor)
    g = group or default_group()
    if tensor.is_contiguous():
        g.all_reduce_(tensor, op)
        return tensor
    tmp = tensor.contiguous()
    g.all_reduce_(tmp, op)
    with _torch.no_grad():
        tensor.copy_(tmp)
    return tensor


def _pieces(flat: _torch.Tensor, group: Group) -> List[_torch.Tensor]:
    """A 1-D contiguous tensor as views of at most the group's
    max_op_bytes each (one gsync operation apiece)."""
    step = max(1, group.config.effective_max_op_bytes() // flat.element_size())
    return [flat[i:i + step] for i in range(0, flat.numel(), step)] or [flat]


def _reduce_all(flat: _torch.Tensor, op: str, group: Group) -> None:
    """All-reduce a 1-D contiguous tensor in place in as many operations
    as max_op_bytes needs; wait for every one, then raise the first
    failure (so nothing is left in flight in ``flat``)."""
    futs, first = [], None
    try:
        for p in _pieces(flat, group):
            futs.append(group.all_reduce_async(p, op))
    except Exception as e:  # noqa: BLE001: raised once the rest are done
        first = e
    for f in futs:
        e = f.exception()
        if e is not None and first is None:
            first = e
    if first is not None:
        raise first


# ---- flat buffers of many tensors --------------------------------------------
def flatten(tensors: Iterable[_torch.Tensor], dtype: _torch.dtype = _torch.float32) -> _torch.Tensor:
    ts = [t.detach().reshape(-1).to(dtype) for t in tensors]
    return _torch.cat(ts) if ts else _torch.empty(0, dtype=dtype)


def unflatten(flat: _torch.Tensor, tensors: Iterable[_torch.Tensor]) -> None:
    off = 0
    with _torch.no_grad():
        for t in tensors:
            n = t.numel()
            t.copy_(flat[off:off + n].view_as(t))
            off += n


def sync_module_states(module: _torch.nn.Module, group: Optional[Group] = None,
                       root: int = 0) -> None:
    """Copy ``root``'s parameters and buffers into every rank's module, bit
    for bit (one gsync broadcast of all of them, any dtype)."""
    g = group or default_group()
    tensors = list(module.parameters()) + list(module.buffers())
    views = []
    for t in tensors:
        if t.device.type != "cpu":
            raise ValueError("sync_module_states: CPU modules only")
        c = t.detach()
        views.append(c if c.is_contiguous() else c.contiguous())
    total = sum(byte_view(v).nbytes for v in views)
    if total == 0:
        return
    buf = bytearray(total)
    off = 0
    for v in views:
        b = byte_view(v)
        buf[off:off + b.nbytes] = b
        off += b.nbytes
    g.broadcast_(buf, root)
    off = 0
    with _torch.no_grad():
        for t, v in zip(tensors, views):
            b = byte_view(v)
            b[:] = buf[off:off + b.nbytes]
            off += b.nbytes
            if v.data_ptr() != t.data_ptr():  # a contiguous copy: write back
                t.copy_(v)


def local_process_group() -> "_dist.ProcessGroup":
    """A size-1 gloo process group of this process alone, for constructing
    DDP without a global process group (the way torchft does it): DDP's
    collectives then run locally, and gsync carries the gradients.

    Built through the constructor that takes options, not the one that
    takes a timeout. That one is a pybind11 factory ``__init__`` run with
    the GIL released, and pybind11 (up to its fix in pybind11#6172)
    registers the new object in its instance map there, unlocked: another
    thread creating or freeing a pybind11 object at that moment corrupts
    the map, and the process aborts later with "pybind11_object_dealloc():
    Tried to deallocate unregistered instance!" (pybind11#5473). gsync's
    receiver thread, and other ranks' threads in the host tests, are
    running when ddp() gets here. The options are what that constructor
    would make: GLOO_SOCKET_IFNAME's interfaces if set, else the host
    name's address (or loopback)."""
    pg = _dist.ProcessGroupGloo
    opts = pg._Options()
    ifnames = os.environ.get("GLOO_SOCKET_IFNAME", "")
    if len(ifnames) > 1:  # as torch reads it
        opts._devices = [pg.create_device(interface=i) for i in ifnames.split(",")]
    else:
        opts._devices = [pg.create_default_device()]
    opts._threads = 2 * len(opts._devices)
    return pg(_dist.HashStore(), 0, 1, opts)


WIRE_DTYPES: Dict[str, _torch.dtype] = {
    "bf16": _torch.bfloat16, "bfloat16": _torch.bfloat16,
    "fp16": _torch.float16, "float16": _torch.float16,
}
"""Names accepted as ``wire_dtype`` (None: float32 as it is)."""


def wire_dtype_of(name: Optional[str]) -> Optional[_torch.dtype]:
    """The torch dtype a ``wire_dtype`` name sends float32 values as."""
    if name is None:
        return None
    if name not in WIRE_DTYPES:
        raise ValueError(f"wire_dtype {name!r}: None, 'bf16' or 'fp16'")
    return WIRE_DTYPES[name]


# ---- DDP comm hook ----------------------------------------------------------------
class HookState:
    """State of :func:`allreduce_hook`: the group, and optionally a wire
    dtype, ``"bf16"`` or ``"fp16"``: float32 buckets are rounded to it,
    averaged (gsync sums 16-bit values in float32, divides once, and
    rounds the average once), and widened back, halving the bytes sent.
    fp16 keeps 3 more bits than bf16 but holds only magnitudes up to
    65504: one of 65520 or more becomes inf on every rank alike, as with
    torch's fp16 compress hook."""

    def __init__(self, group: Group, wire_dtype: Optional[str] = None) -> None:
        self.wire_dtype = wire_dtype_of(wire_dtype)
        self.group = group
        self.wire_bf16 = self.wire_dtype is _torch.bfloat16
        self.buckets = 0
        self.lock = threading.Lock()

    def __setstate__(self, state):  # DDP may pickle hook states
        self.__dict__.update(state)
        self.lock = threading.Lock()

    def __getstate__(self):
        d = dict(self.__dict__)
        d.pop("lock", None)
        return d


def allreduce_hook(state: Union[HookState, Group],
                   bucket: _dist.GradBucket) -> _torch.futures.Future[_torch.Tensor]:
    """DDP communication hook: average the bucket across the gsync group.

    Register with ``ddp_model.register_comm_hook(HookState(group), allreduce_hook)``
    (a Group is accepted as state too). Returns a ``torch.futures.Future``
    completed by gsync's receiver thread, so DDP keeps filling and
    submitting later buckets while earlier ones are on the wire (up to the
    group's window). A bucket over the group's max_op_bytes is sent as
    several operations. A failed operation (GsyncTimeout, ...) becomes the
    future's exception and surfaces from ``backward()``."""
    st = state if isinstance(state, HookState) else HookState(state)
    buf = bucket.buffer()
    fut: _torch.futures.Future = _torch.futures.Future()
    if buf.dtype not in DTYPES:
        fut.set_exception(ValueError(f"gsync: bucket dtype {buf.dtype} not supported"))
        return fut
    with st.lock:
        st.buckets += 1
    wdt = getattr(st, "wire_dtype", _torch.bfloat16 if st.wire_bf16 else None)
    wire = buf.to(wdt) if wdt is not None and buf.dtype == _torch.float32 else buf
    # A bucket over max_op_bytes (a parameter larger than bucket_cap_mb
    # gets a bucket of its own) goes as several operations.
    gfs: List[Any] = []
    errs: List[BaseException] = []
    try:
        for p in _pieces(wire.view(-1), st.group):
            gfs.append(st.group.all_reduce_async(p, "avg"))
    except Exception as e:  # noqa: BLE001: the submitted pieces still complete
        errs.append(e)
    if not gfs:
        fut.set_exception(errs[0])
        return fut
    left = [len(gfs)]
    lock = threading.Lock()

    def done(f) -> None:
        e = f.exception()
        with lock:
            if e is not None:
                errs.append(e)
            left[0] -= 1
            if left[0]:
                return
        if errs:
            fut.set_exception(errs[0])
            return
        if wire is not buf:
            buf.copy_(wire)
        fut.set_result(buf)

    for gf in gfs:
        gf.add_done_callback(done)
    return fut


def ddp(module: _torch.nn.Module, group: Optional[Group] = None, *,
        wire_dtype: Optional[str] = None, sync_states: bool = True,
        process_group: Any = None, **ddp_kwargs: Any):
    """Wrap ``module`` in DistributedDataParallel whose gradients are
    averaged by gsync: a local size-1 gloo process group (unless given),
    rank 0's states copied to every rank through gsync, and
    :func:`allreduce_hook` registered (``wire_dtype='bf16'`` or ``'fp16'``
    to send 16-bit values). Other keyword arguments go to DDP (e.g. bucket_cap_mb)."""
    from torch.nn.parallel import DistributedDataParallel
    g = group or default_group()
    if sync_states:
        sync_module_states(module, g)
    pg = process_group if process_group is not None else local_process_group()
    model = DistributedDataParallel(module, process_group=pg, **ddp_kwargs)
    model.register_comm_hook(HookState(g, wire_dtype), allreduce_hook)
    return model


# ---- DiLoCo --------------------------------------------------------------------------
class OuterSync:
    """DiLoCo's outer loop (Douillard et al., 2023) over gsync.

    Every ``every`` (H) inner steps, :meth:`step` all-reduces the
    pseudo-gradient (the parameters at the last synchronization minus the
    current ones, averaged over ranks), applies the outer optimizer to the
    synchronized copy (default: SGD lr 0.7, momentum 0.9, Nesterov), and
    loads the result into the model. Floating-point buffers are averaged
    too. Construction copies rank 0's parameters to every rank.

    ``wire_dtype='bf16'`` or ``'fp16'`` sends the pseudo-gradient as
    16-bit values (gsync sums them in float32 and rounds the average
    once). bf16 has float32's range and 8 significant bits; fp16 has 11,
    but only magnitudes up to 65504, and below 6.1e-5 it loses precision
    (subnormals) until values under 3e-8 become 0. If the fp16 average
    holds an inf or NaN (an element of magnitude 65520 or more on some
    rank), every rank sees the same bits and sends that pseudo-gradient
    again as float32, so the outer step is the float32 one
    (``fp16_fallbacks`` counts these). Over the group's max_op_bytes the
    pseudo-gradient goes as several operations.
    """

    def __init__(self, module: _torch.nn.Module, group: Optional[Group] = None,
                 every: int = 5,
                 outer_optimizer: Optional[Callable[[List[_torch.Tensor]], Any]] = None,
                 wire_dtype: Optional[str] = None, sync_states: bool = True) -> None:
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError("every: the number of inner steps between syncs, >= 1")
        self.wire_dtype = wire_dtype_of(wire_dtype)
        self.module = module
        self.group = group or default_group()
        self.every = every
        self.wire_bf16 = self.wire_dtype is _torch.bfloat16
        self.params = [p for p in module.parameters() if p.requires_grad]
        for p in self.params:
            if p.device.type != "cpu" or p.dtype != _torch.float32:
                raise ValueError("OuterSync: float32 CPU parameters only")
        if sync_states:
            sync_module_states(module, self.group)
        self.master = [p.detach().clone() for p in self.params]
        for m in self.master:
            m.requires_grad_(True)
        if outer_optimizer is None:
            self.optimizer = _torch.optim.SGD(self.master, lr=0.7, momentum=0.9, nesterov=True)
        else:
            self.optimizer = outer_optimizer(self.master)
        self.inner_steps = 0
        self.syncs = 0
        self.fp16_fallbacks = 0

    def step(self) -> bool:
        """Count one inner step; synchronize every ``every`` steps. Returns
        True if it synchronized."""
        self.inner_steps += 1
        if self.inner_steps % self.every:
            return False
        self.sync()
        return True

    @_torch.no_grad()
    def sync(self) -> None:
        """All-reduce the pseudo-gradient and take one outer step now."""
        delta = flatten([m - p for m, p in zip(self.master, self.params)])
        wire = delta.to(self.wire_dtype) if self.wire_dtype is not None else delta
        _reduce_all(wire, "avg", self.group)
        if wire.dtype == _torch.float16 and not bool(_torch.isfinite(wire).all()):
            # Out of fp16's range somewhere. The reduced bits are the same
            # on every rank, so all of them take this branch together.
            self.fp16_fallbacks += 1
            wire = delta
            _reduce_all(wire, "avg", self.group)
        if wire is not delta:
            delta.copy_(wire)
        off = 0
        for m in self.master:
            n = m.numel()
            m.grad = delta[off:off + n].view_as(m).clone()
            off += n
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        for m, p in zip(self.master, self.params):
            p.copy_(m)
        bufs = [b for b in self.module.buffers() if b.dtype == _torch.float32]
        if bufs:
            flat = flatten(bufs)
            _reduce_all(flat, "avg", self.group)
            unflatten(flat, bufs)
        self.syncs += 1

    def state_dict(self) -> Dict[str, Any]:
        return {"master": [m.detach().clone() for m in self.master],
                "optimizer": self.optimizer.state_dict(),
                "inner_steps": self.inner_steps, "syncs": self.syncs,
                "fp16_fallbacks": self.fp16_fallbacks}


def state_digest(obj: Union[_torch.nn.Module, Dict[str, _torch.Tensor]]) -> str:
    """SHA-256 (hex) of a module's state_dict (or a dict of tensors): names,
    dtypes, shapes and raw bytes in order. Equal digests on two ranks mean
    bit-identical state."""
    sd = obj.state_dict() if isinstance(obj, _torch.nn.Module) else obj
    h = hashlib.sha256()
    for name, t in sd.items():
        h.update(name.encode() + b"\0")
        if not isinstance(t, _torch.Tensor):
            h.update(repr(t).encode() + b"\0")
            continue
        c = t.detach().cpu().contiguous()
        h.update(f"{c.dtype}{tuple(c.shape)}".encode() + b"\0")
        h.update(bytes(byte_view(c)) if c.numel() else b"")
    return h.hexdigest()
