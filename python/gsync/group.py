"""gsync.Group: one rank's membership of an all-reduce group."""
from __future__ import annotations

import collections
import concurrent.futures
import errno
import os
import select
import socket
import threading
from typing import Any, Deque, Dict, Iterable, Optional, Union

from . import _abi
from .buffers import DtypeLike, as_buffer, byte_view, op_code
from .config import Config, EndpointLike, from_env, make_config
from .errors import GsyncClosed, GsyncError, ModuleNotLoaded, error_for
from .keys import Key, KeyLike, as_key


def family(path: str = _abi.FAMILY_PATH) -> int:
    """The address family number gsync is loaded with (never hard-code it:
    the module may be loaded with ``family=N``). Raises ModuleNotLoaded."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        raise ModuleNotLoaded(path) from None
    try:
        return int(text.strip())
    except ValueError:
        raise GsyncError(errno.EINVAL, f"{path}: malformed family number {text!r}") from None


def open_socket(fam: Optional[int] = None) -> socket.socket:
    """A new AF_GSYNC socket, as a Python socket object.

    Python's recvmsg() needs the size of the family's socket address and
    knows none for gsync's number; gsync messages carry no address, so the
    descriptor is wrapped as an AF_UNIX socket object (the kernel still
    sees the AF_GSYNC socket)."""
    raw = socket.socket(family() if fam is None else fam, socket.SOCK_SEQPACKET, 0)
    return socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, 0, fileno=raw.detach())


class Future(concurrent.futures.Future):
    """The pending result of :meth:`Group.all_reduce_async`.

    A :class:`concurrent.futures.Future` whose result is the buffer that
    was passed in (now holding the reduced values); on failure its
    exception is a :class:`GsyncError` subclass with the op's ``seq``.
    ``wait()`` is ``result()`` for symmetry with torch futures."""

    seq: int

    def wait(self, timeout: Optional[float] = None) -> Any:
        return self.result(timeout)


class _Op:
    __slots__ = ("seq", "view", "dtype", "op", "obj", "future")

    def __init__(self, seq, view, dtype, op, obj):
        self.seq, self.view, self.dtype, self.op, self.obj = seq, view, dtype, op, obj
        self.future = Future()
        self.future.seq = seq


_CMSG_SPACE_RESULT = socket.CMSG_SPACE(_abi.OP_RESULT.size)


class Group:
    """One rank of a gsync all-reduce group, as a context manager::

        with gsync.Group(rank, ["198.18.0.1:7000", "198.18.0.2:7000"],
                         mcast="239.1.1.1:7100") as g:
            g.all_reduce_(grads)               # in place, dtype from grads
            fut = g.all_reduce_async(other)    # several may be in flight
            fut.result()

    ``members`` lists every rank's unicast endpoint in rank order (a list
    of ``"addr:port"``/``(addr, port)`` or one comma-separated string);
    this rank's entry is the local endpoint the kernel binds. Give
    ``mcast="group:port"`` for multicast or ``unicast=True`` for unicast
    fan-out. Tunables (zero = kernel default): ``window`` (ops in flight,
    1..64), ``op_timeout_ms``, ``repair_ms``, ``pacing_rate`` (bytes/s;
    gsync has no congestion control, see the README), ``mtu``,
    ``max_op_bytes``, ``ttl``, ``ifname``/``ifindex``, ``mcast_loop``,
    ``group_id`` (default: derived from the members and mcast, so every
    rank agrees).

    ``key=`` keys the group (GSYNC_KEY, set before GSYNC_JOIN): every
    packet is then authenticated, and with the default mode encrypted
    (docs/security.md). It takes a :class:`gsync.Key` (secret, mode
    ``"encrypt"`` or ``"auth"``, epoch), the 32-byte secret itself, or the
    path (str or PathLike) of a key file as ``gsyncctl key generate``
    writes it, which is refused with PermissionError if group or others
    may access it; the last two key with mode ``"encrypt"``, epoch 1.
    Every rank must use the same secret, mode and epoch: a rank with
    another key is never heard (its peers' operations fail with
    GsyncTimeout and they count ``drop_auth``). :meth:`rotate_key`
    changes it while the group runs.

    ``sock=`` takes an AF_GSYNC socket already opened (default: a new one;
    the host tests pass a stand-in).

    Sequence numbers are handled here: every call submits the next one,
    and all ranks must make the same calls in the same order with buffers
    of the same length, dtype and op. Results are written into the caller's
    buffer by a background thread (started on the first operation) in
    submission order; the buffer must not be touched until the operation's
    future is done. Done-callbacks run on that thread: they must not wait
    for another gsync operation (it could never complete).
    """

    def __init__(self, rank: int, members: Union[str, Iterable[EndpointLike]],
                 mcast: Optional[EndpointLike] = None, unicast: bool = False,
                 key: Optional[KeyLike] = None, *, sock: Optional[socket.socket] = None,
                 **tunables: Any) -> None:
        self.config: Config = make_config(rank, members, mcast, unicast, **tunables)
        k = None if key is None else as_key(key)   # a refused key file: before any socket
        self._sock = sock if sock is not None else open_socket()
        self._closed = False
        if k is not None:
            try:
                _set_key(self._sock, k, 0)
            except OSError as e:
                self._sock.close()
                self._closed = True
                raise GsyncError(e.errno, f"GSYNC_KEY refused: {os.strerror(e.errno)}"
                                 + _key_hint(e.errno)) from None
        try:
            self._sock.setsockopt(_abi.SOL_GSYNC, _abi.GSYNC_JOIN, self.config.join_blob())
        except OSError as e:
            self._sock.close()
            self._closed = True
            raise GsyncError(e.errno, f"GSYNC_JOIN refused: {os.strerror(e.errno)}"
                             + _join_hint(e.errno)) from None
        self._next_seq = self.info()["next_seq"] or 1
        self._submit_lock = threading.Lock()
        self._cv = threading.Condition()
        self._pending: Deque[_Op] = collections.deque()
        self._thread: Optional[threading.Thread] = None
        self._stop = False
        self._wake_r, self._wake_w = os.pipe()
        self._fatal: Optional[BaseException] = None
        self._inflight_max = 0

    # ---- construction helpers -------------------------------------------------
    @classmethod
    def from_env(cls, env: Optional[Dict[str, str]] = None, **overrides: Any) -> "Group":
        """A Group from ``GSYNC_RANK``, ``GSYNC_MEMBERS``, ``GSYNC_MCAST``
        and, for a keyed group, ``GSYNC_KEY_FILE`` (with ``GSYNC_KEY_MODE``)
        (see :func:`gsync.config.from_env`); keyword arguments override."""
        kw = from_env(env)
        if "mcast" in overrides or "unicast" in overrides:
            kw.pop("mcast", None)
            kw.pop("unicast", None)
        kw.update(overrides)
        return cls(**kw)

    # ---- properties -----------------------------------------------------------
    @property
    def rank(self) -> int:
        return self.config.rank

    @property
    def size(self) -> int:
        return self.config.nranks

    @property
    def next_seq(self) -> int:
        """The sequence number the next operation will carry."""
        return self._next_seq

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def inflight_max(self) -> int:
        """The most operations this Group has had submitted and not yet
        collected at once (since creation or :meth:`reset_inflight_max`):
        how much overlap the caller got, e.g. DDP buckets on the wire
        together (a hook that waited for each would leave it at 1)."""
        return self._inflight_max

    def reset_inflight_max(self) -> int:
        """Start counting :attr:`inflight_max` afresh (from the operations
        in flight now); returns the previous value."""
        with self._cv:
            old, self._inflight_max = self._inflight_max, len(self._pending)
        return old

    def fileno(self) -> int:
        return self._sock.fileno()

    # ---- operations -----------------------------------------------------------
    def all_reduce_async(self, buf: Any, op: Union[str, int] = "sum",
                         dtype: DtypeLike = None) -> Future:
        """Submit an all-reduce of ``buf`` in place; returns a Future.

        Blocks only while the window (``window`` operations submitted and
        not yet collected) is full. Raises GsyncError at once if the kernel
        refuses the submission (e.g. EMSGSIZE: larger than max_op_bytes)."""
        view, code = as_buffer(buf, dtype)
        opc = op_code(op)
        if view.nbytes > self.config.effective_max_op_bytes():
            raise GsyncError(errno.EMSGSIZE,
                             f"{view.nbytes} bytes is more than max_op_bytes="
                             f"{self.config.effective_max_op_bytes()}")
        with self._submit_lock:
            self._check_open()
            seq = self._next_seq
            cmsg = [(_abi.SOL_GSYNC, _abi.GSYNC_CMSG_OP,
                     _abi.OP_DESC.pack(seq, code, opc, 0, 0))]
            try:
                n = self._sock.sendmsg([view], cmsg)
            except OSError as e:
                raise error_for(e.errno, seq,
                                f"submitting operation failed: {os.strerror(e.errno)}") from None
            if n != view.nbytes:
                raise GsyncError(errno.EIO, f"short submission ({n} of {view.nbytes} bytes)", seq)
            o = _Op(seq, view, code, opc, buf)
            self._next_seq = seq + 1
            with self._cv:
                self._pending.append(o)
                self._inflight_max = max(self._inflight_max, len(self._pending))
                self._cv.notify_all()
            self._ensure_thread()
        return o.future

    def all_reduce_(self, buf: Any, op: Union[str, int] = "sum",
                    dtype: DtypeLike = None) -> Any:
        """All-reduce ``buf`` in place (blocking) and return it.

        ``op`` is ``"sum"``, ``"avg"``, ``"min"`` or ``"max"``; the dtype
        comes from ``buf`` (or ``dtype=`` for raw buffers). Every rank ends
        with the same bits (the reduction runs in a fixed rank order).
        Raises GsyncTimeout, GsyncMismatch, GsyncAborted (OSError
        subclasses with ``errno`` and ``seq``)."""
        return self.all_reduce_async(buf, op, dtype).result()

    def broadcast_(self, buf: Any, root: int = 0) -> Any:
        """Copy ``root``'s buffer into every rank's ``buf``, bit for bit.

        Done as an int32 sum of the raw bytes in which every other rank
        contributes zeros (exact for any bit pattern: NaN payloads, -0.0);
        a length that is not a multiple of 4 is padded through a copy."""
        if not 0 <= root < self.size:
            raise ValueError(f"root {root} outside 0..{self.size - 1}")
        view = byte_view(buf)
        n = view.nbytes
        body, rest = n - n % 4, n % 4
        if self.rank != root:
            view[:] = bytes(n)
        step = self.config.effective_max_op_bytes() & ~3
        futs = [self.all_reduce_async(view[off:min(off + step, body)], "sum", "int32")
                for off in range(0, body, step)]
        tail = bytearray(4)
        if rest:
            tail[:rest] = view[body:]
            futs.append(self.all_reduce_async(tail, "sum", "int32"))
        for f in futs:
            f.result()
        if rest:
            view[body:] = tail[:rest]
        return buf

    def barrier(self) -> None:
        """Return once every rank has called barrier() (a 4-byte all-reduce)."""
        self.all_reduce_(bytearray(4), "sum", "int32")

    def synchronize(self, timeout: Optional[float] = None) -> None:
        """Wait until every submitted operation has completed (or failed;
        failures are reported by their futures, not here)."""
        with self._cv:
            if not self._cv.wait_for(lambda: not self._pending, timeout):
                raise TimeoutError("operations still in flight")

    # ---- socket options ---------------------------------------------------------
    def info(self) -> Dict[str, int]:
        """GSYNC_INFO as a dict (state, rank, nranks, next_seq, inflight,
        window, chunk_bytes, ..., send_rate) and the key: ``key_mode``
        (0 none, 1 auth, 2 encrypt; :attr:`key_mode` names it),
        ``key_epoch`` (the epoch it sends with), ``key_fingerprint`` (an
        int; ``f"{fp:016x}"`` is how gsyncctl prints it) and
        ``key_next_epoch`` (a rotation installed, not yet in use; 0 =
        none). An older module's shorter struct leaves what it lacks 0."""
        raw = self._sock.getsockopt(_abi.SOL_GSYNC, _abi.GSYNC_INFO, _abi.INFO.size)
        raw = raw + bytes(_abi.INFO.size - len(raw))
        out = dict(zip(_abi.INFO_FIELDS, _abi.INFO.unpack(raw)))
        del out["reserved0"]
        return out

    @property
    def key_mode(self) -> str:
        """``"none"``, ``"auth"`` or ``"encrypt"``: how the group is keyed."""
        m = self.info()["key_mode"]
        return _abi.KEY_MODE_NAMES.get(m, str(m))

    def stats(self) -> Dict[str, int]:
        """GSYNC_STATS as a dict: counters since the socket was opened
        (ops_*, tx/rx bytes and packets, nacks, retransmits, timeouts,
        mismatches, ...), ``drop_<reason>`` for every drop reason (those of
        keyed groups, ``drop_auth``, ``drop_replay`` and ``drop_epoch``,
        included), and the rate control's reports_sent, reports_received,
        rate_decreases and rate_loss_decreases (of rate_decreases, those
        for loss; the others were for a queue). Counters an older module's
        shorter struct lacks are 0."""
        raw = self._sock.getsockopt(_abi.SOL_GSYNC, _abi.GSYNC_STATS, _abi.STATS_SIZE)
        vals = [int.from_bytes(raw[i:i + 8], "little") for i in range(0, len(raw) - 7, 8)]
        names = _abi.STATS_LAYOUT
        out = {n: 0 for n in _abi.STATS_FIELDS}
        out.update({"drop_" + n: 0 for n in _abi.DROP_NAMES})
        out.update({n: 0 for n in _abi.STATS_LATE})
        out.update(zip(names, vals))
        return out

    def rotate_key(self, key: KeyLike, start_seq: Optional[int] = None) -> Key:
        """Rotate the group's key (GSYNC_KEY after the join): from
        operation ``start_seq`` on this rank sends under ``key``, and
        accepts both keys around the switch; the old one is erased once no
        operation needs it. Every rank must call it with the same key,
        epoch and start_seq before it submits that operation.

        ``key`` is a :class:`Key` (its mode must be the group's, its epoch
        above the current one), or the secret or a key file's path, which
        take the group's mode and the current epoch + 1.

        ``start_seq=None`` takes ``next_seq + window``: the same on every
        rank that calls rotate_key at the same point of its sequence of
        operations (every rank submits the same ones), and far enough
        ahead that no rank can send operation start_seq before every rank
        has installed the key (a rank runs at most ``window`` operations
        ahead of the slowest). Give an explicit start_seq when the ranks
        call it at different points; it must not have been submitted here
        yet. Returns the Key installed.

        Raises GsyncError: EISCONN (the group was joined without a key),
        EBUSY (the previous rotation is still pending: its old key is kept
        until no operation needs it; retry later), EINVAL (an epoch not
        above the current one, another mode), ERANGE (start_seq was
        already submitted)."""
        inf = self.info()
        if inf["key_mode"] == _abi.KEY_NONE:
            raise GsyncError(errno.EISCONN, "rotate_key: the group was joined without a "
                             "key; an unkeyed group cannot become keyed")
        mode = _abi.KEY_MODE_NAMES.get(inf["key_mode"], "?")
        k = as_key(key, mode, (inf["key_epoch"] + 1) & 0xffffffff)
        if k.mode != mode:
            raise ValueError(f"rotate_key: key mode {k.mode!r}, but the group's is {mode!r} "
                             "(a group's mode never changes)")
        if k.epoch <= inf["key_epoch"]:
            raise ValueError(f"rotate_key: epoch {k.epoch} is not above the group's "
                             f"current epoch {inf['key_epoch']}")
        with self._submit_lock:
            self._check_open()
            if start_seq is None:
                start_seq = self._next_seq + self.config.effective_window()
            if isinstance(start_seq, bool) or not isinstance(start_seq, int):
                raise TypeError("start_seq must be an integer")
            if start_seq < self._next_seq:
                raise ValueError(f"rotate_key: start_seq {start_seq} was already submitted "
                                 f"(the next operation is {self._next_seq})")
            try:
                _set_key(self._sock, k, start_seq)
            except OSError as e:
                raise GsyncError(e.errno, "GSYNC_KEY (rotation) refused: "
                                 + os.strerror(e.errno) + _key_hint(e.errno)) from None
        return k

    @property
    def pacing_rate(self) -> int:
        raw = self._sock.getsockopt(_abi.SOL_GSYNC, _abi.GSYNC_PACING_RATE, 8)
        return int.from_bytes(raw, "little")

    @pacing_rate.setter
    def pacing_rate(self, rate: int) -> None:
        if isinstance(rate, bool) or not isinstance(rate, int) or not 0 <= rate < 1 << 64:
            raise ValueError("pacing_rate: bytes/s as a non-negative integer (0 = adaptive)")
        self._sock.setsockopt(_abi.SOL_GSYNC, _abi.GSYNC_PACING_RATE, rate.to_bytes(8, "little"))

    def load_schedule(self, schedule: Any, *, ranks: Optional[Iterable[str]] = None,
                      topology: Any = None, start_seq: Optional[int] = None,
                      clique_groups: Optional[bool] = None,
                      group_base: Any = None) -> bytes:
        """Load a schedule (GSYNC_SCHEDULE): a blob as ``gsync-sched export``
        writes it, a gsync-schedule/1 JSON file or dict (see
        :func:`gsync.schedule.compile_schedule` for ``ranks``/``topology``,
        and ``clique_groups``/``group_base``, off by default for JSON), or
        None to return to the default schedule. ``start_seq`` (default:
        the blob's, 0 = the next operation) must be the same on every rank.
        In a multicast group the clique addresses (GSYNC_SCHF_CLIQUE_GROUPS)
        are checked against the group's address first. Returns the blob
        loaded."""
        from .schedule import compile_schedule
        if schedule is None:
            self._sock.setsockopt(_abi.SOL_GSYNC, _abi.GSYNC_SCHEDULE, None, 0)
            return b""
        mcast = self.config.mcast
        blob = compile_schedule(schedule, ranks=ranks, topology=topology,
                                start_seq=start_seq, unicast=self.config.unicast,
                                nranks=self.size, clique_groups=clique_groups,
                                group_base=group_base, group=mcast[0] if mcast else None)
        try:
            self._sock.setsockopt(_abi.SOL_GSYNC, _abi.GSYNC_SCHEDULE, blob)
        except OSError as e:
            raise GsyncError(e.errno, "GSYNC_SCHEDULE refused: " + os.strerror(e.errno)
                             + _sched_hint(e.errno)) from None
        return blob

    def schedule(self) -> bytes:
        """The schedule blob most recently loaded (b"" for the default)."""
        try:
            # Python's getsockopt() takes at most 1024 bytes.
            return self._sock.getsockopt(_abi.SOL_GSYNC, _abi.GSYNC_SCHEDULE, 1024)
        except OSError as e:
            if e.errno != errno.ERANGE:
                raise
        return _getsockopt_big(self._sock.fileno(), _abi.SOL_GSYNC, _abi.GSYNC_SCHEDULE)

    # ---- lifecycle ----------------------------------------------------------------
    def close(self, wait: bool = True, timeout: Optional[float] = None) -> None:
        """Leave the group. With ``wait`` (the default) operations in flight
        complete first (each ends within op_timeout_ms); without, they fail
        with GsyncClosed."""
        if self._closed:
            return
        with self._submit_lock:
            self._closed = True
        if wait and self._thread is not None:
            with self._cv:
                self._cv.wait_for(lambda: not self._pending, timeout)
        with self._cv:
            self._stop = True
            self._cv.notify_all()
        os.write(self._wake_w, b"x")
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        with self._cv:
            left = list(self._pending)
            self._pending.clear()
        for o in left:
            _set_exception(o.future, GsyncClosed("the group was closed before the "
                                                 "result was collected", o.seq))
        self._sock.close()
        os.close(self._wake_r)
        os.close(self._wake_w)

    def __enter__(self) -> "Group":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        # On an exception, do not wait out op timeouts of a broken run.
        self.close(wait=exc_type is None)

    def __del__(self) -> None:
        if not getattr(self, "_closed", True):
            try:
                self.close(wait=False)
            except Exception:
                pass

    def __repr__(self) -> str:
        mode = "unicast" if self.config.unicast else "mcast"
        return (f"<gsync.Group rank {self.rank}/{self.size} {mode} "
                f"group_id=0x{self.config.group_id:x} next_seq={self._next_seq}"
                f"{' closed' if self._closed else ''}>")

    # ---- the receiver -----------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise GsyncClosed("the group is closed")
        if self._fatal is not None:
            raise GsyncError(errno.EIO, f"the group is unusable: {self._fatal}")

    def _ensure_thread(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._receiver, daemon=True,
                                            name=f"gsync-rx-{self.rank}")
            self._thread.start()

    def _receiver(self) -> None:
        poller = select.poll()
        poller.register(self._sock.fileno(), select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        while True:
            with self._cv:
                self._cv.wait_for(lambda: self._pending or self._stop)
                if not self._pending:
                    return
                o = self._pending[0]
            ready = dict(poller.poll())
            if self._wake_r in ready:
                return  # close(wait=False): the rest fail with GsyncClosed
            try:
                n, anc, flags, _ = self._sock.recvmsg_into([o.view], _CMSG_SPACE_RESULT,
                                                           socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError as e:
                self._fail_all(error_for(e.errno, o.seq, "collecting the result failed: "
                                         + os.strerror(e.errno)))
                return
            err = self._check_result(o, n, anc, flags)
            with self._cv:
                self._pending.popleft()
                self._cv.notify_all()
            if err is None:
                _set_result(o.future, o.obj)
            else:
                _set_exception(o.future, err)
            if self._fatal is not None:
                self._fail_all(GsyncError(errno.EIO, str(self._fatal)))
                return

    def _check_result(self, o: _Op, n: int, anc, flags: int) -> Optional[GsyncError]:
        res = None
        for level, kind, data in anc:
            if level == _abi.SOL_GSYNC and kind == _abi.GSYNC_CMSG_RESULT:
                if len(data) < _abi.OP_RESULT.size or res is not None:
                    res = False
                    break
                res = _abi.OP_RESULT.unpack_from(data)
        if flags & socket.MSG_CTRUNC or not res:
            self._fatal = GsyncError(errno.EBADMSG, "result without a valid "
                                     "GSYNC_CMSG_RESULT", o.seq)
            return self._fatal
        seq, status, _, length = res
        if seq != o.seq:
            # Results come strictly in submission order; anything else means
            # someone else used the socket. The pairing is lost: stop.
            self._fatal = GsyncError(errno.EBADMSG, f"got the result of seq {seq} while "
                                     f"expecting {o.seq}", o.seq)
            return self._fatal
        if status:
            return error_for(status, seq)
        if flags & socket.MSG_TRUNC or n != o.view.nbytes or length != o.view.nbytes:
            return GsyncError(errno.EMSGSIZE, f"result of {length} bytes for a buffer of "
                              f"{o.view.nbytes}", seq)
        return None

    def _fail_all(self, err: GsyncError) -> None:
        with self._cv:
            left = list(self._pending)
            self._pending.clear()
            self._cv.notify_all()
            if self._fatal is None:
                self._fatal = err
        for o in left:
            _set_exception(o.future, error_for(err.errno, o.seq, err.strerror))


def _set_key(sock, key: Key, start_seq: int) -> None:
    """setsockopt(GSYNC_KEY); the option value holding the secret is
    zeroed after the call, whatever it returned."""
    buf = key.option(start_seq)
    try:
        sock.setsockopt(_abi.SOL_GSYNC, _abi.GSYNC_KEY, buf)
    finally:
        buf[:] = bytes(len(buf))


def _key_hint(err: int) -> str:
    return {
        errno.ENOPROTOOPT: " (the loaded gsync module has no keyed groups: an older module?)",
        errno.EISCONN: " (the group was joined without a key; an unkeyed group cannot "
                       "become keyed)",
        errno.EBUSY: " (the previous rotation is still pending: its old key is kept until "
                     "no operation needs it; retry later)",
        errno.EINVAL: " (an epoch not above the current one, another mode than the "
                      "group's, or a field out of range)",
        errno.ERANGE: " (start_seq was already submitted)",
    }.get(err, "")


def _getsockopt_big(fd: int, level: int, name: int) -> bytes:
    """getsockopt() for values over Python's 1024-byte limit, through libc
    (the kernel answers ERANGE with the size it needs in optlen)."""
    import ctypes
    import ctypes.util
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    size = 1 << 16
    while True:
        buf = ctypes.create_string_buffer(size)
        n = ctypes.c_uint32(size)
        if libc.getsockopt(fd, level, name, buf, ctypes.byref(n)) == 0:
            return buf.raw[:n.value]
        err = ctypes.get_errno()
        if err != errno.ERANGE or n.value <= size:
            raise OSError(err, os.strerror(err))
        size = n.value


def _set_result(f: Future, value: Any) -> None:
    if not f.done():
        f.set_result(value)


def _set_exception(f: Future, err: BaseException) -> None:
    if not f.done():
        f.set_exception(err)


def _join_hint(err: int) -> str:
    return {
        errno.EADDRINUSE: " (this rank's endpoint is in use: another socket bound it)",
        errno.EADDRNOTAVAIL: " (this rank's address is not configured on this host)",
        errno.ENODEV: " (ifindex names no interface of this network namespace, or with "
                      "no interface given no route covers the multicast group: add one, "
                      "e.g. 'ip route add 224.0.0.0/4 dev eth0', or give ifname=)",
        errno.ERANGE: " (nranks outside 2..256)",
        errno.EISCONN: " (the socket already joined a group)",
        errno.ENOKEY: " (this network namespace requires keyed groups, sysctl "
                      "net.gsync.require_auth=1: give key=, e.g. a key file from "
                      "'gsyncctl key generate')",
    }.get(err, "")


def _sched_hint(err: int) -> str:
    return {
        errno.EINVAL: " (the blob is malformed or not an exact all-reduce; the kernel "
                      "log says why)",
        errno.ENOBUFS: " (the group would hold more than 64 clique-group addresses; "
                       "those of older schedules are left when nothing uses them)",
        errno.EOPNOTSUPP: " (a multicast pattern in a unicast group)",
        errno.ERANGE: " (start_seq is behind the group's next sequence number)",
        errno.ENOTCONN: " (not joined)",
    }.get(err, "")
