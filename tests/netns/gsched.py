#!/usr/bin/env python3
"""gsync schedule blobs (uapi/linux/gsync_sched.h) for the netns tests.

    gsched.py grid ROWS COLS [--row-pattern P] [--col-pattern P] [--block B]
              [--unicast] [--clique-groups [--group-base A]] -o FILE
                                        rotating grid: rows, then columns
    gsched.py clique N [--pattern P] [--aggregator R] [--idle R,...]
              [--block B] -o FILE       one clique of every rank
    gsched.py show FILE                 print a blob

Patterns: multicast, unicast, rs_multicast, aggregator (the aggregator of a
clique is its middle member). --unicast sets GSYNC_SCF_UNICAST on
rs_multicast/aggregator cliques.

Also a library: build(), parse() and reference(), the result an exact
all-reduce under a schedule must have (each clique sums its members' values
in ascending order of the lowest rank each covers; AVG divides once, by the
number of contributors, where a sum first covers them all).
"""
import argparse
import json
import socket
import struct
import sys

MAGIC = 0x48435347
VERSION = 1
PATTERNS = {"multicast": 1, "unicast": 2, "rs_multicast": 3, "aggregator": 4}
SCF_UNICAST = 1
SCHF_CLIQUE_GROUPS = 1
HDR = struct.Struct("=IHHQIHHHHI32s16s")
CLQ = struct.Struct("=HBBHHHHI")
assert HDR.size == 80 and CLQ.size == 16


def base_bytes(addr):
    """group_base for an address text (IPv4 in the first 4 bytes)."""
    if ":" in addr:
        return socket.inet_pton(socket.AF_INET6, addr)
    return socket.inet_pton(socket.AF_INET, addr) + bytes(12)


def build(nranks, rounds, block=65536, idle=(), start_seq=0, clique_groups=False,
          group_base=None):
    """rounds: list of rounds, each a list of dicts with members, pattern,
    and optionally aggregator and flags. clique_groups: a multicast group
    per clique, from group_base (address text) or the group's address + 1."""
    cliques, members = [], []
    for r, rnd in enumerate(rounds):
        for c in rnd:
            m = sorted(c["members"])
            agg = c.get("aggregator", 0)
            cliques.append(CLQ.pack(r, PATTERNS[c["pattern"]], c.get("flags", 0),
                                    len(members), len(m), agg, 0, c.get("rate_kbit", 0)))
            members.extend(m)
    idle_bits = bytearray(32)
    for r in idle:
        idle_bits[r // 8] |= 1 << (r % 8)
    hdr = HDR.pack(MAGIC, VERSION, HDR.size, start_seq, block, nranks, len(rounds),
                   len(cliques), len(members), SCHF_CLIQUE_GROUPS if clique_groups else 0,
                   bytes(idle_bits), base_bytes(group_base) if group_base else bytes(16))
    return hdr + b"".join(cliques) + struct.pack("=%dH" % len(members), *members)


def parse(blob):
    """The inverse of build(): (nranks, rounds, block, idle, start_seq)."""
    (magic, ver, hlen, start_seq, block, nranks, nrounds, ncl, nm, _flags,
     idle_bits, _base) = HDR.unpack_from(blob, 0)
    if magic != MAGIC or ver != VERSION or hlen != HDR.size:
        raise ValueError("not a gsync schedule blob")
    names = {v: k for k, v in PATTERNS.items()}
    mem = struct.unpack_from("=%dH" % nm, blob, HDR.size + ncl * CLQ.size)
    rounds = [[] for _ in range(nrounds)]
    for i in range(ncl):
        rnd, pat, flags, first, n, agg, _a, rate = CLQ.unpack_from(blob, HDR.size + i * CLQ.size)
        rounds[rnd].append({"members": list(mem[first:first + n]), "pattern": names[pat],
                            "aggregator": agg, "flags": flags, "rate_kbit": rate})
    idle = [r for r in range(nranks) if idle_bits[r // 8] >> (r % 8) & 1]
    return nranks, rounds, block, idle, start_seq


_parsed = {}


def reference(blob, bufs, dtype, op, reduce_fn, SUM, AVG, MIN, MAX):
    """The result bits under the schedule. reduce_fn(bufs, dtype, op, divisor)
    is the flat reference of one reduction (gsync_py.reference)."""
    if blob not in _parsed:
        _parsed[blob] = _plan(blob)
    plan, ncontrib = _parsed[blob]
    vals = list(bufs)
    for rnd in plan:
        new = {}
        for members, inputs, divides in rnd:
            o = op if op in (MIN, MAX) else (AVG if op == AVG and divides else SUM)
            out = reduce_fn([vals[m] for m in inputs], dtype, o, ncontrib)
            for m in members:
                new[m] = out
        for m, v in new.items():
            vals[m] = v
    return vals[0]


def _plan(blob):
    """Per round, per clique: members, inputs in reduction order (ascending
    by the lowest rank each covers; empty values skipped), and whether AVG
    divides there."""
    nranks, rounds, _block, idle, _s = parse(blob)
    cov = [frozenset() if r in idle else frozenset([r]) for r in range(nranks)]
    ncontrib = nranks - len(idle)
    plan = []
    for rnd in rounds:
        steps = []
        for c in rnd:
            inputs = sorted((m for m in c["members"] if cov[m]), key=lambda m: min(cov[m]))
            u = frozenset().union(*(cov[m] for m in c["members"]))
            steps.append((c["members"], inputs, len(u) == ncontrib and len(inputs) > 1))
        for members, _i, _d in steps:
            u = frozenset().union(*(cov[m] for m in members))
            for m in members:
                cov[m] = u
        plan.append(steps)
    return plan, ncontrib


def to_json(rounds, islands, block):
    """The same schedule as gsync-sched's gsync-schedule/1 JSON."""
    out = []
    for rnd in rounds:
        cl = []
        for c in rnd:
            j = {"members": [islands[m] for m in sorted(c["members"])],
                 "pattern": c["pattern"]}
            if c["pattern"] == "aggregator":
                j["aggregator"] = islands[c["aggregator"]]
            cl.append(j)
        out.append({"cliques": cl})
    return {"format": "gsync-schedule/1", "chunk_bytes": block, "rounds": out}


def grid(rows, cols, row_pattern, col_pattern, flags=0):
    def clique(members, pattern):
        c = {"members": members, "pattern": pattern, "flags": flags
             if pattern in ("rs_multicast", "aggregator") else 0}
        if pattern == "aggregator":
            c["aggregator"] = sorted(members)[len(members) // 2]
        return c
    r0 = [clique([i * cols + j for j in range(cols)], row_pattern) for i in range(rows)]
    r1 = [clique([i * cols + j for i in range(rows)], col_pattern) for j in range(cols)]
    return [r0, r1]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("grid")
    g.add_argument("rows", type=int)
    g.add_argument("cols", type=int)
    g.add_argument("--row-pattern", default="unicast", choices=PATTERNS)
    g.add_argument("--col-pattern", default="rs_multicast", choices=PATTERNS)
    c = sub.add_parser("clique")
    c.add_argument("n", type=int)
    c.add_argument("--pattern", default="multicast", choices=PATTERNS)
    c.add_argument("--aggregator", type=int, help="aggregator rank (default: the middle)")
    c.add_argument("--idle", default="", help="ranks that contribute nothing, e.g. a PoP")
    for p in (g, c):
        p.add_argument("--block", type=int, default=65536)
        p.add_argument("--unicast", action="store_true")
        p.add_argument("--rate-kbit", type=int, default=0,
                       help="every clique's rate_kbit (members' sending rate)")
        p.add_argument("--start-seq", type=int, default=0)
        p.add_argument("--clique-groups", action="store_true",
                       help="a multicast group per clique (GSYNC_SCHF_CLIQUE_GROUPS)")
        p.add_argument("--group-base", help="clique 0's group (default: the group's + 1)")
        p.add_argument("-o", "--output", required=True)
        p.add_argument("--json", metavar="FILE",
                       help="also write it as gsync-schedule/1 JSON (gsync-sched)")
        p.add_argument("--islands", help="island ids in rank order, for --json")
    s = sub.add_parser("show")
    s.add_argument("file")
    a = ap.parse_args()
    if a.cmd == "show":
        with open(a.file, "rb") as f:
            nranks, rounds, block, idle, start = parse(f.read())
        print(f"nranks {nranks} block {block} start_seq {start} idle {idle}")
        for i, rnd in enumerate(rounds):
            print(f"round {i}: " + " | ".join(
                f"{c['pattern']} {c['members']}" +
                (f" {c['rate_kbit']} kbit/s" if c["rate_kbit"] else "") for c in rnd))
        return 0
    flags = SCF_UNICAST if a.unicast else 0
    if a.cmd == "grid":
        rounds = grid(a.rows, a.cols, a.row_pattern, a.col_pattern, flags)
        n = a.rows * a.cols
    else:
        n = a.n
        cl = {"members": list(range(n)), "pattern": a.pattern}
        if a.pattern == "aggregator":
            cl["aggregator"] = n // 2 if a.aggregator is None else a.aggregator
        if a.pattern in ("rs_multicast", "aggregator"):
            cl["flags"] = flags
        rounds = [[cl]]
    for rnd in rounds:
        for cl in rnd:
            cl["rate_kbit"] = a.rate_kbit
    idle = [int(x) for x in getattr(a, "idle", "").split(",") if x]
    with open(a.output, "wb") as f:
        f.write(build(n, rounds, a.block, idle=idle, start_seq=a.start_seq,
                      clique_groups=a.clique_groups, group_base=a.group_base))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(to_json(rounds, a.islands.split(","), a.block), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
