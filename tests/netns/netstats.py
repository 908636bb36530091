#!/usr/bin/env python3
"""Helper of t-netstats: packets to a group's port, from a plain UDP socket.

    netstats.py junk ADDR PORT PEER_ADDR
    netstats.py noport ADDR PORT LINGER_MS

junk: joins rank 0 of a 2-rank unicast group at ADDR:PORT (the peer, rank 1
at PEER_ADDR:PORT, never answers), sends the group's port one packet of wire
version 99 from a plain UDP socket, waits until the socket counts it as
drop_version, prints "drop_version N", and closes (no operation: nothing
lingers).

noport: what counts a packet to a group's port, while the group lives and
after it has ended. Rank 0 of a 2-rank unicast group at ADDR:PORT (IPv4 or
IPv6) with op_timeout_ms LINGER_MS; rank 1 is a plain UDP socket at
ADDR:PORT+1, kept open throughout (the lingering group's POLLs reach it),
which sends rank 1's data for operation 1 and never acknowledges rank 0's,
so rank 0's group lingers after close until LINGER_MS after the operation
completed. Prints "NAME VALUE" lines for t-netstats.sh to check:
  drop_group_socket N     the open socket's drop_group after one packet
                          of another group id to its port (want 1)
  drop_group_namespace N  what that added to /proc/net/gsync_stats (1)
  lingering N             groups_live after close, over before the join (1)
  drop_group_lingering N  what a second such packet, sent while the
                          closed group lingers, added to drop_group (1)
  linger_over N           1 if groups_live came back to what it was
  noports N               what one packet of the ended group (from rank 1's
                          endpoint) to its port then added to the UDP
                          layer's NoPorts (Udp NoPorts of /proc/net/snmp,
                          or Udp6NoPorts of /proc/net/snmp6) (1)
  gsync_unchanged N       1 if that packet changed no line of
                          /proc/net/gsync_stats
Every wait polls a counter, bounded (a broken kernel fails a check, it does
not hang the test); "# " lines are diagnostics.
"""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gsync_py as g  # noqa: E402
from fuzz_wire import header  # noqa: E402

GROUP = 0x5760


def gsync_stats():
    with open("/proc/net/gsync_stats") as f:
        return f.read()


def ns_stat(name):
    for line in gsync_stats().splitlines():
        k, v = line.split()
        if k == name:
            return int(v)
    raise KeyError(name)


def noports(v6):
    """The namespace's UDP NoPorts counter of the address family."""
    if v6:
        with open("/proc/net/snmp6") as f:
            for line in f:
                k, v = line.split()
                if k == "Udp6NoPorts":
                    return int(v)
        raise KeyError("Udp6NoPorts")
    with open("/proc/net/snmp") as f:
        udp = [line.split()[1:] for line in f if line.startswith("Udp: ")]
    return int(udp[1][udp[0].index("NoPorts")])


def wait_until(cond, limit=60.0):
    """Poll cond every 10 ms until true, for at most limit seconds."""
    end = time.monotonic() + limit
    while not cond():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def junk(addr, port, peer):
    s = g.open_socket()
    g.join(s, 0x5757, 0, [(addr, port), (peer, port)])
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.sendto(bytes([99]) + bytes(63), (addr, port))
    # A bound for a broken kernel, not a wait: the drop is synchronous
    # with the packet's arrival on the local path.
    end = time.monotonic() + 10
    st = g.stats(s)
    while st["drop_version"] == 0 and time.monotonic() < end:
        time.sleep(0.01)
        st = g.stats(s)
    print(f"drop_version {st['drop_version']}")
    s.close()


def noport(addr, port, linger_ms):
    v6 = ":" in addr
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    other = header(None, GROUP + 1, 2, 1, plen=4) + bytes(4)
    live0 = ns_stat("groups_live")
    r1 = socket.socket(fam, socket.SOCK_DGRAM)      # rank 1, open throughout
    r1.bind((addr, port + 1))
    plain = socket.socket(fam, socket.SOCK_DGRAM)   # anyone else
    s = g.open_socket()
    g.join(s, GROUP, 0, [(addr, port), (addr, port + 1)], None,
           op_timeout_ms=linger_ms)
    g.submit(s, 1, bytes(64), g.FP32, g.SUM)
    r1.sendto(header(None, GROUP, 2, 1, seq=1, plen=64, total=64, cb=1024)
              + bytes(64), (addr, port))
    seq, status, _ = g.collect(s, 64)
    print(f"# operation {seq} status {status}")

    before = ns_stat("drop_group")
    plain.sendto(other, (addr, port))
    wait_until(lambda: g.stats(s)["drop_group"] > 0, 10)
    print(f"drop_group_socket {g.stats(s)['drop_group']}")
    print(f"drop_group_namespace {ns_stat('drop_group') - before}")

    s.close()
    print(f"lingering {ns_stat('groups_live') - live0}")
    before = ns_stat("drop_group")
    plain.sendto(other, (addr, port))
    wait_until(lambda: ns_stat("drop_group") > before, 10)
    print(f"drop_group_lingering {ns_stat('drop_group') - before}")
    print(f"# groups_live {ns_stat('groups_live')} after the lingering packet")

    over = wait_until(lambda: ns_stat("groups_live") == live0,
                      120 + linger_ms / 1000)
    print(f"linger_over {int(over)}")

    stats0, np0 = gsync_stats(), noports(v6)
    r1.sendto(header(None, GROUP, 2, 1, seq=2, plen=64, total=64, cb=1024)
              + bytes(64), (addr, port))
    wait_until(lambda: noports(v6) != np0, 10)
    print(f"noports {noports(v6) - np0}")
    stats1 = gsync_stats()
    print(f"gsync_unchanged {int(stats1 == stats0)}")
    if stats1 != stats0:
        old = dict(line.split() for line in stats0.splitlines())
        for line in stats1.splitlines():
            k, v = line.split()
            if old.get(k) != v:
                print(f"# {k} {old.get(k)} -> {v}")
    r1.close()
    plain.close()


def main(argv):
    if len(argv) == 5 and argv[1] == "junk":
        junk(argv[2], int(argv[3]), argv[4])
    elif len(argv) == 5 and argv[1] == "noport":
        noport(argv[2], int(argv[3]), int(argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
