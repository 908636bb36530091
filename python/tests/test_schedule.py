import json
import os
import struct
import sys
import tempfile
import unittest

from gsync import _abi
from gsync.schedule import build_blob, compile_schedule, from_json, parse_blob

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


if __name__ == "__main__":
    unittest.main()
