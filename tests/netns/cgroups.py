#!/usr/bin/env python3
"""Clique groups (GSYNC_SCHF_CLIQUE_GROUPS), run by t-clique-groups.sh as
rank 0 of a nine-rank group on one island: which multicast groups the
island has joined (/proc/net/igmp, /proc/net/igmp6) after each schedule
load, replacement and refusal. Rank 0 of a 3x3 grid is in clique 0 (its
row) and clique 3 (its column). Prints one TAP line per check; exit status 1
if any failed."""
import argparse
import errno
import ipaddress
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import gsched  # noqa: E402
import gsync_py as g  # noqa: E402
from tap import check, errno_of, exit_status  # noqa: E402


def joined(net):
    """The groups joined on any interface but lo, within net."""
    out = set()
    if net.version == 4:
        dev = None
        with open("/proc/net/igmp") as f:
            for line in f.readlines()[1:]:
                if not line[0].isspace():
                    dev = line.split()[1]
                elif dev != "lo":
                    hexa = line.split()[0]
                    out.add(ipaddress.IPv4Address(int(hexa, 16).to_bytes(4, "little")))
    else:
        with open("/proc/net/igmp6") as f:
            for line in f:
                _idx, dev, hexa = line.split()[:3]
                if dev != "lo":
                    out.add(ipaddress.IPv6Address(bytes.fromhex(hexa)))
    return {a for a in out if a in net}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--members", required=True)
    ap.add_argument("--mcast", required=True, help="the group, e.g. 239.77.12.1:7412")
    ap.add_argument("--net", required=True, help="the prefix the test's groups are in")
    ap.add_argument("--base", required=True, help="an explicit group_base in --net")
    a = ap.parse_args()
    members = [g.parse_endpoint(m) for m in a.members.split(",")]
    mc_host, mc_port = g.parse_endpoint(a.mcast)
    grp = ipaddress.ip_address(mc_host)
    base = ipaddress.ip_address(a.base)
    net = ipaddress.ip_network(a.net)
    fam = f"IPv{grp.version}"
    rounds = gsched.grid(3, 3, "multicast", "rs_multicast")
    derived = gsched.build(9, rounds, 16384, clique_groups=True)
    explicit = gsched.build(9, rounds, 16384, clique_groups=True, group_base=a.base)
    setopt = lambda s, b: errno_of(lambda: s.setsockopt(  # noqa: E731
        g.SOL_GSYNC, g.GSYNC_SCHEDULE, b) if b else s.setsockopt(
        g.SOL_GSYNC, g.GSYNC_SCHEDULE, None, 0))

    s = g.open_socket()
    g.join(s, 90, 0, members, (mc_host, mc_port), op_timeout_ms=60000)
    j = joined(net)
    check(f"{fam}: joined, only the group's address", j == {grp}, j)
    check(f"{fam}: a schedule with clique groups loads", setopt(s, derived) == 0)
    j = joined(net)
    check(f"{fam}: its cliques' groups are joined at load: group+1, group+4",
          j == {grp, grp + 1, grp + 4}, j)
    check(f"{fam}: and it reads back byte for byte",
          s.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 1024) == derived)
    check(f"{fam}: an explicit group_base loads", setopt(s, explicit) == 0)
    j = joined(net)
    check(f"{fam}: the replaced groups are left, base+0 and base+3 joined",
          j == {grp, base, base + 3}, j)
    pending = gsched.build(9, rounds, 16384, start_seq=5, clique_groups=True)
    check(f"{fam}: a pending schedule loads", setopt(s, pending) == 0)
    j = joined(net)
    check(f"{fam}: its groups are joined before it applies, the current ones kept",
          j == {grp, base, base + 3, grp + 1, grp + 4}, j)
    check(f"{fam}: the default schedule loads", setopt(s, b"") == 0)
    j = joined(net)
    check(f"{fam}: every clique group is left", j == {grp}, j)

    clash = gsched.build(9, rounds, 16384, clique_groups=True, group_base=str(grp - 2))
    check(f"{fam}: clique addresses covering the group's are EINVAL",
          setopt(s, clash) == errno.EINVAL)
    other = "224.0.0.250" if grp.version == 4 else "2001:db8::1"
    bad = gsched.build(9, rounds, 16384, clique_groups=True, group_base=other)
    check(f"{fam}: a non-multicast group_base is EINVAL", setopt(s, bad) == errno.EINVAL)
    check(f"{fam}: nothing was joined for them", joined(net) == {grp})

    # An operation in flight keeps the groups of the schedule it runs under.
    check(f"{fam}: clique groups again", setopt(s, derived) == 0)
    g.submit(s, 1, bytes(16), g.FP32, g.SUM)
    check(f"{fam}: the default schedule loads with an operation in flight",
          setopt(s, b"") == 0)
    j = joined(net)
    check(f"{fam}: the operation's cliques stay joined", j == {grp, grp + 1, grp + 4}, j)
    check(f"{fam}: a second load still keeps them", setopt(s, b"") == 0 and
          joined(net) == {grp, grp + 1, grp + 4})
    s.close()

    # A unicast group has nothing to multicast: the flag joins nothing.
    u = g.open_socket()
    g.join(u, 91, 0, [(h, p + 1) for h, p in members])
    uni = gsched.build(9, gsched.grid(3, 3, "unicast", "aggregator", gsched.SCF_UNICAST),
                       16384, clique_groups=True)
    before = joined(net)
    check(f"{fam}: a unicast group accepts the flag", setopt(u, uni) == 0)
    check(f"{fam}: and joins nothing", joined(net) == before, joined(net))
    u.close()
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
