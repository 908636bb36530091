import array
import unittest

from gsync import _abi
from gsync.buffers import as_buffer, byte_view, dtype_code, op_code

try:
    import numpy as np
except ImportError:  # pragma: no cover
    np = None


class Codes(unittest.TestCase):
    def test_dtype_names(self):
        """dtype: names, aliases, numbers, numpy/torch spellings"""
        for names, code in ((("fp32", "float32", "FLOAT32", "f32", 0), 0),
                            (("bf16", "bfloat16", "torch.bfloat16", 1), 1),
                            (("fp16", "float16", "half", "torch.float16", 2), 2),
                            (("int32", "i32", "torch.int32", 3), 3)):
            for n in names:
                self.assertEqual(dtype_code(n), code, n)
        for bad in ("float64", "int64", "uint8", 4, -1, "bf8"):
            with self.assertRaises(ValueError, msg=bad):
                dtype_code(bad)
        with self.assertRaises(TypeError):
            dtype_code(True)

    @unittest.skipIf(np is None, "numpy missing")
    def test_dtype_numpy_objects(self):
        """dtype: numpy dtype objects and scalar types"""
        self.assertEqual(dtype_code(np.dtype("float32")), 0)
        self.assertEqual(dtype_code(np.float16), 2)
        self.assertEqual(dtype_code(np.int32), 3)
        with self.assertRaises(ValueError):
            dtype_code(np.float64)

    def test_ops(self):
        """op: sum/avg(mean)/min/max and 0..3; others refused"""
        self.assertEqual([op_code(x) for x in ("sum", "avg", "mean", "MIN", "max", 0, 3)],
                         [0, 1, 1, 2, 3, 0, 3])
        for bad in ("prod", 4, -1, "", "band"):
            with self.assertRaises(ValueError, msg=bad):
                op_code(bad)
        for bad in (None, 1.0, True):
            with self.assertRaises(TypeError):
                op_code(bad)


class Buffers(unittest.TestCase):
    def test_bytearray_needs_dtype(self):
        """buffer: a bytearray has no element type: dtype= required"""
        with self.assertRaisesRegex(ValueError, "dtype="):
            as_buffer(bytearray(8))
        v, code = as_buffer(bytearray(8), "bf16")
        self.assertEqual((v.nbytes, code, v.format), (8, 1, "B"))

    def test_array_module(self):
        """buffer: array.array('f'/'i') map to fp32/int32; 'd' refused"""
        self.assertEqual(as_buffer(array.array("f", [1, 2]))[1], _abi.DTYPE_FP32)
        self.assertEqual(as_buffer(array.array("i", [1, 2]))[1], _abi.DTYPE_INT32)
        with self.assertRaisesRegex(ValueError, "format 'd'"):
            as_buffer(array.array("d", [1.0]))
        with self.assertRaisesRegex(ValueError, "does not match"):
            as_buffer(array.array("f", [1.0]), "int32")

    def test_readonly_empty_length(self):
        """buffer: read-only, empty, or partial-element buffers are refused"""
        with self.assertRaisesRegex(TypeError, "read-only"):
            as_buffer(b"\0" * 8, "fp32")
        with self.assertRaisesRegex(ValueError, "empty"):
            as_buffer(bytearray(), "fp32")
        with self.assertRaisesRegex(ValueError, "whole number"):
            as_buffer(bytearray(6), "fp32")
        with self.assertRaisesRegex(TypeError, "buffer"):
            as_buffer([1.0, 2.0])

    @unittest.skipIf(np is None, "numpy missing")
    def test_numpy(self):
        """buffer: numpy float32/float16/int32 (any shape) map without copying"""
        for dt, code in (("float32", 0), ("float16", 2), ("int32", 3)):
            a = np.zeros((3, 5), dtype=dt)
            v, c = as_buffer(a)
            self.assertEqual((c, v.nbytes), (code, a.nbytes))
            v[:] = b"\x01" * v.nbytes           # writes land in the array
            self.assertTrue((a.view(np.uint8) == 1).all())
        u = np.zeros(4, dtype=np.uint16)
        with self.assertRaisesRegex(ValueError, "dtype="):
            as_buffer(u)
        self.assertEqual(as_buffer(u, "bf16")[1], 1)
        with self.assertRaisesRegex(ValueError, "4-byte elements, the buffer.s have 2"):
            as_buffer(u, "fp32")

    @unittest.skipIf(np is None, "numpy missing")
    def test_numpy_refused(self):
        """buffer: float64, non-contiguous, big-endian, read-only arrays refused"""
        with self.assertRaisesRegex(ValueError, "not supported"):
            as_buffer(np.zeros(4))
        with self.assertRaisesRegex(ValueError, "contiguous"):
            as_buffer(np.zeros((4, 4), dtype=np.float32)[:, 1])
        with self.assertRaisesRegex(ValueError, "big-endian"):
            as_buffer(np.zeros(4, dtype=">f4"))
        a = np.zeros(4, dtype=np.float32)
        a.flags.writeable = False
        with self.assertRaisesRegex(TypeError, "read-only"):
            as_buffer(a)

    @unittest.skipIf(np is None, "numpy missing")
    def test_byte_view(self):
        """byte_view: any element type, shares memory"""
        a = np.arange(3, dtype=np.int64)
        v = byte_view(a)
        self.assertEqual(v.nbytes, 24)
        v[0] = 9
        self.assertEqual(a[0], 9)


if __name__ == "__main__":
    unittest.main()
