import json
import os
import struct
import sys
import tempfile
import unittest

import fakekernel
from gsync import _abi
from gsync.schedule import (base_bytes, build_blob, check_clique_groups, compile_schedule,
                            from_json, parse_blob)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "netns"))
import gsched  # noqa: E402

REPO = os.path.join(os.path.dirname(__file__), "..", "..")


def grid_json(rows, cols, row_pat="unicast", col_pat="rs_multicast", chunk=16384):
    ids = [f"I{k}" for k in range(rows * cols)]
    r0 = [{"members": ids[i * cols:(i + 1) * cols], "pattern": row_pat} for i in range(rows)]
    r1 = [{"members": ids[j::cols], "pattern": col_pat} for j in range(cols)]
    return ids, {"format": "gsync-schedule/1", "chunk_bytes": chunk,
                 "rounds": [{"cliques": r0}, {"cliques": r1}]}


class Schedules(unittest.TestCase):
    def test_grid_matches_gsched(self):
        """schedule: a 3x3 grid from JSON equals tests/netns/gsched.py's blob"""
        ids, doc = grid_json(3, 3)
        blob = from_json(doc, ranks=ids)
        rounds = [[{"members": list(range(i * 3, i * 3 + 3)), "pattern": "unicast"} for i in range(3)],
                  [{"members": list(range(j, 9, 3)), "pattern": "rs_multicast"} for j in range(3)]]
        self.assertEqual(blob, gsched.build(9, rounds, block=16384))
        self.assertEqual(parse_blob(blob)["rounds"][1][2]["members"], [2, 5, 8])

    def test_topology_order_and_unicast(self):
        """schedule: topology islands give ranks; unicast groups get GSYNC_SCF_UNICAST"""
        topo = json.load(open(os.path.join(REPO, "topologies", "nine-city-public.json")))
        ids = [i["id"] for i in topo["islands"]]
        doc = {"rounds": [{"cliques": [{"members": ids[::-1], "pattern": "aggregator",
                                        "aggregator": ids[4]}]}]}
        p = parse_blob(from_json(doc, topology=topo, unicast=True))
        c = p["rounds"][0][0]
        self.assertEqual((c["members"], c["aggregator"], c["flags"], c["pattern"]),
                         (list(range(9)), 4, _abi.SCF_UNICAST, "aggregator"))
        self.assertEqual(p["block_bytes"], 1 << 20)

    def test_topology_multicast_capability(self):
        """schedule: islands without multicast in the topology get results by unicast, as export does"""
        topo = {"multicast": {"mode": "none"},
                "islands": [{"id": "A"}, {"id": "B", "multicast": {"mode": "full"}}, {"id": "C"}]}

        def flags(pattern, topology=topo, **c):
            doc = {"rounds": [{"cliques": [dict(members=["A", "B", "C"], pattern=pattern, **c)]}]}
            return parse_blob(from_json(doc, topology=topology))["rounds"][0][0]["flags"]

        self.assertEqual(flags("rs_multicast"), _abi.SCF_UNICAST)       # A and C lack it
        self.assertEqual(flags("aggregator", aggregator="B"), 0)        # B sends the results
        self.assertEqual(flags("aggregator", aggregator="C"), _abi.SCF_UNICAST)
        self.assertEqual(flags("unicast"), 0)
        with self.assertRaisesRegex(ValueError, "island 'A' does not have"):
            flags("multicast")
        reach = dict(topo, multicast={"mode": "reach", "reach": 2})
        self.assertEqual(flags("rs_multicast", reach), 0)
        self.assertEqual(flags("multicast", reach), 0)
        # ranks= orders the islands; the capability still comes from the topology
        doc = {"rounds": [{"cliques": [{"members": ["A", "B", "C"], "pattern": "aggregator",
                                        "aggregator": "A"}]}]}
        p = parse_blob(from_json(doc, ranks=["C", "B", "A"], topology=topo))
        self.assertEqual(p["rounds"][0][0], {"members": [0, 1, 2], "pattern": "aggregator",
                                             "aggregator": 2, "flags": _abi.SCF_UNICAST,
                                             "rate_kbit": 0})
        doc["rounds"][0]["cliques"][0]["aggregator"] = "B"
        p = parse_blob(from_json(doc, ranks=["C", "B", "A"], topology=topo))
        self.assertEqual((p["rounds"][0][0]["aggregator"], p["rounds"][0][0]["flags"]), (1, 0))

    def test_ranks_as_numbers_and_weights(self):
        """schedule: numeric members; weights equal to the implied shares are accepted"""
        doc = {"chunk_bytes": 5000,
               "rounds": [{"cliques": [{"members": [0, 1], "pattern": "unicast",
                                        "weights": [0.5, 0.5]},
                                       {"members": [2, 3], "pattern": "unicast"}]},
                          {"cliques": [{"members": [0, 2], "pattern": "multicast",
                                        "weights": [0.5, 0.5]},
                                       {"members": [1, 3], "pattern": "multicast"}]}]}
        p = parse_blob(from_json(doc, nranks=4))
        self.assertEqual(p["block_bytes"], 5008)  # rounded up to 16
        self.assertEqual(p["nranks"], 4)

    def test_refusals(self):
        """schedule: auto/ring patterns, unknown islands, double counting, incomplete, bad weights"""
        ids = ["A", "B", "C"]
        one = lambda **c: {"rounds": [{"cliques": [dict({"members": ids}, **c)]}]}  # noqa: E731
        for doc, msg in [
            (one(pattern="auto"), "gsync-sched export"),
            (one(pattern="ring"), "cannot be converted"),
            (one(pattern="multicast", weights=[0.2, 0.4, 0.4]), r"weights\[0\]"),
            (one(pattern="aggregator"), "aggregator omitted"),
            (one(pattern="aggregator", aggregator="D"), "unknown island"),
            ({"rounds": [{"cliques": [{"members": ["A", "B"], "pattern": "unicast"}]}]},
             "rank 0 covers only \\[0, 1\\]"),
            ({"rounds": [{"cliques": [{"members": ["A", "B"], "pattern": "unicast"},
                                      {"members": ["B", "C"], "pattern": "unicast"}]}]},
             "two cliques"),
            ({"rounds": [{"cliques": [{"members": ["A", "B"], "pattern": "unicast"}]},
                         {"cliques": [{"members": ["A", "B", "C"], "pattern": "unicast"}]},
                         ]}, "counted twice"),
            ({"rounds": []}, "rounds"),
            ({"format": "other/1", "rounds": []}, "format"),
        ]:
            with self.assertRaisesRegex(ValueError, msg, msg=json.dumps(doc)):
                from_json(doc, ranks=ids)
        with self.assertRaisesRegex(ValueError, "ranks=|topology="):
            from_json(one(pattern="unicast"))
        with self.assertRaisesRegex(ValueError, "outside"):
            from_json({"rounds": [{"cliques": [{"members": [0, 5], "pattern": "unicast"}]}]},
                      nranks=3)

    def test_compile_sources(self):
        """schedule: compile_schedule takes blob bytes, blob files, JSON files and JSON text"""
        ids, doc = grid_json(2, 2, "multicast", "multicast", 4096)
        blob = from_json(doc, ranks=ids)
        with tempfile.TemporaryDirectory() as d:
            bp, jp = os.path.join(d, "s.gsched"), os.path.join(d, "s.json")
            open(bp, "wb").write(blob)
            json.dump(doc, open(jp, "w"))
            self.assertEqual(compile_schedule(bp), blob)
            self.assertEqual(compile_schedule(jp, ranks=ids), blob)
        self.assertEqual(compile_schedule(json.dumps(doc), ranks=ids), blob)
        self.assertEqual(compile_schedule(blob, start_seq=9)[8:16], struct.pack("=Q", 9))
        with self.assertRaisesRegex(ValueError, "4 ranks, the group has 3"):
            compile_schedule(blob, nranks=3)
        with self.assertRaisesRegex(ValueError, "neither a blob"):
            compile_schedule(b"\x00garbage")
        with self.assertRaisesRegex(ValueError, "says"):
            parse_blob(blob[:-2])

    def test_blob_roundtrip(self):
        """schedule: parse_blob inverts build_blob (idle ranks, aggregator, flags, rate)"""
        rounds = [[{"members": [0, 1, 3], "pattern": "aggregator", "aggregator": 3,
                    "flags": 1, "rate_kbit": 25312}]]
        p = parse_blob(build_blob(4, rounds, 8192, idle=[3], start_seq=2))
        self.assertEqual((p["idle"], p["start_seq"], p["block_bytes"]), ([3], 2, 8192))
        self.assertEqual(p["rounds"], [[{"members": [0, 1, 3], "pattern": "aggregator",
                                         "aggregator": 3, "flags": 1, "rate_kbit": 25312}]])


def grid_rounds(n=3):
    """an n x n grid of ranks: 2n cliques, rows unicast, columns multicast"""
    return [[{"members": list(range(i * n, i * n + n)), "pattern": "unicast"} for i in range(n)],
            [{"members": list(range(j, n * n, n)), "pattern": "multicast"} for j in range(n)]]


class CliqueGroups(unittest.TestCase):
    """GSYNC_SCHF_CLIQUE_GROUPS and group_base, as uapi/linux/gsync_sched.h
    and the kernel's gsync_sched_check_hdr/_check_cgroups have them."""

    def test_pack_unpack(self):
        """clique groups: flags and group_base packed as tests/netns/gsched.py packs them, read back"""
        rounds = grid_rounds()
        off = build_blob(9, rounds, 16384)
        self.assertEqual(off, gsched.build(9, rounds, 16384))
        self.assertEqual((parse_blob(off)["flags"], parse_blob(off)["group_base"]), (0, bytes(16)))
        for base in (None, "239.77.13.0", "ff15::79:0"):
            with self.subTest(group_base=base):
                blob = build_blob(9, rounds, 16384, clique_groups=True, group_base=base)
                self.assertEqual(blob, gsched.build(9, rounds, 16384, clique_groups=True,
                                                    group_base=base))
                p = parse_blob(blob)
                self.assertEqual(p["flags"], _abi.SCHF_CLIQUE_GROUPS)
                self.assertEqual(p["group_base"], gsched.base_bytes(base) if base else bytes(16))
                self.assertEqual(len(p["group_base"]), 16)
        self.assertEqual(blob[28:32], struct.pack("=I", 1))         # flags
        self.assertEqual(blob[64:80], bytes.fromhex("ff150000000000000000000000790000"))
        v4 = build_blob(9, rounds, 16384, clique_groups=True, group_base="239.77.13.0")
        self.assertEqual(v4[64:80], bytes([239, 77, 13, 0]) + bytes(12))
        self.assertEqual(base_bytes(bytes(v4[64:80])), v4[64:80])

    def test_json_builder(self):
        """clique groups: off by default for JSON; clique_groups=True and group_base= set them"""
        ids, doc = grid_json(3, 3, "unicast", "multicast")
        rounds = grid_rounds()
        self.assertEqual(parse_blob(from_json(doc, ranks=ids))["flags"], 0)
        self.assertEqual(from_json(doc, ranks=ids, clique_groups=True),
                         gsched.build(9, rounds, 16384, clique_groups=True))
        self.assertEqual(compile_schedule(doc, ranks=ids, clique_groups=True,
                                          group_base="ff15::78:0"),
                         gsched.build(9, rounds, 16384, clique_groups=True,
                                      group_base="ff15::78:0"))
        blob = from_json(doc, ranks=ids)
        with self.assertRaisesRegex(ValueError, "a blob carries its own"):
            compile_schedule(blob, clique_groups=True)

    def test_refused(self):
        """clique groups: every rule refuses what the kernel refuses, naming it"""
        rounds = grid_rounds()   # 6 cliques
        good = build_blob(9, rounds, 16384, clique_groups=True)

        def patched(flags=None, base=None):
            b = bytearray(good)
            if flags is not None:
                b[28:32] = struct.pack("=I", flags)
            if base is not None:
                b[64:80] = gsched.base_bytes(base)
            return bytes(b)

        for blob, msg in [
            (patched(flags=2), r"flags: unknown flags 0x2 "),
            (patched(flags=3), r"flags: unknown flags 0x2 "),
            (patched(flags=0, base="239.77.13.0"), "group_base: set without SCHF_CLIQUE_GROUPS"),
            (patched(base="239.255.255.252"),
             r"the 6 clique addresses 239\.255\.255\.252 \+ 0\.\.5 are not all IPv4 multicast"),
            (patched(base="224.0.0.250"), r"224\.0\.0\.250 \+ 0\.\.5 are not all IPv4 multicast"),
            (patched(base="10.1.2.3"), "not all IPv4 multicast"),
            (patched(base="ff15::ffff:fffb"), "carry out of the low 32 bits"),
            (patched(base="2001:db8::1"), "neither an IPv4 address .* nor IPv6 multicast"),
        ]:
            with self.subTest(msg=msg):
                with self.assertRaisesRegex(ValueError, msg):
                    parse_blob(blob)
                with self.assertRaisesRegex(ValueError, msg):
                    compile_schedule(blob)
        # the edges that pass
        for base in ("224.0.1.0", "239.255.255.250", "ff15::ffff:fffa", "ff0e::"):
            with self.subTest(base=base):
                self.assertEqual(parse_blob(patched(base=base))["flags"], 1)
        with self.assertRaisesRegex(ValueError, "needs clique_groups=True"):
            build_blob(9, rounds, 16384, group_base="239.77.13.0")
        with self.assertRaisesRegex(ValueError, "not all IPv4 multicast"):
            build_blob(9, rounds, 16384, clique_groups=True, group_base="239.255.255.252")
        with self.assertRaisesRegex(ValueError, "all zero stands for the group's address"):
            build_blob(9, rounds, 16384, clique_groups=True, group_base="0.0.0.0")
        with self.assertRaisesRegex(ValueError, "not an IPv4 or IPv6 address"):
            build_blob(9, rounds, 16384, clique_groups=True, group_base="nowhere")
        with self.assertRaisesRegex(ValueError, "17 bytes, expected 16"):
            build_blob(9, rounds, 16384, clique_groups=True, group_base=bytes(17))

    def test_against_the_group(self):
        """clique groups: with the group's address, its family, own address and the derived base"""
        rounds = grid_rounds()   # 6 cliques

        def check(group, base=None, flags=_abi.SCHF_CLIQUE_GROUPS):
            check_clique_groups(flags, base_bytes(base), 6, group)

        check("239.1.1.1")                              # 239.1.1.2 .. 239.1.1.7
        check("239.1.1.1", "239.1.2.0")
        check("ff15::1")
        check("ff15::1", "ff15::79:0")
        check("239.1.1.1", flags=0)
        for group, base, msg in [
            ("239.255.255.253", None, r"group_base 0 \(the group's address 239\.255\.255\.253 \+ 1\)"
                                      r": the 6 clique addresses 239\.255\.255\.254 \+ 0\.\.5"),
            ("ff15::ffff:fffe", None, "carry out of the low 32 bits"),
            ("239.1.2.5", "239.1.2.3", "clique 2's address is 239.1.2.5, the group's own"),
            ("ff15::5", "ff15::", "clique 5's address is ff15::5, the group's own"),
            ("239.1.1.1", "ff15::79:0", "not an IPv4 address .* the group 239.1.1.1 is IPv4"),
            ("ff15::1", "239.1.2.0", "is not IPv6 multicast .* the group ff15::1 is IPv6"),
        ]:
            with self.subTest(group=group, base=base):
                with self.assertRaisesRegex(ValueError, msg):
                    check(group, base)
                blob = build_blob(9, rounds, 16384, clique_groups=True, group_base=base)
                with self.assertRaisesRegex(ValueError, msg):
                    compile_schedule(blob, group=group)

    def test_group_load_schedule(self):
        """clique groups: Group.load_schedule checks them against a multicast group's address"""
        ids, doc = grid_json(2, 2, "unicast", "multicast", 4096)
        fab, gs = fakekernel.groups(4, unicast=False, mcast="239.1.2.5:7000")
        try:
            g = gs[0]
            blob = g.load_schedule(doc, ranks=ids, clique_groups=True)
            self.assertEqual(g._sock.schedule, blob)
            self.assertEqual(parse_blob(blob)["flags"], _abi.SCHF_CLIQUE_GROUPS)
            with self.assertRaisesRegex(ValueError, "clique 2's address is 239.1.2.5"):
                g.load_schedule(doc, ranks=ids, clique_groups=True, group_base="239.1.2.3")
            self.assertEqual(g._sock.schedule, blob)    # nothing loaded
            clash = from_json(doc, ranks=ids, clique_groups=True, group_base="239.1.2.3")
            with self.assertRaisesRegex(ValueError, "the group's own"):
                g.load_schedule(clash)
            self.assertEqual(parse_blob(g.load_schedule(doc, ranks=ids))["flags"], 0)
        finally:
            for x in gs:
                x.close(wait=False)
        fab, gs = fakekernel.groups(4)    # unicast: the flag has no effect
        try:
            self.assertEqual(gs[0].load_schedule(clash), clash)
        finally:
            for x in gs:
                x.close(wait=False)


if __name__ == "__main__":
    unittest.main()
