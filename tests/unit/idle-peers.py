#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Idle peers: opens N TCP connections to HOST:PORT and sends nothing on
them. Prints "open K" (K: how many connected) on standard output once
they are all tried. With a fourth argument WAIT (seconds), then waits up
to WAIT for the other end to close them and prints "closed C" (how many
it closed); otherwise holds them until killed. With --retry S first,
keeps trying while nothing listens on PORT yet, for up to S seconds (a
converge sink opens its data port at a step's setup)."""
import select
import signal
import socket
import sys
import time

retry_end = None
if sys.argv[1] == "--retry":
    retry_end = time.monotonic() + float(sys.argv[2])
    del sys.argv[1:3]
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
held = []
for _ in range(n):
    while True:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(5)
        try:
            s.connect((host, port))
            held.append(s)
            break
        except ConnectionRefusedError:
            s.close()
            if held or retry_end is None or time.monotonic() > retry_end:
                break
            time.sleep(0.05)
        except OSError:
            s.close()
            break
print("open", len(held), flush=True)
if len(sys.argv) < 5:
    signal.sigwait([signal.SIGTERM, signal.SIGINT])
    sys.exit(0)
end = time.monotonic() + float(sys.argv[4])
closed = 0
while held and time.monotonic() < end:
    r, _, _ = select.select(held, [], [], max(0.0, end - time.monotonic()))
    for s in r:
        try:
            data = s.recv(4096)
        except OSError:
            data = b""
        if not data:
            held.remove(s)
            s.close()
            closed += 1
print("closed", closed, flush=True)
