import os
import sys
import unittest

import gsync
from gsync import config
from gsync.config import from_env, make_config, parse_endpoint, parse_members

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "netns"))
import gsync_py  # noqa: E402

M3 = ["198.18.0.1:7000", "198.18.0.2:7000", "198.18.0.3:7000"]


class Endpoints(unittest.TestCase):
    def test_ipv4(self):
        """endpoint: IPv4 addr:port"""
        self.assertEqual(parse_endpoint("198.18.0.1:7000"), ("198.18.0.1", 7000, 0))

    def test_ipv6(self):
        """endpoint: [IPv6]:port, scope by number, tuples"""
        self.assertEqual(parse_endpoint("[2001:2::1]:7000"), ("2001:2::1", 7000, 0))
        self.assertEqual(parse_endpoint("[fe80::1%3]:9"), ("fe80::1", 9, 3))
        self.assertEqual(parse_endpoint(("198.18.0.1", 5)), ("198.18.0.1", 5, 0))
        self.assertEqual(parse_endpoint(("fe80::1", 5, 2)), ("fe80::1", 5, 2))

    def test_scope_by_name(self):
        """endpoint: [fe80::1%lo]:7 resolves the interface"""
        self.assertEqual(parse_endpoint("[fe80::1%lo]:7")[2], __import__("socket").if_nametoindex("lo"))
        with self.assertRaisesRegex(ValueError, "no interface"):
            parse_endpoint("[fe80::1%nosuchif0]:7")

    def test_bad(self):
        """endpoint: malformed text, names, ports out of range are ValueErrors"""
        for bad in ["198.18.0.1", "198.18.0.1:0", "198.18.0.1:65536", "host.example:80",
                    "2001:2::1:7000", "[2001:2::1]7000", "198.18.0.1:x", ":7000",
                    "198.18.0.1%2:7"]:
            with self.assertRaises(ValueError, msg=bad):
                parse_endpoint(bad)
        with self.assertRaises(TypeError):
            parse_endpoint(7000)
        with self.assertRaises(ValueError):
            parse_endpoint(("198.18.0.1", "7000"))

    def test_format_roundtrip(self):
        """endpoint: format_endpoint is the inverse of parse_endpoint"""
        for t in ["198.18.0.1:7000", "[2001:2::1]:7000", "[fe80::1%3]:9"]:
            self.assertEqual(config.format_endpoint(parse_endpoint(t)), t)


class Members(unittest.TestCase):
    def test_string_and_list(self):
        """members: comma-separated string equals list"""
        self.assertEqual(parse_members(",".join(M3)), parse_members(M3))
        self.assertEqual(len(parse_members(" , ".join(M3) + ",")), 3)

    def test_rules(self):
        """members: 2..256 ranks, no multicast/unspecified, no duplicates, one family"""
        with self.assertRaisesRegex(ValueError, "2..256"):
            parse_members(M3[:1])
        with self.assertRaisesRegex(ValueError, "2..256"):
            parse_members(["198.18.%d.%d:1" % (i // 250, i % 250 + 1) for i in range(257)])
        self.assertEqual(len(parse_members(["198.18.%d.%d:1" % (i // 250, i % 250 + 1)
                                            for i in range(256)])), 256)
        with self.assertRaisesRegex(ValueError, "unicast address"):
            parse_members(["239.1.1.1:7000", M3[1]])
        with self.assertRaisesRegex(ValueError, "unicast address"):
            parse_members(["0.0.0.0:7000", M3[1]])
        with self.assertRaisesRegex(ValueError, r"members\[1\]"):
            parse_members([M3[0], M3[0]])
        with self.assertRaisesRegex(ValueError, "mixed"):
            parse_members([M3[0], "[2001:2::1]:7000"])
        # same address, different ports: fine (ranks sharing a host)
        self.assertEqual(len(parse_members(["198.18.0.1:1", "198.18.0.1:2"])), 2)


class MakeConfig(unittest.TestCase):
    def test_mode_exclusive(self):
        """Group args: exactly one of mcast= and unicast=True"""
        with self.assertRaisesRegex(ValueError, "mcast="):
            make_config(0, M3)
        with self.assertRaisesRegex(ValueError, "not both"):
            make_config(0, M3, mcast="239.1.1.1:7100", unicast=True)
        self.assertTrue(make_config(0, M3, unicast=True).unicast)
        self.assertEqual(make_config(0, M3, mcast="239.1.1.1:7100").mcast, ("239.1.1.1", 7100, 0))

    def test_mcast_rules(self):
        """Group args: mcast must be multicast and of the members' family"""
        with self.assertRaisesRegex(ValueError, "not a multicast"):
            make_config(0, M3, mcast="198.18.0.9:7100")
        with self.assertRaisesRegex(ValueError, "same address family"):
            make_config(0, M3, mcast="[ff3e::1]:7100")

    def test_rank(self):
        """Group args: rank in 0..n-1 and an int"""
        with self.assertRaisesRegex(ValueError, "rank 3"):
            make_config(3, M3, unicast=True)
        with self.assertRaises(ValueError):
            make_config(-1, M3, unicast=True)
        with self.assertRaises(TypeError):
            make_config("0", M3, unicast=True)
        with self.assertRaises(TypeError):
            make_config(True, M3, unicast=True)

    def test_tunables(self):
        """Group args: every tunable's range as the kernel checks it"""
        ok = make_config(0, M3, unicast=True, window=64, mtu=576, max_op_bytes=1 << 30,
                         op_timeout_ms=10, repair_ms=10, ttl=255, pacing_rate=1)
        self.assertEqual((ok.window, ok.mtu, ok.op_timeout_ms, ok.repair_ms), (64, 576, 10, 10))
        for kw in [dict(window=65), dict(mtu=575), dict(mtu=65536), dict(max_op_bytes=(1 << 30) + 1),
                   dict(op_timeout_ms=9), dict(op_timeout_ms=3600001), dict(ttl=256),
                   dict(op_timeout_ms=100, repair_ms=101), dict(repair_ms=10001),
                   dict(pacing_rate=-1), dict(window=-1)]:
            with self.assertRaises(ValueError, msg=str(kw)):
                make_config(0, M3, unicast=True, **kw)
        with self.assertRaisesRegex(TypeError, "unknown tunable"):
            make_config(0, M3, unicast=True, windw=4)
        with self.assertRaises(TypeError):
            make_config(0, M3, unicast=True, window=4.0)
        with self.assertRaisesRegex(ValueError, "no such interface"):
            make_config(0, M3, unicast=True, ifname="nosuchif0")
        self.assertEqual(make_config(0, M3, unicast=True, ifname="lo").ifindex,
                         __import__("socket").if_nametoindex("lo"))
        with self.assertRaisesRegex(ValueError, "mcast_loop"):
            make_config(0, M3, unicast=True, mcast_loop=True)

    def test_join_blob(self):
        """JOIN blob: byte-identical to tests/netns/gsync_py.py's packing"""
        c = make_config(2, M3, mcast="239.77.1.1:7100", window=8, op_timeout_ms=1500,
                        repair_ms=7, pacing_rate=12345, mtu=1400, ttl=3, group_id=0x1234,
                        ifindex=5)
        want = gsync_py.join_blob(0x1234, 2, [("198.18.0.%d" % i, 7000) for i in (1, 2, 3)],
                                  ("239.77.1.1", 7100), ifindex=5, ttl=3, mtu=1400, window=8,
                                  op_timeout_ms=1500, repair_ms=7, pacing_rate=12345)
        self.assertEqual(c.join_blob(), want)
        u = make_config(0, ["[2001:2::1]:7000", "[2001:2::2]:7000"], unicast=True, group_id=9)
        want = gsync_py.join_blob(9, 0, [("2001:2::1", 7000), ("2001:2::2", 7000)], None,
                                  flags=gsync_py.JOIN_UNICAST)
        self.assertEqual(u.join_blob(), want)
        self.assertEqual(len(u.join_blob()), 96 + 2 * 24)

    def test_group_id(self):
        """group id: same on every rank, differs between groups, overridable"""
        a = make_config(0, M3, unicast=True).group_id
        b = make_config(2, M3, unicast=True).group_id
        c = make_config(0, M3, mcast="239.1.1.1:7100").group_id
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        self.assertEqual(make_config(0, M3, unicast=True, group_id=0).group_id, 0)

    def test_key_checked_first(self):
        """Group(key=...): a malformed key is refused before the kernel is asked"""
        for key, exc, msg in ((b"secret", ValueError, "32 bytes, not 6"),
                              (12345, TypeError, "expected 32 bytes"),
                              (gsync.Key, TypeError, "expected 32 bytes")):
            with self.subTest(key=key):
                with self.assertRaisesRegex(exc, msg):
                    gsync.Group(0, M3, unicast=True, key=key, sock=object())


class Env(unittest.TestCase):
    def test_full(self):
        """env: GSYNC_RANK, GSYNC_MEMBERS, GSYNC_MCAST and optional ones"""
        kw = from_env({"GSYNC_RANK": "1", "GSYNC_MEMBERS": ",".join(M3),
                       "GSYNC_MCAST": "239.1.1.1:7100", "GSYNC_GROUP_ID": "0x2a",
                       "GSYNC_WINDOW": "8", "GSYNC_TIMEOUT_MS": "2000",
                       "GSYNC_PACING_RATE": "1000000", "GSYNC_IFNAME": "lo"})
        self.assertEqual(kw, {"rank": 1, "members": ",".join(M3), "mcast": "239.1.1.1:7100",
                              "group_id": 42, "window": 8, "op_timeout_ms": 2000,
                              "pacing_rate": 1000000, "ifname": "lo"})
        c = make_config(**kw)
        self.assertEqual((c.rank, c.nranks, c.group_id), (1, 3, 42))

    def test_unicast(self):
        """env: GSYNC_MCAST=unicast (or none/empty) means unicast fan-out"""
        for v in ("unicast", "none", "", "UNICAST"):
            kw = from_env({"GSYNC_RANK": "0", "GSYNC_MEMBERS": ",".join(M3), "GSYNC_MCAST": v})
            self.assertEqual(kw.get("unicast"), True, v)
            self.assertNotIn("mcast", kw)

    def test_missing_and_bad(self):
        """env: missing or malformed variables are named in the error"""
        base = {"GSYNC_RANK": "0", "GSYNC_MEMBERS": ",".join(M3), "GSYNC_MCAST": "unicast"}
        for var in base:
            env = dict(base)
            del env[var]
            with self.assertRaisesRegex(ValueError, var):
                from_env(env)
        with self.assertRaisesRegex(ValueError, "GSYNC_RANK"):
            from_env(dict(base, GSYNC_RANK="one"))
        with self.assertRaisesRegex(ValueError, "GSYNC_WINDOW"):
            from_env(dict(base, GSYNC_WINDOW="8x"))
        with self.assertRaisesRegex(ValueError, "rank 3"):
            make_config(**from_env(dict(base, GSYNC_RANK="3")))

    def test_os_environ(self):
        """env: reads os.environ by default"""
        old = dict(os.environ)
        try:
            os.environ.update({"GSYNC_RANK": "2", "GSYNC_MEMBERS": ",".join(M3),
                               "GSYNC_MCAST": "239.1.1.1:7100"})
            self.assertEqual(from_env()["rank"], 2)
        finally:
            os.environ.clear()
            os.environ.update(old)


if __name__ == "__main__":
    unittest.main()
