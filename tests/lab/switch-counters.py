#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The switch's counters on request, for a host that cannot run tc on the
switch. switch-counters.py REQUEST DIR PORT, run in the switch VM: whenever
the file REQUEST (written by the host asking) holds a new number N, have
tc show the port's qdiscs (tc -s -j qdisc show dev PORT invisible) and
leave its output in DIR/PORT.N.json. One process that checks REQUEST every
20 ms, and one tc in batch mode that answers each command as it comes: in
an emulated guest a fork takes about 0.15 s and a whole tc run 0.45 s,
seconds on a busy machine. Runs until killed."""
import os
import subprocess
import sys
import time

request, out_dir, port = sys.argv[1], sys.argv[2], sys.argv[3]
tc = subprocess.Popen(["tc", "-s", "-j", "-batch", "-"], stdin=subprocess.PIPE,
                      stdout=subprocess.PIPE)
last = None
seen = None
while True:
    try:
        st = os.stat(request)
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = None
    if stamp and stamp != seen:
        seen = stamp
        try:
            with open(request, encoding="ascii") as f:
                n = f.read().strip()
        except OSError:
            n = ""
        if n.isdigit() and n != last:
            last = n
            tc.stdin.write(f"qdisc show dev {port} invisible\n".encode())
            tc.stdin.flush()
            text = tc.stdout.readline()
            if not text:
                sys.exit("tc ended")
            tmp = os.path.join(out_dir, f"{port}.tmp.json")
            with open(tmp, "wb") as f:
                f.write(text)
            os.rename(tmp, os.path.join(out_dir, f"{port}.{n}.json"))
    time.sleep(0.02)
