#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""A forged side connection: an attach hello (src/rdma/conn.h, version 2)
for rdma_cm flow FLOW at HOST:PORT with a random secret, sent again every
half second while the flow does not exist yet. Prints the status of the
server's answer: -13 (EACCES) when it refused the attach. Says "trying" on
standard error once its first attach is answered."""
import os
import socket
import struct
import sys
import time

host, port, flow = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
status = None
for attempt in range(300):
    with socket.create_connection((host, port), 10) as s:
        s.sendall(struct.pack(">IHHi", 0x52505246, 2, 3, 0) + bytes(36) +
                  struct.pack(">I", flow) + os.urandom(16))
        status = struct.unpack(">i", s.makefile("rb").read(68)[8:12])[0]
    if status != -2:  # ENOENT: no such flow yet
        break
    if attempt == 0:
        print("trying", file=sys.stderr, flush=True)
    time.sleep(0.2)
print(status)
