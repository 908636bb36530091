#!/usr/bin/env python3
"""Helper of t-netstats: one junk packet to a group that then closes.

    netstats.py junk ADDR PORT PEER_ADDR

Joins rank 0 of a 2-rank unicast group at ADDR:PORT (the peer, rank 1 at
PEER_ADDR:PORT, never answers), sends the group's port one packet of wire
version 99 from a plain UDP socket, waits until the socket counts it as
drop_version, prints "drop_version N", and closes (no operation: nothing
lingers).
"""
import socket
import sys
import time

import gsync_py as g


def main(argv):
    if len(argv) != 5 or argv[1] != "junk":
        sys.exit(__doc__)
    addr, port, peer = argv[2], int(argv[3]), argv[4]
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


if __name__ == "__main__":
    main(sys.argv)
