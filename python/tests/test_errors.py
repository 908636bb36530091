import errno
import pickle
import unittest

import gsync
from gsync.errors import (GsyncAborted, GsyncClosed, GsyncError, GsyncKeyRejected, GsyncMismatch,
                          GsyncTimeout, error_for)


class Errors(unittest.TestCase):
    def test_mapping(self):
        """errors: op statuses map to OSError subclasses with errno and seq"""
        for err, cls, base in ((errno.ETIMEDOUT, GsyncTimeout, TimeoutError),
                               (errno.EPROTO, GsyncMismatch, GsyncError),
                               (errno.ECONNABORTED, GsyncAborted, ConnectionAbortedError),
                               (errno.EKEYREJECTED, GsyncKeyRejected, PermissionError),
                               (errno.EMSGSIZE, GsyncError, OSError)):
            e = error_for(err, seq=17)
            self.assertIs(type(e), cls)
            self.assertIsInstance(e, OSError)
            self.assertIsInstance(e, GsyncError)
            self.assertIsInstance(e, base)
            self.assertEqual((e.errno, e.seq), (err, 17))
            self.assertIn("seq 17", str(e))

    def test_meaning(self):
        """errors: messages explain the all-reduce meaning"""
        self.assertIn("op_timeout_ms", str(error_for(errno.ETIMEDOUT, 1)))
        self.assertIn("disagreed", str(error_for(errno.EPROTO, 1)))
        self.assertIn("key", str(error_for(errno.EKEYREJECTED, 1)))
        self.assertIsNone(error_for(errno.EINVAL).seq)

    def test_pickle(self):
        """errors: survive pickling (multiprocessing) with errno and seq"""
        e = pickle.loads(pickle.dumps(error_for(errno.ETIMEDOUT, 5)))
        self.assertIs(type(e), GsyncTimeout)
        self.assertEqual((e.errno, e.seq), (errno.ETIMEDOUT, 5))

    def test_exports(self):
        """errors: exported from the package; closed is ESHUTDOWN"""
        self.assertIs(gsync.GsyncTimeout, GsyncTimeout)
        self.assertEqual(GsyncClosed(seq=3).errno, errno.ESHUTDOWN)

    def test_module_not_loaded(self):
        """family(): a missing sysfs file is ModuleNotLoaded (ENOENT), malformed is EINVAL"""
        import tempfile, os
        with self.assertRaises(gsync.ModuleNotLoaded) as cm:
            gsync.family("/nonexistent/gsync/family")
        self.assertEqual(cm.exception.errno, errno.ENOENT)
        self.assertIsInstance(cm.exception, FileNotFoundError)
        with tempfile.NamedTemporaryFile("w", delete=False) as f:
            f.write("25\n")
        try:
            self.assertEqual(gsync.family(f.name), 25)
            with open(f.name, "w") as g:
                g.write("x\n")
            with self.assertRaises(GsyncError) as cm:
                gsync.family(f.name)
            self.assertEqual(cm.exception.errno, errno.EINVAL)
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
