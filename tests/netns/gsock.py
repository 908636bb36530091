#!/usr/bin/env python3
"""Small AF_GSYNC helper for the netns tests, using only Python's socket module
(the way training code in Python would).

    gsock.py family                 print the family number in use
    gsock.py hold N                 open N sockets, print "ready", hold them
                                    until SIGTERM or SIGINT
    gsock.py create TYPE PROTO      try socket(AF_GSYNC, TYPE, PROTO); print
                                    "ok" or the errno name
"""
import errno
import signal
import socket
import sys

FAMILY_PATH = "/sys/module/gsync/parameters/family"


def family():
    with open(FAMILY_PATH) as f:
        return int(f.read())


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd = argv[1]
    if cmd == "family":
        print(family())
    elif cmd == "hold":
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
        socks = [socket.socket(family(), socket.SOCK_SEQPACKET)
                 for _ in range(int(argv[2]))]
        print("ready", flush=True)
        signal.sigwait({signal.SIGTERM, signal.SIGINT})
        for s in socks:
            s.close()
    elif cmd == "create":
        try:
            socket.socket(family(), int(argv[2]), int(argv[3])).close()
            print("ok")
        except OSError as e:
            print(errno.errorcode.get(e.errno, str(e.errno)))
    else:
        sys.exit(f"gsock.py: unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)
