"""A stand-in for the AF_GSYNC kernel socket, for host tests of the
Python package without the module: N FakeSocket objects (one per rank,
used from threads of one process) share a Fabric that does what the
kernel does at the socket boundary: GSYNC_JOIN parsing, sequence and
window checks, blocking sendmsg while the window is full, results in
submission order with GSYNC_CMSG_RESULT, poll()able readiness, and the
exact reduction of docs/reduction-semantics.md (tests/netns/gsync_py.py's
reference). Failures are injected: kill(rank) makes every operation that
waits for that rank fail with ETIMEDOUT; contributions that disagree on
length, dtype or op fail with EPROTO. GSYNC_KEY is checked as
uapi/linux/gsync.h documents it (before the join the first epoch, after it
a rotation: EISCONN, EINVAL, EBUSY, ERANGE), with require_auth's ENOKEY;
the keys only show in GSYNC_INFO (nothing is sealed here).
"""
import errno
import os
import socket
import struct
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "netns"))
import gsync_py  # noqa: E402  (the project's reference arithmetic)

from gsync import _abi  # noqa: E402


class Fabric:
    def __init__(self, nranks, latency=0.0):
        self.n = nranks
        self.latency = latency   # seconds from the last contribution to the results
        self.lock = threading.Condition()
        self.contrib = {}      # seq -> {rank: (bytes, dtype, op)}
        self.dead = set()
        self.socks = {}
        self.reduced = []      # (seq, dtype, op, len) of every reduction
        self.hold = set()      # seqs whose reduction is held back
        self.require_auth = False   # net.gsync.require_auth: JOIN needs a key

    def sock(self):
        return FakeSocket(self)

    def kill(self, rank):
        with self.lock:
            self.dead.add(rank)
            for seq in sorted(self.contrib):
                self._maybe_finish(seq)

    def release(self, seq):
        with self.lock:
            self.hold.discard(seq)
            self._maybe_finish(seq)

    def _submit(self, rank, seq, data, dtype, op):
        with self.lock:
            self.contrib.setdefault(seq, {})[rank] = (data, dtype, op)
            self._maybe_finish(seq)

    def _maybe_finish(self, seq):
        c = self.contrib.get(seq)
        if c is None or seq in self.hold:
            return
        live = [r for r in range(self.n) if r not in self.dead]
        if any(r in self.dead for r in range(self.n)):
            if all(r in c for r in live):
                del self.contrib[seq]
                for r in c:
                    self.socks[r]._deliver(seq, errno.ETIMEDOUT, b"")
            return
        if len(c) < self.n:
            return
        del self.contrib[seq]
        shapes = {(len(d), dt, op) for d, dt, op in c.values()}
        if len(shapes) != 1:
            if os.environ.get("FAKE_DEBUG"): print("MISMATCH", seq, {r: (len(d), dt, op) for r, (d, dt, op) in c.items()})
            for r in c:
                self.socks[r]._deliver(seq, errno.EPROTO, b"")
            return
        (length, dtype, op), = shapes
        out = gsync_py.reference([c[r][0] for r in range(self.n)], dtype, op)
        self.reduced.append((seq, dtype, op, length))
        if self.latency:
            t = threading.Timer(self.latency, self._deliver_all, (list(c), seq, out))
            t.daemon = True
            t.start()
        else:
            self._deliver_all(c, seq, out)

    def _deliver_all(self, ranks, seq, out):
        for r in ranks:
            self.socks[r]._deliver(seq, 0, out)


class FakeSocket:
    def __init__(self, fabric):
        self.fab = fabric
        self.rank = None
        self.window = 4
        self.next_seq = 1
        self.deliver_seq = 1
        self.results = {}
        self.cv = threading.Condition()
        self.rfd, self.wfd = os.pipe()
        self.closed = False
        self.sent_flags = []
        self.stats = [0] * len(_abi.STATS_LAYOUT)   # struct gsync_stats, in order
        # GSYNC_STATS's length: None the whole struct gsync_stats, fewer
        # bytes for an older module's shorter struct (GSYNC_INFO's too)
        self.stats_size = None
        self.info_size = None
        self.key_opts = []       # every GSYNC_KEY value set: (mode, epoch, start_seq, secret)
        self.pending_key = None  # set before the join
        self.key = None          # (mode, epoch, secret) in use after the join
        self.next_key = None     # (mode, epoch, secret, start_seq): a rotation
        self.fail_key = None     # an errno GSYNC_KEY fails with (injected)

    # -- the socket API Group uses --
    def fileno(self):
        return self.rfd

    def close(self):
        if not self.closed:
            self.closed = True
            os.close(self.rfd)
            os.close(self.wfd)

    def setsockopt(self, level, name, value, optlen=None):
        if level != _abi.SOL_GSYNC:
            raise OSError(errno.ENOPROTOOPT, "level")
        if name == _abi.GSYNC_KEY:
            return self._set_key(bytes(value))
        if name == _abi.GSYNC_JOIN:
            if self.rank is not None:
                raise OSError(errno.EISCONN, os.strerror(errno.EISCONN))
            if self.fab.require_auth and self.pending_key is None:
                raise OSError(errno.ENOKEY, os.strerror(errno.ENOKEY))
            hdr = _abi.JOIN.unpack_from(value)
            (gid, rank, nranks, flags, mc, ifindex, ttl, r0, mtu, window, maxop, tmo,
             rep, r2, rate, r1) = hdr
            if nranks != self.fab.n:
                raise OSError(errno.EINVAL, "nranks")
            if len(value) != _abi.JOIN.size + nranks * _abi.ADDR.size:
                raise OSError(errno.EINVAL, "optlen")
            if r0 != bytes(3) or r2 or r1 != bytes(16):
                raise OSError(errno.EINVAL, "reserved")
            self.rank, self.window, self.join = rank, window or 4, hdr
            self.fab.socks[rank] = self
            if self.pending_key is not None:
                self.key, self.pending_key = self.pending_key[:3], None
            return
        if name == _abi.GSYNC_SCHEDULE:
            self.schedule = b"" if value is None else bytes(value)
            return
        if name == _abi.GSYNC_PACING_RATE:
            self.rate = struct.unpack("=Q", value)[0]
            return
        raise OSError(errno.ENOPROTOOPT, "option")

    def _set_key(self, value):
        if len(value) != _abi.KEY.size:
            raise OSError(errno.EINVAL, "optlen")
        mode, epoch, start, secret, res = _abi.KEY.unpack(value)
        self.key_opts.append((mode, epoch, start, secret))
        if self.fail_key:
            raise OSError(self.fail_key, os.strerror(self.fail_key))
        if mode not in (_abi.KEY_AUTH, _abi.KEY_ENCRYPT) or res != bytes(16):
            raise OSError(errno.EINVAL, "key")
        if self.rank is None:
            if start:
                raise OSError(errno.EINVAL, "start_seq before the join")
            self.pending_key = (mode, epoch, secret, 0)
            return
        self._switch()
        if self.key is None:
            raise OSError(errno.EISCONN, os.strerror(errno.EISCONN))
        if self.next_key is not None:
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))
        if mode != self.key[0] or epoch <= self.key[1]:
            raise OSError(errno.EINVAL, "mode or epoch")
        if start < self.next_seq:
            raise OSError(errno.ERANGE, os.strerror(errno.ERANGE))
        self.next_key = (mode, epoch, secret, start)

    def _switch(self):
        """A rotation whose start_seq is the next to submit is the key in use (the
        old one is erased at once here)."""
        if self.next_key is not None and self.next_seq >= self.next_key[3]:
            self.key, self.next_key = self.next_key[:3], None

    def getsockopt(self, level, name, size):
        if name == _abi.GSYNC_INFO:
            from gsync.keys import key_fingerprint
            with self.cv:
                self._switch()
                mode, epoch, fpr = 0, 0, 0
                if self.key is not None:
                    mode, epoch, fpr = self.key[0], self.key[1], key_fingerprint(self.key[2])
                nxt = self.next_key[1] if self.next_key is not None else 0
                raw = _abi.INFO.pack(1, self.rank or 0, self.fab.n, 0, self.next_seq,
                                     self.next_seq - self.deliver_seq, self.window,
                                     1400 - 32 * (self.key is not None),
                                     0, getattr(self, "rate", 0), 10000, 20, 64 << 20, 0,
                                     getattr(self, "rate", 0), mode, epoch, fpr, nxt, 0)
                return raw[:min(size, self.info_size or len(raw))]
        if name == _abi.GSYNC_STATS:
            raw = struct.pack("=%dQ" % len(self.stats), *self.stats)
            return raw[:min(size, len(raw) if self.stats_size is None else self.stats_size)]
        if name == _abi.GSYNC_PACING_RATE:
            return struct.pack("=Q", getattr(self, "rate", 0))
        if name == _abi.GSYNC_SCHEDULE:
            blob = getattr(self, "schedule", b"")
            if size > 1024:  # what CPython's getsockopt refuses
                raise OSError(errno.EINVAL, "getsockopt buflen out of range")
            if len(blob) > size:
                raise OSError(errno.ERANGE, os.strerror(errno.ERANGE))
            return blob
        raise OSError(errno.ENOPROTOOPT, "option")

    def sendmsg(self, buffers, ancdata=(), flags=0, address=None):
        if self.rank is None:
            raise OSError(errno.ENOTCONN, os.strerror(errno.ENOTCONN))
        (level, kind, payload), = ancdata
        if level != _abi.SOL_GSYNC or kind != _abi.GSYNC_CMSG_OP or len(payload) != 16:
            raise OSError(errno.EINVAL, "cmsg")
        seq, dtype, op, fl, res = _abi.OP_DESC.unpack(payload)
        data = b"".join(bytes(b) for b in buffers)
        if (fl or res or dtype > 3 or op > 3 or not data
                or len(data) % _abi.DTYPE_SIZE[dtype]):
            raise OSError(errno.EINVAL, "op")
        with self.cv:
            if seq != self.next_seq:
                raise OSError(errno.EINVAL, "seq")
            while self.next_seq - self.deliver_seq >= self.window:
                if flags & socket.MSG_DONTWAIT:
                    raise BlockingIOError(errno.EAGAIN, "window full")
                self.cv.wait()
            self.next_seq += 1
            self.stats[0] += 1
        self.sent_flags.append(flags)
        self.fab._submit(self.rank, seq, data, dtype, op)
        return len(data)

    def _deliver(self, seq, status, data):
        with self.cv:
            if self.closed:   # a late (latency) delivery after the test
                return
            self.results[seq] = (status, data)
            if seq == self.deliver_seq:
                os.write(self.wfd, b"r")
            self.cv.notify_all()

    def recvmsg_into(self, buffers, ancbufsize=0, flags=0):
        with self.cv:
            while self.deliver_seq not in self.results:
                if flags & socket.MSG_DONTWAIT:
                    raise BlockingIOError(errno.EAGAIN, "no result")
                self.cv.wait()
            seq = self.deliver_seq
            status, data = self.results.pop(seq)
            os.read(self.rfd, 1)
            self.deliver_seq += 1
            if self.deliver_seq in self.results:
                os.write(self.wfd, b"r")
            self.stats[1 if not status else 2] += 1
            self.cv.notify_all()
        mv = memoryview(buffers[0]).cast("B")
        n = min(len(data), mv.nbytes)
        mv[:n] = data[:n]
        mflags = socket.MSG_TRUNC if n < len(data) else 0
        res = _abi.OP_RESULT.pack(seq, status, 0, len(data))
        return n, [(_abi.SOL_GSYNC, _abi.GSYNC_CMSG_RESULT, res)], mflags, None


MEMBERS = ["198.18.0.%d:7000" % (i + 1) for i in range(16)]


def groups(n, latency=0.0, **kw):
    """n joined gsync.Group objects over one Fabric (ranks 0..n-1); with
    ``latency``, results arrive that many seconds after the last
    contribution, as over a network."""
    import gsync
    fab = Fabric(n, latency)
    kw.setdefault("unicast", True)
    gs = [gsync.Group(r, MEMBERS[:n], sock=fab.sock(), **kw) for r in range(n)]
    return fab, gs
