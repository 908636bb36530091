#!/usr/bin/env python3
"""Socket API behaviour of AF_GSYNC (run by t-socket-api.sh as rank 0 of a
2-rank group whose rank 1 is started later by the test): errors of every
user-supplied field, non-blocking and timed-out calls, poll readiness and
the window. Prints one TAP line per check."""
import errno
import os
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import gsync_py as g  # noqa: E402
from tap import check, errno_of, exit_status  # noqa: E402

A0, A1 = sys.argv[1], sys.argv[2]
MEMBERS = [(A0, 7300), (A1, 7300)]
MCAST = ("239.77.3.1", 7301)


def join_err(**kw):
    s = g.open_socket()
    members = kw.pop("members", MEMBERS)
    mcast = kw.pop("mcast", MCAST)
    blob = kw.pop("blob", None)
    if blob is None:
        blob = g.join_blob(5, kw.pop("rank", 0), members, mcast, **kw)
    e = errno_of(lambda: s.setsockopt(g.SOL_GSYNC, g.GSYNC_JOIN, blob))
    s.close()
    return e


# ---- GSYNC_JOIN errors ----
check("join: one rank is ERANGE", join_err(members=MEMBERS[:1]) == errno.ERANGE)
good = g.join_blob(5, 0, MEMBERS, MCAST)
check("join: truncated blob is EINVAL", join_err(blob=good[:-1]) == errno.EINVAL)
check("join: blob longer than nranks says is EINVAL", join_err(blob=good + bytes(24)) == errno.EINVAL)
check("join: rank >= nranks is EINVAL", join_err(rank=2) == errno.EINVAL)
check("join: unknown flag is EINVAL", join_err(flags=0x80) == errno.EINVAL)
check("join: window 65 is EINVAL", join_err(window=65) == errno.EINVAL)
check("join: unicast member as group is EINVAL", join_err(mcast=(A1, 7301)) == errno.EINVAL)
check("join: duplicate members are EINVAL", join_err(members=[MEMBERS[0]] * 2) == errno.EINVAL)
check("join: unknown ifindex is ENODEV", join_err(ifindex=999) == errno.ENODEV)
check("join: an address not on this host is EADDRNOTAVAIL",
      join_err(members=[("198.18.200.1", 7300), MEMBERS[1]]) == errno.EADDRNOTAVAIL)
check("join: mixed address families are EINVAL",
      join_err(members=[MEMBERS[0], ("2001:2::2", 7300)]) == errno.EINVAL)

s = g.open_socket()
check("sendmsg before join is ENOTCONN",
      errno_of(lambda: g.submit(s, 1, bytes(4), g.FP32, g.SUM)) == errno.ENOTCONN)
g.join(s, 5, 0, MEMBERS, MCAST, window=2, max_op_bytes=4096, op_timeout_ms=30000)
check("second join is EISCONN", errno_of(lambda: g.join(s, 5, 0, MEMBERS, MCAST)) == errno.EISCONN)
info = s.getsockopt(g.SOL_GSYNC, g.GSYNC_INFO, 64)
state, rank, nranks, gid, next_seq = struct.unpack("=IHHQQ", info[:24])
check("GSYNC_INFO: joined, rank 0 of 2, next seq 1",
      (state, rank, nranks, gid, next_seq) == (1, 0, 2, 5, 1))

# ---- sendmsg argument errors ----
def send(seq=1, data=bytes(16), dtype=g.FP32, op=g.SUM, cmsg=None, flags=0):
    if cmsg is None:
        cmsg = [(g.SOL_GSYNC, g.GSYNC_CMSG_OP, struct.pack(g.OPDESC_FMT, seq, dtype, op, 0, 0))]
    return errno_of(lambda: s.sendmsg([data], cmsg, flags))


check("sendmsg without GSYNC_CMSG_OP is EINVAL", send(cmsg=[]) == errno.EINVAL)
check("sendmsg with a short cmsg is EINVAL",
      send(cmsg=[(g.SOL_GSYNC, g.GSYNC_CMSG_OP, bytes(8))]) == errno.EINVAL)
check("sendmsg with a foreign cmsg level is EINVAL",
      send(cmsg=[(socket.SOL_SOCKET, 1, bytes(16))]) == errno.EINVAL)
check("sendmsg with nonzero reserved fields is EINVAL",
      send(cmsg=[(g.SOL_GSYNC, g.GSYNC_CMSG_OP, struct.pack(g.OPDESC_FMT, 1, 0, 0, 1, 0))]) == errno.EINVAL)
check("sendmsg with seq 2 first is EINVAL", send(seq=2) == errno.EINVAL)
check("sendmsg with dtype 4 is EINVAL", send(dtype=4) == errno.EINVAL)
check("sendmsg with op 4 is EINVAL", send(op=4) == errno.EINVAL)
check("sendmsg of 6 bytes of fp32 is EINVAL", send(data=bytes(6)) == errno.EINVAL)
check("sendmsg of 0 bytes is EINVAL", send(data=b"") == errno.EINVAL)
check("sendmsg over max_op_bytes is EMSGSIZE", send(data=bytes(8192)) == errno.EMSGSIZE)

# ---- non-blocking, timeouts, poll ----
check("recvmsg with nothing in flight, MSG_DONTWAIT, is EAGAIN",
      errno_of(lambda: s.recvmsg(16, 64, socket.MSG_DONTWAIT)) == errno.EAGAIN)
p = select.poll()
p.register(s, select.POLLIN | select.POLLOUT)
check("poll: writable, not readable, before any operation",
      dict(p.poll(0)).get(s.fileno(), 0) == select.POLLOUT)
check("sendmsg seq 1", send(seq=1) == 0)
check("sendmsg seq 2", send(seq=2) == 0)
check("window full: sendmsg MSG_DONTWAIT is EAGAIN",
      send(seq=3, flags=socket.MSG_DONTWAIT) == errno.EAGAIN)
check("poll: neither readable nor writable with the window full and no peer",
      dict(p.poll(200)).get(s.fileno(), 0) == 0)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("=qq", 0, 300000))
t0 = time.monotonic()
e = errno_of(lambda: s.recvmsg(16, 64))
check(f"SO_RCVTIMEO 0.3 s: recvmsg is EAGAIN after {time.monotonic() - t0:.2f} s",
      e == errno.EAGAIN and 0.25 < time.monotonic() - t0 < 3)
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("=qq", 0, 300000))
check("SO_SNDTIMEO 0.3 s: sendmsg into a full window is EAGAIN", send(seq=3) == errno.EAGAIN)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("=qq", 0, 0))

# Now the peer comes: the test starts rank 1, which submits seq 1 and 2.
print("# waiting for rank 1", flush=True)
with open(sys.argv[3], "w") as f:
    f.write("go\n")
ready = dict(p.poll(20000)).get(s.fileno(), 0)
check("poll: readable once the peer's data arrived", ready & select.POLLIN)
seq, status, data = g.collect(s, 8)
check(f"recvmsg into a short buffer: seq 1, status 0, truncated (got {len(data)} bytes)",
      (seq, status, len(data)) == (1, 0, 8))
data, anc, flags, _ = s.recvmsg(16, 64)
check("recvmsg: seq 2 next, in order", struct.unpack(g.RESULT_FMT, anc[0][2])[0] == 2)
check("poll: writable again after collecting", dict(p.poll(1000)).get(s.fileno(), 0) & select.POLLOUT)
st = g.stats(s)
check("GSYNC_STATS: 2 submitted, 2 completed", (st["ops_submitted"], st["ops_completed"]) == (2, 2))
s.close()
sys.exit(exit_status())
