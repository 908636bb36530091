"""TAP output shared by the netns test scripts: one "ok"/"not ok" line per
check, and the exit status that says whether any failed."""

failures = 0


def check(desc, cond, diag=None):
    """Print the result of one check; on failure, what was seen instead."""
    global failures
    print(("ok - " if cond else "not ok - ") + desc, flush=True)
    if not cond and diag is not None:
        print(f"# got {diag}", flush=True)
    failures += not cond


def errno_of(fn, *args):
    """The errno fn(*args) raised as OSError, or 0 if it returned."""
    try:
        fn(*args)
    except OSError as e:
        return e.errno
    return 0


def exit_status():
    """The exit status for the script: 1 if any check failed."""
    return 1 if failures else 0
