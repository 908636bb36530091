#!/usr/bin/env python3
"""user_path.py - the user's path through gsync-sched, as TAP (called by
test_cli.sh): for every shipped topology at six sizes, and nine-city at
50 Mbit/s (the emulated WAN's rate), `optimize --kernel`, then `export`
without flags, must print nothing on stderr (no rs_multicast clique with
fewer blocks than members), and the blob export wrote, read back as a
schedule (its cliques, members and patterns, its block_bytes the chunk),
must simulate (`simulate --kernel`) to the time the optimizer predicted,
to the nine digits --json prints.  An aggregator at a network node needs
a rank there (--relay NODE=RANK: where to run one is the user's to say,
and export's error asks for it), given as that error asks.
usage: user_path.py BINARY TOPOLOGY_DIR FIRST_TEST_NUMBER"""
import glob
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

HDR = struct.Struct("<IHHQIHHHHI32s16s")      # struct gsync_sched_hdr
CLIQUE = struct.Struct("<HBBHHHHI")            # struct gsync_sched_clique
PATTERNS = {1: "multicast", 2: "unicast", 3: "rs_multicast", 4: "aggregator"}
SIZES = [4096, 65536, 262144, 4194304, 67108864, 268435456]


def blob_schedule(blob, ids, size):
    """The blob as gsync-schedule/1: ranks are IDS (islands in topology
    order, then relays); a relay is its clique's aggregator, not a member."""
    magic, _, hdr_len, _, block, _, nrounds, ncl, nmem, _, _, _ = HDR.unpack_from(blob)
    assert magic == 0x48435347, "not a GSCH blob"
    members = struct.unpack_from(f"<{nmem}H", blob, hdr_len + ncl * CLIQUE.size)
    rounds = [[] for _ in range(nrounds)]
    for i in range(ncl):
        rnd, pat, _, first, n, agg, _, _ = CLIQUE.unpack_from(blob, hdr_len + i * CLIQUE.size)
        c = {"members": [ids[r] for r in members[first:first + n] if r < ids.islands],
             "pattern": PATTERNS[pat]}
        if pat == 4:
            c["aggregator"] = ids[agg]
        rounds[rnd].append(c)
    return {"format": "gsync-schedule/1", "bytes": size, "chunk_bytes": block,
            "rounds": [{"cliques": c} for c in rounds]}


class Ranks(list):
    islands = 0


class Tap:
    def __init__(self, n):
        self.n, self.failed = n, False

    def ok(self, good, what, why=""):
        self.n += 1
        print(f"{'ok' if good else 'not ok'} {self.n} - {what}")
        if not good:
            self.failed = True
            for line in why.strip().splitlines()[:3]:
                print("# " + line[:240])


def run(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=300)


def user_path(tap, binary, topo, size, extra, tmp):
    """optimize --kernel, export, the blob simulated: two TAP lines;
    returns the blob's schedule (None if export failed)"""
    with open(topo) as f:
        ids = Ranks(i["id"] for i in json.load(f)["islands"])
    ids.islands = len(ids)
    name = f"{os.path.basename(topo)[:-5]}, {size} bytes{' ' + ' '.join(extra) if extra else ''}"
    sched, blob = os.path.join(tmp, "u.json"), os.path.join(tmp, "u.gsched")
    o = run(binary, "optimize", topo, "--kernel", "--size", str(size), *extra, "--json", "-o", sched)
    if o.returncode:
        tap.ok(False, f"{name}: optimize --kernel", o.stderr)
        tap.ok(False, f"{name}: (no schedule to export)")
        return None
    with open(sched) as f:
        s = json.load(f)
    relays = sorted({c["aggregator"] for r in s["rounds"] for c in r["cliques"]
                     if c.get("aggregator", ids[0]) not in ids})
    ids.extend(relays)
    ra = [a for i, r in enumerate(relays) for a in ("--relay", f"{r}={ids.islands + i}")]
    x = run(binary, "export", sched, topo, *extra, *ra, "-o", blob)
    tap.ok(x.returncode == 0 and not x.stderr,
           f"{name}: optimize --kernel, then export: nothing on stderr{' (' + ' '.join(ra) + ')' if ra else ''}",
           f"exit {x.returncode}: {x.stderr}")
    if x.returncode:
        tap.ok(False, f"{name}: (no blob to simulate)")
        return None
    with open(blob, "rb") as f:
        back = blob_schedule(f.read(), ids, size)
    with open(os.path.join(tmp, "ub.json"), "w") as f:
        json.dump(back, f)
    sim = run(binary, "simulate", topo, f.name, "--kernel", *extra, "--json")
    want = json.loads(o.stdout)["result"]["time_s"]
    got = json.loads(sim.stdout)["predicted_time_s"] if not sim.returncode else None
    tap.ok(got == want, f"{name}: the exported blob simulates to the optimizer's time ({want} s)",
           f"optimize predicted {want} s, the exported blob simulates to {got} s {sim.stderr}")
    return back


def main(binary, topdir, first):
    tap = Tap(int(first))
    with tempfile.TemporaryDirectory() as tmp:
        for topo in sorted(glob.glob(os.path.join(topdir, "*.json"))):
            for size in SIZES:
                user_path(tap, binary, topo, size, [], tmp)
                if "nine-city-" in topo:
                    user_path(tap, binary, topo, size, ["--access-gbps", "0.05"], tmp)
        # issue 36's case: at 4 MiB and 50 Mbit/s the optimum is one
        # rs_multicast clique of nine, which in one 4 MiB block ran as one
        # member receiving everything; exported without flags, every
        # member owns a block
        for name in ("nine-city-private", "nine-city-public"):
            topo = os.path.join(topdir, name + ".json")
            b = user_path(tap, binary, topo, 4194304, ["--access-gbps", "0.05"], tmp)
            cl = [c for r in b["rounds"] for c in r["cliques"]] if b else []
            shape = [(c["pattern"], len(c["members"])) for c in cl]
            blocks = math.ceil(4194304 / b["chunk_bytes"]) if b else 0
            tap.ok(shape == [("rs_multicast", 9)] and blocks >= 9,
                   f"{name}, 4 MiB at 50 Mbit/s: exported as one rs_multicast clique of nine in {blocks} blocks, one or more for every member",
                   f"cliques {shape}, {blocks} blocks")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
