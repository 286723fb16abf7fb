#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""A forged connection to an rperf sink, with a random secret (src/rdma/conn.h,
hello version 3). forge-attach.py HOST PORT FLOW: an attach hello (a side
connection) for rdma_cm flow FLOW, sent again every 0.2 s while the flow
does not exist yet. forge-attach.py HOST PORT 0 client: a client hello (a
data connection asking for a QP), sent again every 0.2 s while nothing
listens on PORT yet (a converge sink opens its port at the step's setup),
for up to 5 minutes. Prints the status of the sink's answer: -13 (EACCES)
when it refused. Says "trying" on standard error once its first attempt
is made."""
import os
import socket
import struct
import sys
import time

host, port, flow = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
client = len(sys.argv) > 4 and sys.argv[4] == "client"
if client:
    # kind 1: qpn, psn, lid, mtu 3, sl, tclass, timeout 14, retry 7, pad,
    # max_msg_bytes 4096, gid, flow_id, P_Key and its index (0: not known,
    # not checked), secret
    hello = (struct.pack(">IHHiIIHBBBBBBI", 0x52505246, 3, 1, 0, 0x1234, 0, 0, 3, 0, 0,
                         14, 7, 0, 4096) + bytes(16) + struct.pack(">IHH", 0, 0, 0) +
             os.urandom(16))
else:
    hello = (struct.pack(">IHHi", 0x52505246, 3, 3, 0) + bytes(36) +
             struct.pack(">IHH", flow, 0, 0) + os.urandom(16))
assert len(hello) == 72
status = None
end = time.monotonic() + 300
for attempt in range(100000):
    if attempt == 1:
        print("trying", file=sys.stderr, flush=True)
    try:
        with socket.create_connection((host, port), 10) as s:
            s.sendall(hello)
            status = struct.unpack(">i", s.makefile("rb").read(72)[8:12])[0]
    except ConnectionRefusedError:
        if not client or time.monotonic() > end:
            raise
        time.sleep(0.2)
        continue
    if client or status != -2:  # ENOENT: no such flow yet
        break
    time.sleep(0.2)
print(status)
