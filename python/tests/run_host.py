#!/usr/bin/env python3
"""Host unit tests of the gsync Python package (no kernel module needed):
runs every python/tests/test_*.py with unittest and prints one TAP line
per test ("ok - python: ..."), skips as "# SKIP reason". Exit 1 if any
failed. Run with Debian's /usr/bin/python3 so numpy and torch are found.

    python/tests/run_host.py [-v] [PATTERN]
"""
import faulthandler
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)


class TapResult(unittest.TestResult):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.lines = 0
        self.failed = 0

    def _name(self, test):
        parts = getattr(test, "test_case", test).id().split(".")
        mod = parts[0][5:] if parts[0].startswith("test_") else parts[0]
        case = getattr(test, "test_case", test)
        desc = case.shortDescription() or parts[-1][5:].replace("_", " ")
        if case is not test:   # a subTest: name its parameters
            desc += " " + test._subDescription()
        return f"python: {mod}: {desc}"

    def addSuccess(self, test):
        print(f"ok - {self._name(test)}", flush=True)

    def addFailure(self, test, err):
        self._bad(test, err)

    def addError(self, test, err):
        self._bad(test, err)

    def _bad(self, test, err):
        self.failed += 1
        print(f"not ok - {self._name(test)}", flush=True)
        for ln in self._exc_info_to_string(err, test).rstrip().splitlines():
            print("# " + ln)

    def addSubTest(self, test, subtest, err):
        # A failing subTest fails the test: unittest then reports neither
        # success nor failure for the test itself.
        if err is not None:
            self._bad(subtest, err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        print(f"ok - {self._name(test)} # SKIP {reason}", flush=True)

    def addExpectedFailure(self, test, err):
        self._bad(test, err)

    def addUnexpectedSuccess(self, test):
        self.failed += 1
        print(f"not ok - {self._name(test)} (unexpected success)")


def main():
    # A crash in native code (torch, pybind11) prints every thread's
    # Python stack to stderr, which tests/check keeps in the host log.
    faulthandler.enable()
    pattern = sys.argv[1] if len(sys.argv) > 1 else "test_*.py"
    if "*" not in pattern and not pattern.endswith(".py"):
        pattern = f"test_{pattern}*.py"
    suite = unittest.defaultTestLoader.discover(HERE, pattern=pattern, top_level_dir=HERE)
    res = TapResult()
    t0 = time.monotonic()
    suite.run(res)
    print(f"# python host tests: {res.testsRun} run, {res.failed} failed, "
          f"{len(res.skipped)} skipped in {time.monotonic() - t0:.1f}s")
    if res.testsRun == 0:
        print("not ok - python: no tests found")
        return 1
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
