"""Keyed groups in the Python package: the ABI of GSYNC_KEY and
GSYNC_KEY_PUSH against uapi/linux/gsync.h, fingerprints against the
vectors libgsync's tests hold (hashlib.blake2s, recorded once), key files
with libgsync's rules (mode 0600, group/world-accessible files refused
with PermissionError, malformed ones with ValueError), gsync.Key, and
Group(key=), rotate_key() and GSYNC_KEY_FILE over the fake kernel."""
import errno
import os
import re
import stat
import struct
import tempfile
import unittest

import gsync
from gsync import _abi
from gsync.__main__ import _print_text
from gsync.config import from_env
from gsync.keys import key_decode, key_encode

import fakekernel

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
UAPI = os.path.join(REPO, "uapi", "linux", "gsync.h")
SEQ32 = bytes(range(32))
SEQ32_B64 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="


def header():
    with open(UAPI) as f:
        return f.read()


def struct_fields(text, name):
    """The member names of struct NAME in the header, in order."""
    body = re.search(r"struct %s \{(.*?)\n\};" % name, text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    return re.findall(r"(\w+)(?:\[[^]]*\])?;", body)


class Abi(unittest.TestCase):
    def test_sizes(self):
        """ABI: struct sizes of gsync_key (64), gsync_key_push (80), gsync_info (96), gsync_stats (280)"""
        self.assertEqual((_abi.KEY.size, _abi.KEY_PUSH.size, _abi.INFO.size, _abi.STATS_SIZE),
                         (64, 80, 96, 280))

    def test_against_header(self):
        """ABI: option numbers, names, fields and drop reasons are uapi/linux/gsync.h's"""
        h = header()

        def define(n):
            return re.search(r"#define %s\s+(\S+)" % n, h).group(1)
        self.assertEqual(int(define("GSYNC_KEY")), _abi.GSYNC_KEY)
        self.assertEqual(int(define("GSYNC_KEY_PUSH")), _abi.GSYNC_KEY_PUSH)
        self.assertEqual(int(define("GSYNC_KEY_LEN")), _abi.KEY_LEN)
        self.assertEqual(int(define("GSYNC_KEY_ANY_RANK"), 0), _abi.KEY_ANY_RANK)
        self.assertEqual(re.search(r'#define GSYNC_KEY_FPR_LABEL\s+"([^"]*)"', h).group(1).encode(),
                         _abi.KEY_FPR_LABEL)
        for n, v in (("GSYNC_KEY_NONE", 0), ("GSYNC_KEY_AUTH", 1), ("GSYNC_KEY_ENCRYPT", 2)):
            self.assertEqual(int(re.search(r"%s = (\d+)" % n, h).group(1)), v)
        self.assertEqual(tuple(struct_fields(h, "gsync_info")), _abi.INFO_FIELDS)
        self.assertEqual(struct_fields(h, "gsync_key"),
                         ["mode", "epoch", "start_seq", "secret", "reserved"])
        self.assertEqual(struct_fields(h, "gsync_key_push"),
                         ["group_id", "rank", "reserved0", "reserved1", "key"])
        names = re.search(r"#define GSYNC_DROP_NAMES \{(.*?)\}", h, re.S).group(1)
        self.assertEqual(tuple(re.findall(r'"(\w+)"', names)), _abi.DROP_NAMES)
        # struct gsync_stats: drops[] of the first reasons, drops_ext[] last
        st = struct_fields(h, "gsync_stats")
        self.assertEqual(st[-1], "drops_ext")
        self.assertEqual(len(_abi.DROP_BASE_NAMES), _abi.DROP_BASE)
        self.assertEqual(st[:len(_abi.STATS_FIELDS)], list(_abi.STATS_FIELDS))
        self.assertEqual(st[len(_abi.STATS_FIELDS) + 1:-1], list(_abi.STATS_LATE))
        base = re.search(r"#define GSYNC_DROP_BASE\s+(\w+)", h).group(1)
        self.assertEqual(base, "GSYNC_DROP_" + _abi.DROP_EXT_NAMES[0].upper())

    def test_key_option_bytes(self):
        """ABI: Key.option() is struct gsync_key, reserved zero"""
        k = gsync.Key(SEQ32, "auth", 7)
        raw = bytes(k.option(1234))
        self.assertEqual(len(raw), 64)
        self.assertEqual(struct.unpack_from("=IIQ", raw), (1, 7, 1234))
        self.assertEqual(raw[16:48], SEQ32)
        self.assertEqual(raw[48:], bytes(16))


class Fingerprint(unittest.TestCase):
    def test_vectors(self):
        """fingerprint: the vectors of libgsync's test_keyfile (hashlib.blake2s, recorded once)"""
        self.assertEqual(gsync.key_fingerprint(SEQ32), 0x5608c0e6269b66f4)
        self.assertEqual(gsync.key_fingerprint(bytes(32)), 0x09b3516f8cfa9e74)
        self.assertEqual(gsync.key_fingerprint(b"\xff" * 32), 0xe075117054de57b4)
        self.assertEqual(f"{gsync.Key(bytes(32)).fingerprint:016x}", "09b3516f8cfa9e74")

    def test_bad_secrets(self):
        """fingerprint: only 32 bytes are a secret"""
        with self.assertRaisesRegex(ValueError, "32 bytes, not 31"):
            gsync.key_fingerprint(bytes(31))
        with self.assertRaises(TypeError):
            gsync.key_fingerprint(SEQ32_B64)


class Codec(unittest.TestCase):
    def test_round_trip(self):
        """base64: encode and decode as libgsync does"""
        self.assertEqual(key_encode(SEQ32), SEQ32_B64)
        self.assertEqual(key_decode(SEQ32_B64), SEQ32)
        self.assertEqual(key_decode(SEQ32_B64 + "\n"), SEQ32)

    def test_refused(self):
        """base64: the texts libgsync refuses are refused"""
        for t in ("", "\n", SEQ32_B64 + "\n\n", SEQ32_B64 + " ", SEQ32_B64 + "\r\n",
                  " " + SEQ32_B64, SEQ32_B64[:-1], SEQ32_B64 + "=",
                  SEQ32_B64[:-2] + "9=", SEQ32_B64[:-3] + "!8=", "é" * 44):
            with self.subTest(text=t):
                with self.assertRaises(ValueError):
                    key_decode(t)


class KeyFiles(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.d, name)

    def put(self, name, data, mode=0o600):
        p = self.path(name)
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, mode)
        return p

    def test_round_trip(self):
        """key files: written mode 0600 (even with umask 0), read back, two keys differ"""
        a, b = gsync.key_generate(), gsync.key_generate()
        self.assertEqual((len(a), len(b)), (32, 32))
        self.assertNotEqual(a, b)
        old = os.umask(0)
        try:
            gsync.key_file_write(self.path("job.key"), a)
        finally:
            os.umask(old)
        st = os.stat(self.path("job.key"))
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o600)
        with open(self.path("job.key"), "rb") as f:
            self.assertEqual(f.read(), key_encode(a).encode() + b"\n")
        self.assertEqual(gsync.key_file_read(self.path("job.key")), a)

    def test_no_overwrite(self):
        """key files: an existing file is kept unless overwrite=True, which replaces it 0600"""
        a, b = gsync.key_generate(), gsync.key_generate()
        gsync.key_file_write(self.path("k"), a)
        with self.assertRaises(FileExistsError):
            gsync.key_file_write(self.path("k"), b)
        self.assertEqual(gsync.key_file_read(self.path("k")), a)
        os.chmod(self.path("k"), 0o644)
        gsync.key_file_write(self.path("k"), b, overwrite=True)
        self.assertEqual(stat.S_IMODE(os.stat(self.path("k")).st_mode), 0o600)
        self.assertEqual(gsync.key_file_read(self.path("k")), b)
        self.assertEqual(sorted(os.listdir(self.d)), ["k"])   # no temporary file left
        os.symlink(self.path("target"), self.path("link"))
        with self.assertRaises(FileExistsError):
            gsync.key_file_write(self.path("link"), a)
        self.assertFalse(os.path.exists(self.path("target")))

    def test_permissions(self):
        """key files: 0644, 0640, 0602, 0610 refused with PermissionError (EACCES); 0600, 0400 read"""
        p = self.put("k", SEQ32_B64.encode() + b"\n")
        for mode in (0o644, 0o640, 0o602, 0o610, 0o700 | 0o004):
            with self.subTest(mode=oct(mode)):
                os.chmod(p, mode)
                with self.assertRaises(PermissionError) as cm:
                    gsync.key_file_read(p)
                self.assertEqual(cm.exception.errno, errno.EACCES)
                self.assertIn("chmod 600", str(cm.exception))
                self.assertEqual(cm.exception.filename, p)
        for mode in (0o600, 0o400):
            os.chmod(p, mode)
            self.assertEqual(gsync.key_file_read(p), SEQ32)

    def test_malformed(self):
        """key files: malformed contents and non-regular files are refused with ValueError"""
        for data in (b"", b"\n", SEQ32_B64.encode() + b"\n\n",
                     SEQ32_B64.encode() + b"\n# job key\n", SEQ32_B64.encode() + b"\r\n",
                     b" " + SEQ32_B64.encode() + b"\n", SEQ32_B64.encode()[:-1] + b"\n",
                     SEQ32_B64.encode() + b"\0", b"A" * 128, bytes(range(32))):
            with self.subTest(data=data):
                p = self.put("bad", data)
                with self.assertRaisesRegex(ValueError, "key file"):
                    gsync.key_file_read(p)
        os.mkdir(self.path("dir"), 0o700)
        with self.assertRaisesRegex(ValueError, "not a regular file"):
            gsync.key_file_read(self.path("dir"))
        os.mkfifo(self.path("fifo"), 0o600)
        with self.assertRaisesRegex(ValueError, "not a regular file"):
            gsync.key_file_read(self.path("fifo"))
        with self.assertRaises(FileNotFoundError):
            gsync.key_file_read(self.path("missing"))


class KeyObject(unittest.TestCase):
    def test_validation(self):
        """Key: mode encrypt|auth, epoch 0..2^32-1, 32 bytes; the repr shows no secret"""
        k = gsync.Key(SEQ32)
        self.assertEqual((k.mode, k.epoch, k.secret), ("encrypt", 1, SEQ32))
        self.assertEqual(gsync.Key(bytearray(SEQ32), "auth", 0).mode, "auth")
        self.assertEqual(gsync.Key(memoryview(SEQ32)), k)
        self.assertNotEqual(gsync.Key(SEQ32, epoch=2), k)
        for bad in ({"mode": "none"}, {"mode": "ENCRYPT"}, {"epoch": -1}, {"epoch": 1 << 32},
                    {"epoch": True}, {"epoch": 1.0}):
            with self.subTest(**bad):
                with self.assertRaises(ValueError):
                    gsync.Key(SEQ32, **bad)
        with self.assertRaises(ValueError):
            gsync.Key(bytes(33))
        with self.assertRaises(TypeError):
            gsync.Key(SEQ32_B64)
        r = repr(k)
        self.assertIn("5608c0e6269b66f4", r)
        self.assertNotIn(SEQ32_B64[:20], r)
        self.assertNotIn(repr(SEQ32)[2:20], r)


def keyed_groups(n, key, **kw):
    fab = fakekernel.Fabric(n)
    kw.setdefault("unicast", True)
    gs = [gsync.Group(r, fakekernel.MEMBERS[:n], key=key, sock=fab.sock(), **kw)
          for r in range(n)]
    return fab, gs


class KeyedGroup(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.keyfile = os.path.join(self.tmp.name, "job.key")
        gsync.key_file_write(self.keyfile, SEQ32)

    def tearDown(self):
        self.tmp.cleanup()

    def test_key_before_join(self):
        """Group(key=): GSYNC_KEY (start_seq 0) before GSYNC_JOIN, from bytes, a path or a Key"""
        for key, mode, epoch in ((SEQ32, 2, 1), (self.keyfile, 2, 1),
                                 (__import__("pathlib").Path(self.keyfile), 2, 1),
                                 (gsync.Key(SEQ32, "auth", 5), 1, 5)):
            with self.subTest(key=type(key).__name__):
                fab, gs = keyed_groups(2, key)
                try:
                    s = gs[0]._sock
                    self.assertEqual(s.key_opts, [(mode, epoch, 0, SEQ32)])
                    inf = gs[0].info()
                    self.assertEqual((inf["key_mode"], inf["key_epoch"], inf["key_fingerprint"],
                                      inf["key_next_epoch"]), (mode, epoch, 0x5608c0e6269b66f4, 0))
                    self.assertEqual(gs[0].key_mode, _abi.KEY_MODE_NAMES[mode])
                    out = []
                    for g in gs:
                        out.append(g.all_reduce_async(bytearray(struct.pack("<i", 3)), "sum",
                                                      "int32"))
                    self.assertEqual([struct.unpack("<i", f.result(10))[0] for f in out], [6, 6])
                finally:
                    for g in gs:
                        g.close(wait=False)

    def test_refused_key_file(self):
        """Group(key=path): a world-readable key file is refused before any socket"""
        os.chmod(self.keyfile, 0o644)
        with self.assertRaises(PermissionError):
            gsync.Group(0, fakekernel.MEMBERS[:2], unicast=True, key=self.keyfile, sock=object())
        with self.assertRaises(FileNotFoundError):
            gsync.Group(0, fakekernel.MEMBERS[:2], unicast=True, key=self.keyfile + ".x",
                        sock=object())

    def test_kernel_refusals(self):
        """Group: GSYNC_KEY refused, and JOIN with require_auth (ENOKEY), name the cause"""
        fab = fakekernel.Fabric(2)
        s = fab.sock()
        s.fail_key = errno.ENOPROTOOPT
        with self.assertRaisesRegex(gsync.GsyncError, "GSYNC_KEY refused.*no keyed groups") as cm:
            gsync.Group(0, fakekernel.MEMBERS[:2], unicast=True, key=SEQ32, sock=s)
        self.assertEqual(cm.exception.errno, errno.ENOPROTOOPT)
        self.assertTrue(s.closed)
        fab.require_auth = True
        with self.assertRaisesRegex(gsync.GsyncError, "require_auth") as cm:
            gsync.Group(0, fakekernel.MEMBERS[:2], unicast=True, sock=fab.sock())
        self.assertEqual(cm.exception.errno, errno.ENOKEY)
        g = gsync.Group(0, fakekernel.MEMBERS[:2], unicast=True, key=SEQ32, sock=fab.sock())
        g.close()

    def test_rotate(self):
        """rotate_key: next_seq + window by default, the group's mode, epoch + 1; or as given"""
        new = gsync.key_generate()
        fab, gs = keyed_groups(2, gsync.Key(SEQ32, "auth", 3), window=6)
        try:
            for f in [g.all_reduce_async(bytearray(4), "sum", "int32") for g in gs]:
                f.result(10)
            k = gs[0].rotate_key(new)
            self.assertEqual((k.mode, k.epoch), ("auth", 4))
            self.assertEqual(gs[0]._sock.key_opts[-1], (1, 4, 2 + 6, new))
            inf = gs[0].info()
            self.assertEqual((inf["key_epoch"], inf["key_next_epoch"]), (3, 4))
            with self.assertRaisesRegex(gsync.GsyncError, "still pending") as cm:
                gs[0].rotate_key(gsync.key_generate(), start_seq=20)
            self.assertEqual(cm.exception.errno, errno.EBUSY)
            # rank 1: a key file, an explicit start_seq
            gsync.key_file_write(self.keyfile, new, overwrite=True)
            gs[1].rotate_key(self.keyfile, start_seq=8)
            self.assertEqual(gs[1]._sock.key_opts[-1], (1, 4, 8, new))
            for i in range(6):
                fs = [g.all_reduce_async(bytearray(4), "sum", "int32") for g in gs]
                for f in fs:
                    f.result(10)
            inf = gs[0].info()     # next_seq 8: the new key is the one in use
            self.assertEqual((inf["next_seq"], inf["key_epoch"], inf["key_next_epoch"],
                              inf["key_fingerprint"]), (8, 4, 0, gsync.key_fingerprint(new)))
        finally:
            for g in gs:
                g.close(wait=False)

    def test_rotate_refused(self):
        """rotate_key: an unkeyed group, another mode, an old epoch, a past start_seq are refused"""
        fab, gs = fakekernel.groups(2)
        try:
            with self.assertRaises(gsync.GsyncError) as cm:
                gs[0].rotate_key(SEQ32)
            self.assertEqual(cm.exception.errno, errno.EISCONN)
        finally:
            for g in gs:
                g.close(wait=False)
        fab, gs = keyed_groups(2, SEQ32)
        try:
            g = gs[0]
            with self.assertRaisesRegex(ValueError, "mode 'auth'.*'encrypt'"):
                g.rotate_key(gsync.Key(SEQ32, "auth", 2))
            with self.assertRaisesRegex(ValueError, "not above"):
                g.rotate_key(gsync.Key(SEQ32, "encrypt", 1))
            with self.assertRaisesRegex(ValueError, "already submitted"):
                g.rotate_key(SEQ32, start_seq=0)
            with self.assertRaises(TypeError):
                g.rotate_key(SEQ32, start_seq="9")
            g._sock.fail_key = errno.ERANGE
            with self.assertRaisesRegex(gsync.GsyncError, "already submitted") as cm:
                g.rotate_key(SEQ32, start_seq=50)
            self.assertEqual(cm.exception.errno, errno.ERANGE)
            self.assertEqual(len(g._sock.key_opts), 2)   # only the refused one reached it
        finally:
            for g in gs:
                g.close(wait=False)

    def test_from_env(self):
        """env: GSYNC_KEY_FILE (and GSYNC_KEY_MODE) key Group.from_env's group"""
        base = {"GSYNC_RANK": "0", "GSYNC_MEMBERS": ",".join(fakekernel.MEMBERS[:2]),
                "GSYNC_MCAST": "unicast"}
        self.assertEqual(from_env(dict(base, GSYNC_KEY_FILE=self.keyfile))["key"], self.keyfile)
        kw = from_env(dict(base, GSYNC_KEY_FILE=self.keyfile, GSYNC_KEY_MODE="auth"))
        self.assertEqual(kw["key"], gsync.Key(SEQ32, "auth", 1))
        self.assertNotIn("key", from_env(base))
        with self.assertRaisesRegex(ValueError, "GSYNC_KEY_MODE"):
            from_env(dict(base, GSYNC_KEY_FILE=self.keyfile, GSYNC_KEY_MODE="none"))
        with self.assertRaisesRegex(ValueError, "GSYNC_KEY_FILE"):
            from_env(dict(base, GSYNC_KEY_MODE="auth"))
        fab = fakekernel.Fabric(2)
        g = gsync.Group.from_env(dict(base, GSYNC_KEY_FILE=self.keyfile), sock=fab.sock())
        try:
            self.assertEqual(g.info()["key_fingerprint"], 0x5608c0e6269b66f4)
        finally:
            g.close()


class Info(unittest.TestCase):
    def test_key_columns(self):
        """python -m gsync info: each socket's key mode, epoch and fingerprint, never a key"""
        cols = ("id state group rank nranks next_seq inflight ops_completed ops_failed timeouts "
                "key_mode key_epoch key_next_epoch key_fingerprint").split()
        rows = [dict(zip(cols, r.split())) for r in (
            "1 joined 0x2a 0 3 5 0 4 0 0 encrypt 3 4 5608c0e6269b66f4",
            "2 joined 0x2b 1 3 5 0 4 0 0 none 0 0 0000000000000000",
            "3 joined 0x2c 1 3 5 0 4 0 0 auth 1 0 09b3516f8cfa9e74")]
        import io
        from contextlib import redirect_stdout
        out = io.StringIO()
        with redirect_stdout(out):
            _print_text({"version": "x", "module_loaded": True, "family": 25, "netns": "n",
                         "sockets": rows})
        lines = out.getvalue().splitlines()
        self.assertTrue(lines[4].endswith(" key encrypt epoch 3 (next 4) fingerprint "
                                          "5608c0e6269b66f4"), lines[4])
        self.assertTrue(lines[5].endswith(" key none"), lines[5])
        self.assertTrue(lines[6].endswith(" key auth epoch 1 fingerprint 09b3516f8cfa9e74"))
        old = [{k: v for k, v in r.items() if not k.startswith("key_")} for r in rows]
        out = io.StringIO()
        with redirect_stdout(out):
            _print_text({"version": "x", "module_loaded": True, "family": 25, "netns": "n",
                         "sockets": old})
        self.assertNotIn(" key ", out.getvalue())


if __name__ == "__main__":
    unittest.main()
