"""docs/python.md against the code: the nine-island launch recipe is run
(ssh replaced by a recorder) and every rank's environment must make a
valid group; the troubleshooting section's errno hints and the
environment variables it names must be what the package does."""
import errno
import os
import re
import subprocess
import tempfile
import unittest

import gsync
from gsync import _abi
from gsync.config import from_env, make_config

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DOC = os.path.join(REPO, "docs", "python.md")
CONFIG = os.path.join(REPO, "python", "gsync", "config.py")


def doc():
    with open(DOC) as f:
        return f.read()


def recipe():
    m = re.search(r"<!-- gsync-launch -->\n```bash\n(.*?)```", doc(), re.S)
    if not m:
        raise AssertionError("docs/python.md: no <!-- gsync-launch --> bash block")
    return m.group(1)


def launch(script):
    """Run the recipe with ssh recording its arguments: {host: [args]} in
    launch order."""
    with tempfile.TemporaryDirectory() as d:
        rec = 'ssh() { printf "%s\\0" "$@" > "$OUT/$(printf %03d $((n++)))"; }\nn=0\n'
        # The launches are background jobs: number them before they fork.
        body = script.replace('ssh "${hosts[r]}"', 'n=$r; ssh "${hosts[r]}"')
        p = subprocess.run(["bash", "-euc", rec + body], env=dict(os.environ, OUT=d),
                           capture_output=True, text=True, timeout=60)
        if p.returncode:
            raise AssertionError(f"the recipe failed: {p.stderr}")
        out = []
        for name in sorted(os.listdir(d)):
            with open(os.path.join(d, name)) as f:
                out.append(f.read().split("\0")[:-1])
        return out


def rank_env(args):
    """The GSYNC_* variables of one launch (ssh HOST env VAR=... cmd)."""
    host, cmd = args[0], args[1:]
    assert cmd[0] == "env", cmd
    env = dict(a.split("=", 1) for a in cmd[1:] if "=" in a)
    return host, env, [a for a in cmd[1:] if "=" not in a]


def env_vars_read():
    """The variables gsync.config.from_env reads."""
    with open(CONFIG) as f:
        src = f.read()
    body = src[src.index("def from_env"):]
    return set(re.findall(r'"(GSYNC_[A-Z_]+)"', body))


class LaunchRecipe(unittest.TestCase):
    def check(self, script, want_pace, unicast=False):
        runs = launch(script)
        self.assertEqual(len(runs), 9)
        hosts = re.search(r"hosts=\(([^)]*)\)", script).group(1).split()
        addrs = re.search(r"addrs=\(([^)]*)\)", script).group(1).split()
        gids = set()
        for r, args in enumerate(runs):
            host, env, cmd = rank_env(args)
            self.assertEqual(host, hosts[r])
            self.assertEqual(cmd, ["python3", "/srv/job/train.py"])
            self.assertLessEqual(set(env), env_vars_read(), "a variable from_env does not read")
            kw = from_env(env)
            self.assertEqual(kw["rank"], r)
            self.assertEqual(kw.get("unicast", False), unicast)
            self.assertEqual(kw["ifname"], "eth0")
            kw["ifname"] = "lo"       # the sites' interface is not on this host
            cfg = make_config(**kw)
            self.assertEqual(cfg.nranks, 9)
            # this rank's own entry is its island's address
            self.assertEqual(cfg.members[r][0], addrs[r])
            self.assertEqual(cfg.pacing_rate, want_pace)
            self.assertEqual(cfg.op_timeout_ms, 60000)
            gids.add(cfg.group_id)
            self.assertEqual(len(cfg.join_blob()), _abi.JOIN.size + 9 * _abi.ADDR.size)
        self.assertEqual(len(gids), 1, "ranks would join different groups")

    def test_nine_islands(self):
        """docs: the nine-island recipe launches ranks 0..8, each a valid group member"""
        self.check(recipe(), 14062500)

    def test_rates_the_doc_states(self):
        """docs: the pacing rates the launch section states are the recipe's arithmetic"""
        text = doc()
        for mbit, pace in ((1000, 14062500), (50, 703125)):
            self.assertIn(str(pace), text)
            self.check(recipe().replace("ingress_mbit=1000", f"ingress_mbit={mbit}"), pace)
        self.check(recipe().replace("mcast=239.1.1.1:7100", "mcast=unicast"), 112500000,
                   unicast=True)


class Troubleshooting(unittest.TestCase):
    def test_env_vars_documented(self):
        """docs: every environment variable from_env reads is documented, in both places"""
        text = doc()
        launch_sec = text[text.index("## Launching on nine islands"):text.index("## Troubleshooting")]
        for v in sorted(env_vars_read()):
            self.assertIn(v, launch_sec)
            self.assertIn(f"`{v}`", text[:text.index("## PyTorch")])

    def test_join_hints(self):
        """docs: the JOIN errors troubleshooting names come back with its hints"""
        class Refusing:
            def __init__(self, err):
                self.err = err

            def setsockopt(self, *a):
                raise OSError(self.err, os.strerror(self.err))

            def close(self):
                pass

        for err, words in ((errno.ENODEV, "no route covers the multicast group"), (errno.EADDRNOTAVAIL, "not configured"),
                           (errno.EADDRINUSE, "in use")):
            with self.assertRaises(gsync.GsyncError) as cm:
                gsync.Group(0, ["10.1.0.10:7000", "10.2.0.10:7000"], mcast="239.1.1.1:7100",
                            sock=Refusing(err))
            self.assertEqual(cm.exception.errno, err)
            self.assertIn(words, str(cm.exception))
        self.assertIn("modprobe gsync", str(gsync.ModuleNotLoaded("/x")))


if __name__ == "__main__":
    unittest.main()
