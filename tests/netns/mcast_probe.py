#!/usr/bin/env python3
"""Measure one-way delay of multicast (or unicast) UDP between islands.

    mcast_probe.py recv GROUP PORT SECONDS [SOURCES COUNT]
                                             join GROUP on eth0, print
                                             "<source-ip> <min-ms> <count>"
                                             per sender when SECONDS pass, or
                                             once COUNT probes came from each
                                             of SOURCES senders
    mcast_probe.py send DEST PORT COUNT      send COUNT probes 20 ms apart
    mcast_probe.py sink PORT SECONDS         count UDP bytes, print Mbit/s
    mcast_probe.py blast DEST PORT SECONDS   send 1200-byte datagrams flat out
    mcast_probe.py sniff PORT                count the UDP datagrams to PORT
                                             that reach eth0, by destination,
                                             whether or not anything here
                                             joined their group; print
                                             "<destination> <count>" per
                                             destination when a "mark"
                                             datagram arrives
    mcast_probe.py mark DEST PORT            send the datagram that ends sniff

All islands share the VM's CLOCK_MONOTONIC, so a timestamp written by the
sender gives the one-way delay directly.
"""
import socket
import struct
import sys
import time


def family_of(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def recv(group, port, seconds, sources=0, count=0):
    fam = family_of(group)
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("", port))
    ifindex = socket.if_nametoindex("eth0")
    if fam == socket.AF_INET:
        mreq = struct.pack("=4s4si", socket.inet_aton(group),
                           socket.inet_aton("0.0.0.0"), ifindex)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
    else:
        mreq = socket.inet_pton(fam, group) + struct.pack("=I", ifindex)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP, mreq)
    print("ready", flush=True)
    best = {}
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            data, src = s.recvfrom(2048)
        except socket.timeout:
            break
        now = time.monotonic_ns()
        (sent,) = struct.unpack("=Q", data[:8])
        ms = (now - sent) / 1e6
        cur = best.get(src[0], (ms, 0))
        best[src[0]] = (min(cur[0], ms), cur[1] + 1)
        if sources and len(best) >= sources and all(n >= count for _, n in best.values()):
            break
    for ip, (ms, n) in sorted(best.items()):
        print(f"{ip} {ms:.3f} {n}")


def send(dest, port, count):
    fam = family_of(dest)
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if fam == socket.AF_INET:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 8)
    else:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 8)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF,
                     socket.if_nametoindex("eth0"))
    for _ in range(count):
        s.sendto(struct.pack("=Q", time.monotonic_ns()) + b"x" * 56, (dest, port))
        time.sleep(0.02)


def sink(port, seconds):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("", port))
    print("ready", flush=True)
    total, first, last = 0, None, None
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        s.settimeout(max(end - time.monotonic(), 0.001))
        try:
            data = s.recv(65536)
        except socket.timeout:
            break
        last = time.monotonic()
        first = first or last
        total += len(data)
    rate = total * 8 / (last - first) / 1e6 if first and last > first else 0.0
    print(f"{rate:.2f}")


def blast(dest, port, seconds):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    payload = b"x" * 1200
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            s.sendto(payload, (dest, port))
        except OSError:
            time.sleep(0.001)


ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
MARK = b"gsync-probe-mark"


def udp_of(frame):
    """(destination address, UDP port, payload) of an Ethernet frame carrying
    UDP over IPv4 or IPv6 (no extension headers), else None."""
    ethertype = struct.unpack("!H", frame[12:14])[0]
    if ethertype == 0x0800 and len(frame) >= 34 and frame[23] == 17:
        ihl = (frame[14] & 0x0F) * 4
        udp = 14 + ihl
        dst = socket.inet_ntop(socket.AF_INET, frame[30:34])
    elif ethertype == 0x86DD and len(frame) >= 62 and frame[20] == 17:
        udp = 54
        dst = socket.inet_ntop(socket.AF_INET6, frame[38:54])
    else:
        return None
    if len(frame) < udp + 8:
        return None
    (port,) = struct.unpack("!H", frame[udp + 2:udp + 4])
    return dst, port, frame[udp + 8:]


def sniff(port):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind(("eth0", 0))
    print("ready", flush=True)
    counts = {}
    # A mark that never comes must not hang the test.
    s.settimeout(60)
    while True:
        try:
            frame, addr = s.recvfrom(65536)
        except socket.timeout:
            print("no mark within 60 s")
            break
        if addr[2] == PACKET_OUTGOING:
            continue
        udp = udp_of(frame)
        if udp is None or udp[1] != port:
            continue
        if udp[2] == MARK:
            break
        counts[udp[0]] = counts.get(udp[0], 0) + 1
    for dst, n in sorted(counts.items()):
        print(f"{dst} {n}")


def mark(dest, port):
    s = socket.socket(family_of(dest), socket.SOCK_DGRAM)
    s.sendto(MARK, (dest, port))


def main(a):
    if len(a) < 2:
        sys.exit(__doc__)
    if a[1] == "recv":
        recv(a[2], int(a[3]), float(a[4]), *(int(x) for x in a[5:7]))
    elif a[1] == "send":
        send(a[2], int(a[3]), int(a[4]))
    elif a[1] == "sink":
        sink(int(a[2]), float(a[3]))
    elif a[1] == "blast":
        blast(a[2], int(a[3]), float(a[4]))
    elif a[1] == "sniff":
        sniff(int(a[2]))
    elif a[1] == "mark":
        mark(a[2], int(a[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
