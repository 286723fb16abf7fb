#!/usr/bin/env python3
"""A reference simulator of table arbitration, written apart from src/.

It exists so that `rperf analyze` is held against an implementation that
shares no code with it: this one is read from rperf-analyze(1)'s
SEMANTICS section and written plainly, packet by packet, over a long
window instead of an exact period. The property test (property_test)
runs hundreds of random configurations through both, in every regime
(weights far below, near and far above a packet; limits 0, 1, 10, 255;
packets of 256 B to 4 KiB; with and without a low table; SLs sharing
VLs), and fails when a share differs by more than the window allows.

    tests/arb_reference.py RPERF [CASES] [SEED]
"""
import json
import os
import random
import subprocess
import sys
import tempfile

UNIT = 64
LIMIT_UNIT = 4096
SEMANTICS = [(carry, low, limit0) for limit0 in ("alternate", "bytes")
             for low in ("entry", "packet") for carry in ("yes", "no")]


class Table:
    """One arbitration table: a pointer, the open visit, the deficits."""

    def __init__(self, entries, active, carry, whole_packets, pkt, debts):
        self.entries = [(q, w) for q, w in entries if w and q in active]
        self.carry = carry
        self.whole = whole_packets
        self.pkt = pkt
        self.debt = debts
        self.pos = 0
        self.vl = None
        self.credit = 0

    def can_send(self):
        if self.whole:
            return self.credit >= self.pkt[self.vl]
        return self.credit > 0

    def open(self):
        self.vl, weight = self.entries[self.pos]
        self.pos = (self.pos + 1) % len(self.entries)
        self.credit = weight * UNIT
        if self.carry:
            self.credit += self.debt.get(self.vl, 0)
            self.debt[self.vl] = 0

    def close(self):
        if self.carry:
            self.debt[self.vl] = self.credit
        self.vl = None

    def send(self):
        vl = self.vl
        self.credit -= self.pkt[vl]
        if not self.can_send():
            self.close()
        return vl

    def packet(self):
        """The next packet, opening visits until one may send."""
        while True:
            if self.vl is None:
                self.open()
            if self.can_send():
                return self.send()
            self.close()


def simulate(cfg, sem, active, packets):
    """Bytes per queue over `packets` packets after as many of warm-up."""
    carry, low_turn, limit0 = sem
    debts = {}
    pkt = cfg["pkt"]
    high = Table(cfg["high"], active, carry == "yes", cfg["whole"], pkt, debts)
    low = Table(cfg["low"], active, carry == "yes", cfg["whole"], pkt, debts)
    limit = cfg["limit"]
    limited = bool(high.entries) and bool(low.entries) and limit != 255
    one_packet = low_turn == "packet" or (limit == 0 and limit0 == "alternate")
    got = {}
    turn, since = "high", 0
    n = 0
    while n < 2 * packets:
        if not high.entries:
            vl = low.packet()
        elif turn == "low":
            if one_packet:
                vl = low.packet()
                turn = "high"
            else:
                if low.vl is None:
                    low.open()
                    if not low.can_send():
                        low.close()
                        turn = "high"
                        continue
                vl = low.send()
                if low.vl is None:
                    turn = "high"
        else:
            vl = high.packet()
            if limited:
                since += pkt[vl]
                if since >= limit * LIMIT_UNIT:
                    since = 0
                    turn = "low"
        n += 1
        if n > packets:
            got[vl] = got.get(vl, 0) + pkt[vl]
    return got


def shares_by_sl(cfg, got):
    """Share (%) per SL: a queue's share split between its SLs."""
    total = sum(got.values())
    members = {}
    for sl in range(16):
        members.setdefault(cfg["queue"][sl], []).append(sl)
    out = [0.0] * 16
    for q, sls in members.items():
        for sl in sls:
            out[sl] = 100.0 * got.get(q, 0) / total / len(sls) if total else 0
    return out


def tolerance(cfg, packets):
    """How far a window of `packets` may stray from the long run (points)."""
    min_pkt = min(cfg["pkt"][q] for q in cfg["active"])
    swing = {}
    for q, w in cfg["high"] + cfg["low"]:
        swing[q] = swing.get(q, 0) + w * UNIT
    worst = max(swing.values()) + 2 * max(cfg["pkt"].values())
    return 100.0 * 4 * worst / (packets * min_pkt) + 0.01


def regime(cfg):
    weights = [w for _, w in cfg["high"] + cfg["low"] if w]
    ratio = sum(weights) * UNIT / len(weights) / max(cfg["pkt"].values())
    size = "below" if ratio < 0.5 else "near" if ratio < 2 else "above"
    tables = "high+low" if cfg["low"] and cfg["high"] else "one table"
    return f"{cfg['model']}, weights {size} a packet, limit {cfg['limit']}, {tables}"


def random_config(rng):
    model = rng.choice(["ib-packet"] * 6 + ["ib-fluid", "dtable"])
    pkt_choices = [256, 512, 1024, 2048, 4096]
    scale = rng.choice([0.1, 1, 6])
    n_vls = rng.randint(2, 8)
    pkt_sl = [rng.choice(pkt_choices) for _ in range(16)]
    wmax = max(1, min(255, int(scale * max(pkt_sl[:n_vls]) / UNIT)))

    def table(n, vls):
        return [(rng.choice(vls), rng.randint(max(1, wmax // 3), wmax))
                for _ in range(n)]
    cfg = {"model": model, "limit": rng.choice([0, 1, 10, 255]),
           "sl2vl": list(range(16)), "whole": model == "dtable"}
    if model == "dtable":
        cfg["high"], cfg["low"] = table(rng.randint(2, 64), list(range(n_vls))), []
    else:
        split = rng.randint(1, n_vls)
        vls = list(range(n_vls))
        cfg["high"] = table(rng.randint(1, 64), vls[:split]) if rng.random() < 0.85 else []
        cfg["low"] = table(rng.randint(1, 64), vls[split - 1:]) if rng.random() < 0.85 else []
        if not cfg["high"] and not cfg["low"]:
            cfg["low"] = table(4, vls)
        if rng.random() < 0.3:
            cfg["sl2vl"] = [rng.randrange(n_vls) for _ in range(16)]
            cfg["sl2vl"][15] = 15
    if model != "dtable":
        # one size per VL here; SLs of one VL with different sizes are
        # the loaded arbiter's case
        pkt_sl = [pkt_sl[cfg["sl2vl"][sl]] for sl in range(16)]
    cfg["pkt_sl"] = pkt_sl
    return cfg


def complete(cfg):
    """Queues, per-queue packet sizes and the backlogged set, as rperf sees them."""
    dtable = cfg["model"] == "dtable"
    cfg["queue"] = [sl if dtable else cfg["sl2vl"][sl] for sl in range(16)]
    pkt = {}
    for sl in range(15, -1, -1):
        pkt[cfg["queue"][sl]] = 64 if cfg["model"] == "ib-fluid" else cfg["pkt_sl"][sl]
    cfg["pkt"] = pkt
    cfg["active"] = {q for q in cfg["queue"] if q != 15}
    cfg["queue"] = [q if q != 15 else None for q in cfg["queue"]]


def run_rperf(rperf, cfg, tmp):
    path = os.path.join(tmp, "case.table")
    with open(path, "w") as f:
        for name in ("high", "low"):
            for vl, w in cfg[name]:
                f.write(f"{name},{vl},{w}\n")
    cmd = [rperf, "analyze", "--json=-", "--model", cfg["model"],
           "--limit", str(cfg["limit"]),
           "--sl2vl", ",".join(str(v) for v in cfg["sl2vl"]),
           "--packet-size", ",".join(f"{sl}:{b}" for sl, b in enumerate(cfg["pkt_sl"])),
           path]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def rperf_readings(cfg, doc):
    """(semantics, shares per SL) for each reading rperf reports."""
    if cfg["model"] == "ib-packet":
        return [(tuple(kv.split("=")[1] for kv in s["semantics"].split(",")),
                 s["share_pct"]) for s in doc["per_semantics"]]
    sem = ("yes", "entry", "bytes") if cfg["model"] == "dtable" else ("no", "entry", "bytes")
    return [(sem, [sl["share_pct"] for sl in doc["sls"]])]


def check_case(rperf, rng, tmp, packets, worst):
    cfg = random_config(rng)
    complete(cfg)
    doc = run_rperf(rperf, cfg, tmp)
    readings = rperf_readings(cfg, doc)
    picked = readings[:1] + rng.sample(readings[1:], min(1, len(readings) - 1))
    tol = tolerance(cfg, packets)
    failures = 0
    for sem, theirs in picked:
        ours = shares_by_sl(cfg, simulate(cfg, sem, cfg["active"], packets))
        diff = max(abs(a - b) for a, b in zip(ours, theirs))
        key = regime(cfg)
        w = worst.setdefault(key, [0.0, 0.0, 0])
        w[0], w[1], w[2] = max(w[0], diff), max(w[1], tol), w[2] + 1
        if diff > tol:
            failures += 1
            print(f"FAIL {key} {sem}: differs by {diff:.3f} points (tolerance "
                  f"{tol:.3f})\n  rperf {theirs}\n  reference {ours}\n  {cfg}")
    return failures


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    rperf = sys.argv[1]
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 20240611)
    packets = 12000
    worst, failures = {}, 0
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(cases):
            failures += check_case(rperf, rng, tmp, packets, worst)
    checks = sum(w[2] for w in worst.values())
    print(f"{cases} configurations, {checks} readings checked, {failures} failed")
    for key in sorted(worst):
        d, t, n = worst[key]
        print(f"  {key}: {n} checks, worst difference {d:.4f} points "
              f"(largest tolerance {t:.3f})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
