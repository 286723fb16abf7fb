#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Writes roce-rc.pcap, the fixture of tests/unit/test_capture.c: a few RoCE
# v2 RC exchanges between 10.0.0.1 (client) and 10.0.0.2 with known wire
# RTTs, PSNs that wrap, a coalesced ACK, a retransmission, a NAK, traffic
# the other way and packets that are not RC. Times are in ns.
import struct
import sys

CLIENT, SERVER = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])


def bth(op, dqpn, psn, pad=0):
    return struct.pack(">BBHI I", op, pad << 4, 0xffff, dqpn & 0xffffff, psn & 0xffffff)


def frame(src, dst, payload, dport=4791):
    udp = struct.pack(">HHHH", 49152, dport, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0, src, dst)
    eth = b"\x52\x54\x00\x00\x00\x02" + b"\x52\x54\x00\x00\x00\x01" + b"\x08\x00"
    return eth + ip + udp


def req(t, op, psn, nbytes, src=CLIENT, dst=SERVER, dqpn=0x12):
    return t, frame(src, dst, bth(op, dqpn, psn) + bytes(nbytes) + bytes(4))


def ack(t, psn, syndrome=0x1f, src=SERVER, dst=CLIENT, dqpn=0x34):
    return t, frame(src, dst, bth(0x11, dqpn, psn) + struct.pack(">I", syndrome << 24 | 1) + bytes(4))


pkts = [
    req(1000, 0x04, 0xfffffe, 64), ack(6000, 0xfffffe),              # 5000
    req(10000, 0x00, 0xffffff, 1024), req(10500, 0x01, 0, 1024),      # 3-packet message,
    req(11000, 0x02, 1, 512), ack(20000, 1),                          # PSN wraps: 10000
    req(30000, 0x04, 2, 64), req(31000, 0x04, 3, 64),                 # one coalesced ACK:
    ack(32500, 1),                                                    # (duplicate: covers nothing)
    req(32000, 0x04, 0x500, 64, SERVER, CLIENT, 0x34),                # the other way:
    ack(33000, 0x500, 0x1f, CLIENT, SERVER, 0x12),                    # 1000
    ack(40000, 3),                                                    # 10000 and 9000
    req(50000, 0x04, 4, 64), ack(52000, 4, 0x60),                     # NAK: no ACK
    req(60000, 0x04, 4, 64), ack(61000, 4),                           # retransmitted: left out
    (62000, frame(CLIENT, SERVER, bth(0x64, 1, 7) + bytes(40))),      # UD (CM): not RC
    (63000, frame(CLIENT, SERVER, b"hello", 53)),                     # not RoCE
]
pkts.sort(key=lambda p: p[0])
out = struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1)
for t, f in pkts:
    out += struct.pack("<IIII", t // 10**9 + 1700000000, t % 10**9, len(f), len(f)) + f
open(sys.argv[1] if len(sys.argv) > 1 else "roce-rc.pcap", "wb").write(out)
