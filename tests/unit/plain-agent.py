#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""A peer that claims to be an rperf agent but never proves the token: it
listens on HOST:PORT and answers the coordinator's hello with a plain
(unsealed) hello of the control protocol's version (src/wire/ctl.h),
then any later message with a plain error. Prints "listening" on standard
output once it accepts connections; serves until killed."""
import json
import socket
import struct
import sys

MAGIC = 0x52504354  # "RPCT": a plain control frame
VERSION = 6


def send(conn, msg):
    body = json.dumps(msg).encode()
    conn.sendall(struct.pack(">II", MAGIC, len(body)) + body)


def recv(conn):
    f = conn.makefile("rb")
    head = f.read(8)
    if len(head) < 8:
        return None
    _, n = struct.unpack(">II", head)
    return json.loads(f.read(n))


host, port = sys.argv[1], int(sys.argv[2])
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind((host, port))
srv.listen(8)
print("listening", flush=True)
while True:
    conn, _ = srv.accept()
    with conn:
        try:
            while (m := recv(conn)) is not None:
                if m.get("type") == "hello":
                    send(conn, {"type": "hello", "version": VERSION})
                else:
                    send(conn, {"type": "error", "error": "plain"})
        except (OSError, ValueError):
            pass
