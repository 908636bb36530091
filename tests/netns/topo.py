#!/usr/bin/env python3
"""Turn a gsync topology file into the emulation plan used by lib.sh.

Reads the JSON topology format (docs/topology-format.md) and prints one line
per fact, for the shell to consume:

    island <index> <id> <egress_mbit> <ingress_mbit>
    delay <src_index> <dst_index> <one_way_ms>
    loss <src_index> <dst_index> <percent>

One-way latency between islands is the shortest path over the topology's
links (so sparse link lists such as the private nine-city network work);
loss along a path compounds per link. Rates come from the islands' access
links unless --rate-mbit caps them (under TCG the CPU cannot emulate 10 Gb/s).
"""
import argparse
import heapq
import json
import sys


def fail(msg):
    sys.exit(f"topo.py: {msg}")


def load(path):
    try:
        with open(path) as f:
            topo = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    islands = topo.get("islands")
    if not isinstance(islands, list) or not islands:
        fail(f"{path}: 'islands' must be a non-empty list")
    ids = [i.get("id") for i in islands]
    if len(set(ids)) != len(ids) or not all(isinstance(i, str) for i in ids):
        fail(f"{path}: island ids must be unique strings")
    return topo, ids


def shortest_paths(topo, ids):
    """Dijkstra from every island over all nodes (islands and PoPs)."""
    adj = {}
    for n, link in enumerate(topo.get("links", [])):
        a, b, lat = link.get("a"), link.get("b"), link.get("latency_ms")
        if not isinstance(lat, (int, float)) or lat < 0:
            fail(f"links[{n}].latency_ms must be a number >= 0")
        loss = float(link.get("loss", 0.0))
        adj.setdefault(a, []).append((b, float(lat), loss))
        adj.setdefault(b, []).append((a, float(lat), loss))
    result = {}
    for src in ids:
        dist = {src: (0.0, 1.0)}
        heap = [(0.0, src, 1.0)]
        while heap:
            d, node, keep = heapq.heappop(heap)
            if d > dist[node][0]:
                continue
            for nxt, lat, loss in adj.get(node, []):
                nd = d + lat
                if nxt not in dist or nd < dist[nxt][0]:
                    dist[nxt] = (nd, keep * (1.0 - loss))
                    heapq.heappush(heap, (nd, nxt, keep * (1.0 - loss)))
        for dst in ids:
            if dst != src and dst not in dist:
                fail(f"island {dst} is not reachable from {src}")
        result[src] = dist
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("topology")
    ap.add_argument("--rate-mbit", type=float, default=None,
                    help="cap every access link at this rate (Mbit/s)")
    ap.add_argument("--latency-scale", type=float, default=1.0,
                    help="multiply every latency by this factor")
    args = ap.parse_args()
    topo, ids = load(args.topology)
    paths = shortest_paths(topo, ids)
    for k, isl in enumerate(topo["islands"]):
        rates = []
        for key in ("egress_gbps", "ingress_gbps"):
            mbit = float(isl.get(key, 10.0)) * 1000.0
            if args.rate_mbit is not None:
                mbit = min(mbit, args.rate_mbit)
            rates.append(mbit)
        print(f"island {k} {isl['id']} {rates[0]:g} {rates[1]:g}")
    for s, src in enumerate(ids):
        for d, dst in enumerate(ids):
            if s == d:
                continue
            ms, keep = paths[src][dst]
            print(f"delay {s} {d} {ms * args.latency_scale:.3f}")
            if keep < 1.0:
                print(f"loss {s} {d} {100.0 * (1.0 - keep):.4f}")


if __name__ == "__main__":
    main()
