#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""A reference for `rperf analyze`, written apart from src/.

It is written from the documents, not from rperf's man page or code:
the InfiniBand output-port arbiter as the specification describes it
(two VLArb tables of (VL, weight x 64 bytes) entries, entries whose VL
has nothing to send passed over, LimitOfHighPriority x 4096 bytes of
high-table traffic before the low table must get an opportunity, 255 for
none, 0 for one packet), the DTable of Cano-Cano et al. (2024: entries
name SLs, a deficit counter per SL, an accumulated weight that sends
whole packets while it covers one, the deficit set to zero when the SL
goes idle), and Linux sch_ets's dequeue (strict bands first in order,
then deficit round robin over an active list: a band joining the list
gets one quantum, the head sends while its deficit covers its head
packet, else it gets one more quantum and goes to the tail).

Where the documents leave a choice, every choice is computed and
rperf's range must hold them all:
  - a visit's overshoot owed by the VL's next visit, or dropped (carry);
  - a low turn of one packet or of one entry visit (low);
  - at limit 0, one high packet and one low packet, or one high packet
    and a low turn (limit0); a reading whose low turns pass empty at
    limit 0 breaks the specification's alternation: the reference finds
    those itself and holds that rperf leaves exactly those out;
  - one deficit per VL, or one per VL and table (deficit);
  - SLs of one VL with different packet sizes: each SL's own packets in
    turn, all of the VL's smallest size, all of its largest.
Saturated ports are run to an exact period (the state repeats), so the
reference has no window error there and a share must agree within 0.1
points. Under offered loads (constant gaps) the reference runs a window
and states its own bound (the arbiter's state at either end, three
standard errors of eight batches); a share must agree within rperf's
bound plus the reference's. Distances (packets of other queues that
start between the moment a packet could go and its start) must agree
exactly over a period. Under load the arrivals' phases move them, and
shares too (constant gaps can lock the arbiter onto a cycle of the
arrivals that depends on where they start): rperf runs four phase draws
and its bound holds the spread of their shares. The reference's share
is taken with every light SL at phase 0 (one of rperf's draws). For
distances it runs six phase draws (all at 0, rperf's other three, two
random): rperf's mean must lie within the draws' means, each widened
by its window's bound (three standard errors of eight batches' means,
plus two gaps cut at the window's ends, 2 max / n), widened by rperf's
own cut-gap term; under rperf's four draws no distance may exceed
rperf's largest (its window is the longer). How much the random phases
exceed it is printed, not checked: rperf's largest is the worst over
its draws, not over every phase.

Each random case has its own generator (the seed and the case's
number), so --case=N runs case N alone, as the full run would.

    tests/arb_reference.py RPERF [--long] [--seed=N] [--case=N] [--fail-fast]
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile

import arb_blind_check

UNIT = 64
LIMIT_UNIT = 4096
SEM_KEYS = ("carry", "low", "limit0", "deficit")
ALL_SEMANTICS = [dict(zip(SEM_KEYS, (c, l, z, d)))
                 for d in ("vl", "table") for z in ("alternate", "bytes")
                 for l in ("entry", "packet", "continue") for c in ("yes", "no")]


def sem_name(sem):
    name = f"carry={sem['carry']},low={sem['low']},limit0={sem['limit0']}"
    return name + (",deficit=table" if sem["deficit"] == "table" else "")


# ---------------------------------------------------------------------
# The table arbiter
# ---------------------------------------------------------------------

class Port:
    """One output port: its tables, its queues, its readings."""

    def __init__(self, cfg, sem, sizes, loads, link_gbps=100.0):
        self.sem = sem
        self.whole = cfg.get("dtable", False)
        self.carry = sem["carry"] == "yes" or self.whole
        self.sizes = sizes                    # per SL
        self.queue = cfg["queue"]             # per SL, None: dropped
        self.loads = loads                    # per SL: None saturating, 0, or Gb/s
        self.link = link_gbps
        self.tables = []
        for name in ("high", "low"):
            ents = [(q, w) for q, w in cfg.get(name, []) if w and q < 15]
            self.tables.append({"name": name, "ents": ents, "at": 0,
                                "vl": None, "credit": 0, "moved": 0})
        self.limit = cfg["limit"]
        self.deficit = {}
        self.waiting = {sl: 0 for sl in range(16)}
        self.turn_of = {}                     # queue -> SL whose turn is next
        self.phase = "high"
        self.since = 0
        self.low_sent, self.low_from = False, 0
        self.empty_low_turns = 0
        offered = {self.queue[sl] for sl in range(16)
                   if self.queue[sl] is not None and loads[sl] != 0}
        self.members, self.sat_in, self.wait_q = {}, {}, {}
        for sl in range(16):
            q = self.queue[sl]
            if q is None or loads[sl] == 0:
                continue
            self.members.setdefault(q, []).append(sl)
            if loads[sl] is None:
                self.sat_in[q] = self.sat_in.get(q, 0) + 1
        for t in self.tables:
            t["ents"] = [(q, w) for q, w in t["ents"] if q in offered]
            t["queues"] = sorted({q for q, _ in t["ents"]})
        hi, lo = self.tables
        self.limited = bool(hi["ents"]) and bool(lo["ents"]) and self.limit != 255

    # a queue's packets ------------------------------------------------
    def has(self, q):
        return self.sat_in.get(q, 0) > 0 or self.wait_q.get(q, 0) > 0

    def arrive(self, sl):
        q = self.queue[sl]
        self.waiting[sl] += 1
        self.wait_q[q] = self.wait_q.get(q, 0) + 1

    def head(self, q):
        """The SL whose packet the queue sends next: each SL in turn."""
        start = self.turn_of.get(q, 0)
        best = None
        for sl in self.members.get(q, ()):
            if self.loads[sl] is None or self.waiting[sl]:
                k = (sl - start) % 16
                if best is None or k < best[0]:
                    best = (k, sl)
        return best[1] if best else None

    def enough(self, credit, q):
        if self.whole:
            sl = self.head(q)
            return sl is not None and credit >= self.sizes[sl]
        return credit > 0

    def dkey(self, t, q):
        return (t["name"] if self.sem["deficit"] == "table" else "", q)

    # visits -----------------------------------------------------------
    def end_visit(self, t):
        q = t["vl"]
        if self.carry:
            left = t["credit"]
            if left > 0 and not self.has(q):
                left = 0                      # an idle queue keeps no credit
            # added: a visit of q in the other table may owe some too
            key = self.dkey(t, q)
            self.deficit[key] = self.deficit.get(key, 0) + left
            if self.deficit[key] > 0 and not self.has(q):
                self.deficit[key] = 0
        t["vl"] = None
        self.step(t)

    def step(self, t):
        t["at"] = (t["at"] + 1) % len(t["ents"])
        t["moved"] += 1

    def next_from(self, t, most=None):
        """The queue the table serves next; None when it has nothing (or,
        with most, when that many entries looked at find none that can
        send: one pass, the table's size)."""
        if t["vl"] is not None:
            q = t["vl"]
            if self.has(q) and self.enough(t["credit"], q):
                return q
            self.end_visit(t)
        if not any(self.has(q) for q in t["queues"]):
            return None
        for _ in (range(most) if most else iter(int, 1)):
            q, w = t["ents"][t["at"]]
            key = self.dkey(t, q)
            if not self.has(q):
                if self.carry and self.deficit.get(key, 0) > 0:
                    self.deficit[key] = 0
                self.step(t)
                continue
            credit = w * UNIT + (self.deficit.get(key, 0) if self.carry else 0)
            if self.enough(credit, q):
                if self.carry:
                    self.deficit[key] = 0
                t["vl"], t["credit"] = q, credit
                return q
            if self.carry:
                self.deficit[key] = credit
            self.step(t)
        return None

    def charge(self, t, q, size):
        t["credit"] -= size
        nxt = self.head(q)
        need = self.sizes[nxt] if nxt is not None else size
        if (t["credit"] < need) if self.whole else (t["credit"] <= 0):
            self.end_visit(t)

    def pick(self):
        """(queue, table) of the next packet, or None."""
        hi, lo = self.tables
        hi_has = any(self.has(q) for q in hi["queues"])
        lo_has = any(self.has(q) for q in lo["queues"])
        if not hi_has:
            if not lo_has:
                return None
            self.since, self.phase = 0, "high"
            return self.next_from(lo), lo
        if self.limited and self.phase == "low":
            # The low table's opportunity: the table is scanned, as the
            # specification cycles it, for an entry that can send (one
            # whose VL has no packet, or, carried, owes more than the
            # entry's weight, is passed over). A packet turn takes the
            # first that can; an entry turn takes that entry's visit,
            # and passes empty only when a whole pass of the table finds
            # none (so a VL spread over several entries sends from the
            # next of them, as one entry of their total weight would).
            # The visit ends when its credit is spent or its VL empties;
            # so does an entry turn, where a continue turn opens the
            # next entry that can send, within one pass in all.
            one_packet = self.sem["low"] == "packet" or (
                self.limit == 0 and self.sem["limit0"] == "alternate")
            q = None
            if lo_has and one_packet:
                q = self.next_from(lo)
                self.phase = "high"
            elif lo_has and not self.low_sent:
                self.low_from = lo["moved"]
                q = self.next_from(lo, most=len(lo["ents"]))
                self.empty_low_turns += q is None
            elif lo_has:
                q = lo["vl"]
                if not (self.has(q) and self.enough(lo["credit"], q)):
                    self.end_visit(lo)
                    left = len(lo["ents"]) - (lo["moved"] - self.low_from)
                    q = (self.next_from(lo, most=left)
                         if self.sem["low"] == "continue" and left > 0 else None)
            if q is not None:
                return q, lo
            self.phase = "high"
        return self.next_from(hi), hi

    def send(self, q, t):
        """Send the queue's head packet charged to table t; its SL."""
        sl = self.head(q)
        size = self.sizes[sl]
        if self.loads[sl] is not None:
            self.waiting[sl] -= 1
            self.wait_q[q] -= 1
        self.turn_of[q] = (sl + 1) % 16
        self.charge(t, q, size)
        hi, lo = self.tables
        if t is hi and self.limited:
            self.since += size
            if self.since >= self.limit * LIMIT_UNIT:
                self.since, self.phase, self.low_sent = 0, "low", False
        elif t is lo and self.limited and self.phase == "low":
            self.low_sent = True
            if lo["vl"] is None:
                self.phase = "high"
        return sl

    def state(self):
        # what a low turn under way has sent and moved past (nothing else)
        turn = (self.tables[1]["moved"] - self.low_from
                if self.low_sent and self.phase == "low" else -1)
        return (self.phase, self.since, turn,
                tuple((t["at"], t["vl"], t["credit"]) for t in self.tables),
                tuple(sorted(self.deficit.items())),
                tuple(sorted(self.turn_of.items())))


def saturated_period(cfg, sem, sizes, loads, budget):
    """Every SL that sends saturates: run until the state repeats. Returns
    (share % per SL, distances per queue, empty low turns) or None."""
    port = Port(cfg, sem, sizes, loads)
    seen, trace = {}, []
    while len(trace) < budget:
        st = port.state()
        if st in seen:
            period = trace[seen[st]:]
            return period_results(port, period, sizes)
        seen[st] = len(trace)
        turns_before = port.empty_low_turns
        got = port.pick()
        if got is None or got[0] is None:
            return [0.0] * 16, {}, 0
        q, t = got
        sl = port.send(q, t)
        trace.append((q, sl, port.empty_low_turns - turns_before))
    return None


def period_results(port, period, sizes):
    total = sum(sizes[sl] for _, sl, _ in period)
    share = [0.0] * 16
    for _, sl, _ in period:
        share[sl] += 100.0 * sizes[sl] / total
    dist = {}
    n = len(period)
    for q in {q for q, _, _ in period}:
        at = [i for i, (p, _, _) in enumerate(period) if p == q]
        gaps = [(at[(k + 1) % len(at)] - at[k] - 1) % n for k in range(len(at))]
        if len(at) == 1:
            gaps = [n - 1]
        dist[q] = (sum(gaps) / len(gaps), max(gaps), 0.0)
    empty = sum(e for _, _, e in period)
    return share, dist, empty


def loaded_window(cfg, sem, sizes, loads, packets, link=100.0, phase=None):
    """Constant-gap arrivals, each light SL's first at phase[sl] of its
    gap (0 without phase): (share % per SL, distances, bound %). The
    distances of a queue are (mean, max, bound of the mean): the bound
    is three standard errors of the eight batches' means plus what a
    cut gap at either end of the window can move the mean (2 max / n)."""
    port = Port(cfg, sem, sizes, loads, link)
    gap = {sl: sizes[sl] * 8.0 / loads[sl] for sl in range(16)
           if loads[sl] and cfg["queue"][sl] is not None}
    nxt = {sl: (phase or {}).get(sl, 0.0) * gap[sl] for sl in gap}
    now, sent = 0.0, 0
    since_q = {}
    batches = 8
    per = packets // batches
    bytes_b = [[0.0] * 16 for _ in range(batches)]
    ns_b = [0.0] * batches
    dsum, dn, dmax = {}, {}, {}
    dsum_b = [{} for _ in range(batches)]
    dn_b = [{} for _ in range(batches)]
    served = {q for t in port.tables for q, _ in t["ents"]}
    for b in range(-1, batches):
        start = now
        count = 0
        while count < per:
            for sl in gap:
                while nxt[sl] <= now:
                    q = cfg["queue"][sl]
                    if not port.has(q):
                        since_q[q] = sent
                    port.arrive(sl)
                    nxt[sl] += gap[sl]
            got = port.pick()
            if got is None or got[0] is None:
                later = [nxt[sl] for sl in gap if cfg["queue"][sl] in served]
                if not later:
                    return None
                now = min(later)
                continue
            q, t = got
            d = sent - since_q.get(q, 0)
            sl = port.send(q, t)
            since_q[q] = sent + 1
            sent += 1
            count += 1
            now += sizes[sl] * 8.0 / link
            if b >= 0:
                bytes_b[b][sl] += sizes[sl]
                dsum[q] = dsum.get(q, 0) + d
                dn[q] = dn.get(q, 0) + 1
                dmax[q] = max(dmax.get(q, 0), d)
                dsum_b[b][q] = dsum_b[b].get(q, 0) + d
                dn_b[b][q] = dn_b[b].get(q, 0) + 1
        if b >= 0:
            ns_b[b] = now - start
    ns = sum(ns_b)
    share = [100.0 * sum(bb[sl] for bb in bytes_b) * 8 / ns / link for sl in range(16)]
    worst = 0.0
    for sl in range(16):
        xs = [100.0 * bytes_b[b][sl] * 8 / ns_b[b] / link for b in range(batches)]
        m = sum(xs) / batches
        sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (batches - 1))
        worst = max(worst, 3 * sd / math.sqrt(batches))
    state = sum(w * UNIT for t in port.tables for _, w in t["ents"])
    state += sum(2 * sizes[sl] for sl in range(16) if loads[sl] != 0)
    bound = max(worst, 100.0 * state * 8 / ns / link)
    dist = {}
    for q in dn:
        xs = [dsum_b[b][q] / dn_b[b][q] for b in range(batches) if dn_b[b].get(q)]
        m = sum(xs) / len(xs)
        sd = math.sqrt(sum((x - m) ** 2 for x in xs) / max(1, len(xs) - 1))
        err = (3 * sd / math.sqrt(len(xs)) if len(xs) > 1 else dmax[q]) + 2 * dmax[q] / dn[q]
        dist[q] = (dsum[q] / dn[q], dmax[q], err)
    return share, dist, bound


# ---------------------------------------------------------------------
# Linux sch_ets
# ---------------------------------------------------------------------

def ets_window(bands, prio_band, sizes, loads, packets, link=100.0):
    """sch_ets's dequeue fed by constant-gap arrivals per priority: share
    % per band and per priority, and the window's bound. Priorities of a
    band are served one packet each in turn."""
    waiting = [0] * 8
    turn = {}
    active, deficit = [], {}
    gap = {p: sizes[prio_band[p]] * 8.0 / loads[p] for p in range(8) if loads[p]}
    nxt = {p: 0.0 for p in gap}

    def band_has(b):
        return any(prio_band[p] == b and (loads[p] is None or waiting[p]) for p in range(8))

    def dequeue_from(b):
        ps = [p for p in range(8) if prio_band[p] == b and (loads[p] is None or waiting[p])]
        start = turn.get(b, 0)
        p = min(ps, key=lambda x: (x - start) % 8)
        turn[b] = (p + 1) % 8
        if loads[p] is not None:
            waiting[p] -= 1
        return p

    def enqueue_check():
        for b, (strict, q) in enumerate(bands):
            if not strict and band_has(b) and b not in active:
                active.append(b)
                deficit[b] = q

    def dequeue():
        for b, (strict, _) in enumerate(bands):
            if strict and band_has(b):
                return dequeue_from(b)
        while active:
            b = active[0]
            if not band_has(b):
                active.pop(0)
                continue
            size = sizes[b]
            if size <= deficit[b]:
                deficit[b] -= size
                p = dequeue_from(b)
                if not band_has(b):
                    active.pop(0)
                return p
            deficit[b] += bands[b][1]
            active.append(active.pop(0))
        return None

    now = 0.0
    batches = 8
    per = packets // batches
    got_b = [[0.0] * len(bands) for _ in range(batches)]
    prio_bytes = [0.0] * 8
    ns_b = [0.0] * batches
    for b in range(-1, batches):
        start, count = now, 0
        while count < per:
            for p in gap:
                while nxt[p] <= now:
                    waiting[p] += 1
                    nxt[p] += gap[p]
            enqueue_check()
            p = dequeue()
            if p is None:
                if not nxt:
                    return None
                now = min(nxt.values())
                continue
            size = sizes[prio_band[p]]
            now += size * 8.0 / link
            count += 1
            if b >= 0:
                got_b[b][prio_band[p]] += size
                prio_bytes[p] += size
        if b >= 0:
            ns_b[b] = now - start
    ns = sum(ns_b)
    share = [100.0 * sum(g[k] for g in got_b) * 8 / ns / link for k in range(len(bands))]
    prio_share = [100.0 * x * 8 / ns / link for x in prio_bytes]
    worst = 0.0
    for k in range(len(bands)):
        xs = [100.0 * got_b[b][k] * 8 / ns_b[b] / link for b in range(batches)]
        m = sum(xs) / batches
        sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (batches - 1))
        worst = max(worst, 3 * sd / math.sqrt(batches))
    state = sum(q + 2 * sizes[k] for k, (_, q) in enumerate(bands))
    return share, prio_share, max(worst, 100.0 * state * 8 / ns / link)


# ---------------------------------------------------------------------
# Random ports, rperf, the checks
# ---------------------------------------------------------------------

def random_ib(rng, loaded):
    dtable = rng.random() < 0.2
    n_vls = rng.randint(2, 5)
    sizes = [rng.choice([256, 512, 1024, 2048, 4096]) for _ in range(16)]
    scale = rng.choice([0.1, 0.5, 1, 3])
    wmax = max(1, min(255, int(scale * 4096 / UNIT)))

    def table(n, vls):
        return [(rng.choice(vls), rng.randint(max(1, wmax // 3), wmax)) for _ in range(n)]
    cfg = {"dtable": dtable, "limit": rng.choice([0, 1, 2, 4, 10, 255])}
    sl2vl = list(range(16))
    if dtable:
        cfg["high"], cfg["low"] = table(rng.randint(2, 12), list(range(n_vls))), []
    else:
        split = rng.randint(1, n_vls)
        vls = list(range(n_vls))
        cfg["high"] = table(rng.randint(1, 10), vls[:split]) if rng.random() < 0.9 else []
        cfg["low"] = table(rng.randint(1, 10), vls[split - 1:]) if rng.random() < 0.9 else []
        if not cfg["high"] and not cfg["low"]:
            cfg["low"] = table(3, vls)
        if rng.random() < 0.3:
            sl2vl = [rng.randrange(n_vls) for _ in range(15)] + [15]
    cfg["sl2vl"] = sl2vl
    cfg["queue"] = [(sl if sl != 15 else None) if dtable else
                    (sl2vl[sl] if sl2vl[sl] != 15 else None) for sl in range(16)]
    senders = rng.sample(range(n_vls + 2), rng.randint(2, min(6, n_vls + 2)))
    loads = [0] * 16
    for sl in senders:
        loads[sl] = None
    if loaded:
        light = rng.sample(senders, rng.randint(1, max(1, len(senders) - 1)))
        for sl in light:
            loads[sl] = round(rng.uniform(2, 45), 1)
    if not dtable and rng.random() < 0.7:
        # one size per VL most of the time; mixed VLs are their own case
        sizes = [sizes[cfg["queue"][sl]] if cfg["queue"][sl] is not None else 4096
                 for sl in range(16)]
    return cfg, sizes, loads


def run_rperf(rperf, tmp, cfg, sizes, loads, extra=()):
    path = os.path.join(tmp, "port.table")
    with open(path, "w") as f:
        for name in ("high", "low"):
            for vl, w in cfg.get(name, []):
                f.write(f"{name},{vl},{w}\n")
    load = ",".join(f"{sl}:{'sat' if l is None else l}" for sl, l in enumerate(loads) if l != 0)
    cmd = [rperf, "analyze", "--json=-", "--model",
           "dtable" if cfg.get("dtable") else "ib-packet",
           "--limit", str(cfg["limit"]),
           "--sl2vl", ",".join(str(v) for v in cfg["sl2vl"]),
           "--packet-size", ",".join(f"{sl}:{b}" for sl, b in enumerate(sizes)),
           "--load", load, *extra, path]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


class Checks:
    def __init__(self):
        self.n, self.failed, self.kinds, self.worst = 0, 0, {}, {}
        self.notes, self.counts = {}, {}

    fail_fast = False

    def note(self, kind, value):
        """A figure reported, not checked."""
        self.notes[kind] = max(self.notes.get(kind, value), value)

    def tally(self, kind):
        """A count reported, not checked."""
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def check(self, kind, ok, diff, msg):
        self.n += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        self.worst[kind] = max(self.worst.get(kind, 0.0), diff)
        if not ok:
            self.failed += 1
            print(f"FAIL {kind}: {msg}")
            if self.fail_fast:
                sys.exit(1)


def size_readings(cfg, sizes, loads):
    """The packet-size choices for SLs of one VL: own, all smallest, all largest."""
    out = [("own", sizes)]
    lo, hi = {}, {}
    for sl in range(16):
        q = cfg["queue"][sl]
        if q is None or loads[sl] == 0:
            continue
        lo[q] = min(lo.get(q, sizes[sl]), sizes[sl])
        hi[q] = max(hi.get(q, sizes[sl]), sizes[sl])
    if any(lo[q] != hi[q] for q in lo):
        for name, pick in (("smallest", lo), ("largest", hi)):
            out.append((name, [pick.get(cfg["queue"][sl], sizes[sl])
                               if cfg["queue"][sl] is not None else sizes[sl]
                               for sl in range(16)]))
    return out


def blind_checks(doc, cfg, sizes, loads, checks, long_mode):
    """A loaded port against the blind reference (tests/arb_blind_check.py)."""
    arb_blind_check.check_bound_floor(doc, cfg, sizes, loads, checks, "ib loaded")
    if arb_blind_check.check_blind(doc, cfg, sizes, loads, checks, "ib loaded",
                                   40000 if long_mode else 8000):
        checks.tally("loaded ports against the blind reference, every reading it defines")


def check_blind_only(rperf, tmp, rng, checks, long_mode):
    """A random loaded InfiniBand port against the blind reference alone."""
    cfg = {"dtable": True}
    while cfg.get("dtable"):
        cfg, sizes, loads = random_ib(rng, True)
    doc = run_rperf(rperf, tmp, cfg, sizes, loads)
    blind_checks(doc, cfg, sizes, loads, checks, long_mode)


def blind_fixed_cases():
    """Two ports the readings disagree on: mixed weights and sizes (the
    low turn's continuation moves SL3 from 22 to 35 %), and a low table
    whose light VL2 empties between entries that cannot send (SL3 8 % to
    48 % over the readings)."""
    ident = {"sl2vl": list(range(16)), "queue": list(range(15)) + [None]}
    mixed = dict(ident, limit=1, high=[(0, 40), (1, 100), (2, 20)], low=[(3, 50), (4, 10)])
    sizes = [2048, 4096, 512, 1024, 256] + [4096] * 11
    loads = [None, None, 8.0, None, 2.0] + [0] * 11
    light = dict(ident, limit=1, high=[(0, 64), (1, 64)], low=[(2, 8), (3, 8), (2, 8)])
    return [(mixed, sizes, loads),
            (light, [4096, 4096, 512, 4096] + [4096] * 12, [None, None, 4.0, None] + [0] * 12)]


def check_ib(rperf, tmp, rng, checks, loaded, long_mode, fixed=None):
    cfg, sizes, loads = fixed or random_ib(rng, loaded)
    doc = run_rperf(rperf, tmp, cfg, sizes, loads)
    dtable = cfg.get("dtable", False)
    theirs = {s["semantics"]: s["share_pct"] for s in doc["per_semantics"]}
    if dtable:
        theirs = {"dtable": [s["share_pct"] for s in doc["sls"]]}
    lo = [s.get("share_min_pct", s["share_pct"]) for s in doc["sls"]]
    hi = [s.get("share_max_pct", s["share_pct"]) for s in doc["sls"]]
    bound = doc["bound_pct"]
    sems = [dict(zip(SEM_KEYS, ("yes", "entry", "alternate", "vl")))] if dtable else ALL_SEMANTICS
    if not long_mode and not dtable:
        sems = [sems[0]] + rng.sample(sems[1:], 2)
    label = ("dtable" if dtable else "ib") + (" loaded" if loaded else " saturated")
    if loaded and not dtable:
        blind_checks(doc, cfg, sizes, loads, checks, long_mode)
    for sem in sems:
        # rperf takes the size readings under the semantics it shows
        for sname, sz in size_readings(cfg, sizes, loads)[:1 if sem is not sems[0] else 3]:
            if loaded:
                got = loaded_window(cfg, sem, sz, loads, 20000 if not long_mode else 120000)
                if got is None:
                    continue
                ours, dist, ours_bound = got
                exact = False
            else:
                got = saturated_period(cfg, sem, sz, loads, 60000)
                if got is None:
                    continue
                ours, dist, empty = got
                ours_bound = 0.0
                exact = True
                if not dtable and cfg["limit"] == 0 and sname == "own":
                    left_out = sem_name(sem) not in theirs
                    checks.check("limit 0: the readings left out are those whose low "
                                 "turns pass empty", left_out == (empty > 0), 0.0,
                                 f"{sem_name(sem)}: {empty} empty low turns a period, "
                                 f"left out by rperf: {left_out} {cfg} {sizes} {loads}")
                    if empty:
                        continue
            tol = (0.1 if exact and doc["exact"] else 0.0) + bound + ours_bound + 0.01
            for sl in range(16):
                if loads[sl] == 0 or cfg["queue"][sl] is None:
                    continue
                out = max(lo[sl] - ours[sl], ours[sl] - hi[sl], 0)
                checks.check(f"{label}: share within range ({sname} size)", out <= tol, out,
                             f"SL{sl} {sem_name(sem)}: reference {ours[sl]:.3f} outside "
                             f"{lo[sl]:.3f}-{hi[sl]:.3f} (tolerance {tol:.3f}) {cfg} {sizes} {loads}")
            key = "dtable" if dtable else sem_name(sem)
            if sname != "own" or key not in theirs:
                continue
            diff = max(abs(a - b) for a, b in zip(ours, theirs[key]))
            checks.check(f"{label}: share of the reading", diff <= tol, diff,
                         f"{key}: differs by {diff:.3f} (tolerance {tol:.3f})\n"
                         f"  rperf {[round(x, 2) for x in theirs[key]]}\n"
                         f"  reference {[round(x, 2) for x in ours]}\n  {cfg} {sizes} {loads}")
            if key == doc.get("semantics", key) or dtable:
                dists = [dist]
                if loaded:
                    # the arrivals' phases move distances: rperf's draws
                    # (the first, dist, all at 0, is its last), then two
                    # random ones
                    for k in range(RPERF_PHASE_DRAWS + 1):
                        ph = (rperf_phases(k) if k < RPERF_PHASE_DRAWS - 1 else
                              {sl: rng.random() for sl in range(16)})
                        # no longer than rperf's own window: the largest
                        # distance it states is of that window
                        more = loaded_window(cfg, sem, sz, loads,
                                             min(20000 if not long_mode else 120000,
                                                 doc["window_packets"]), phase=ph)
                        if more:
                            dists.append(more[1])
                check_distances(doc, dists, exact and doc["exact"], checks, label, cfg, sizes)


# rperf-analyze(1): constant gaps are run in four phase draws; in draw k
# a light SL's first packet arrives 0.618034 (SL + 1) ((k + 1) mod 4)
# (mod 1) of its gap after the start: draw 0 is the stated one, the
# last has every light SL in step (phase 0)
RPERF_PHASE_DRAWS = 4


def rperf_phases(k):
    m = (k + 1) % RPERF_PHASE_DRAWS
    return {sl: math.fmod(0.618034 * (sl + 1) * m, 1.0) for sl in range(16)}


def rperf_queue_packets(doc, cfg, sizes, q):
    """Packets of queue q in rperf's window (its JSON's window_packets:
    rperf-analyze(1), TIME), from its shares."""
    pk = [doc["sls"][sl]["share_pct"] / sizes[sl] for sl in range(16)]
    mine = sum(pk[sl] for sl in range(16) if cfg["queue"][sl] == q)
    return doc["window_packets"] * mine / sum(pk) if sum(pk) else 0


def check_distances(doc, dists, exact, checks, label, cfg, sizes):
    """Over an exact period the distances agree exactly. Under load a
    window's mean differs from the long run's by at most its bound (three
    standard errors of eight batches' means, plus two cut gaps of the
    largest distance over the queue's packets), and the arrivals' phases
    move it: rperf's mean must lie within the reference's means over its
    phase draws, each widened by its bound, widened again by rperf's own
    cut-gap term. The largest is the worst over rperf's phase draws
    (dists[:RPERF_PHASE_DRAWS] are those draws): under none of them may
    the reference, in its shorter window, see a larger one; random
    phases may, and how much is reported, not checked."""
    for v in doc["vls"]:
        q = v["vl"]
        if any(q not in d for d in dists) or v["mean_distance"] is None:
            continue
        if exact:
            mean, mx = dists[0][q][:2]
            diff = max(abs(mean - v["mean_distance"]), abs(mx - v["max_seen_distance"]))
            checks.check(f"{label}: distances", diff <= 0.01, diff,
                         f"VL{q}: reference mean {mean:.2f} max {mx} against rperf "
                         f"{v['mean_distance']:.2f} {v['max_seen_distance']} {cfg}")
            continue
        n = rperf_queue_packets(doc, cfg, sizes, q)
        # two cut gaps; a backlogged window cut by rperf's budget also
        # starts and ends inside a period: two more
        cut = 4 if not doc["exact"] and doc["period_packets"] else 2
        own = cut * v["max_seen_distance"] / n if n else float("inf")
        lo = min(d[q][0] - d[q][2] for d in dists) - own
        hi = max(d[q][0] + d[q][2] for d in dists) + own
        m = v["mean_distance"]
        out = max(lo - m, m - hi, 0)
        checks.check(f"{label}: mean distance within the bound", out == 0,
                     max(abs(m - d[q][0]) for d in dists),
                     f"VL{q}: rperf mean {m:.3f} outside the reference's {lo:.3f}-{hi:.3f} "
                     f"(draws {[round(d[q][0], 3) for d in dists]}) {cfg} {sizes}")
        if len(dists) < 2:
            continue
        mx = max(d[q][1] for d in dists[:RPERF_PHASE_DRAWS])
        checks.check(f"{label}: rperf's phase draws: no distance beyond rperf's largest",
                     mx <= v["max_seen_distance"], max(0, mx - v["max_seen_distance"]),
                     f"VL{q}: the reference saw {mx} under rperf's phase draws, rperf's "
                     f"largest is {v['max_seen_distance']} {cfg} {sizes}")
        # random phases may see more: rperf's largest is over its draws
        checks.note("largest distance of a random phase over rperf's",
                    max(d[q][1] for d in dists) - v["max_seen_distance"])


def random_ets(rng):
    """A random ETS port: (bands, priority -> band, size per band, loads)."""
    n = rng.randint(2, 5)
    n_strict = rng.randint(0, min(2, n - 2))
    bands = [(True, 0) if b < n_strict else (False, rng.choice([500, 1000, 1500, 3000, 4000, 9000]))
             for b in range(n)]
    prio_band = [rng.randrange(n) for _ in range(8)]
    sizes = [rng.choice([256, 1024, 1500, 4096]) for _ in range(n)]
    loads = [0] * 8
    drr = [b for b in range(n) if not bands[b][0]]
    # two DRR bands with a saturating priority each
    full = rng.sample(drr, min(2, len(drr)))
    for b in full:
        loads[b] = None
        prio_band[b] = b
    # a light priority: alone in a DRR band, or beside a saturating one,
    # asking less or more than its share (ETS's water-filling by band,
    # then by priority, has to get both right)
    light = 7
    alone = [b for b in drr if b not in full]
    prio_band[light] = rng.choice(alone if alone and rng.random() < 0.5 else drr)
    loads[light] = round(rng.uniform(1, 20 if rng.random() < 0.5 else 70), 1)
    if n_strict and rng.random() < 0.6:
        prio_band[6] = 0
        loads[6] = round(rng.uniform(2, 25), 1)     # a strict band never saturates
    return bands, prio_band, sizes, loads


def ets_case():
    """Two DRR bands of one quantum; band 0's light priority asks 40 Gb/s
    of its band's 50 beside a saturating one: it gets half the band, 25."""
    return [(False, 1500), (False, 1500)], [0, 1, 0, 0, 0, 0, 0, 0], [1500, 1500], \
        [None, None, 0, 0, 0, 0, 0, 40.0]


def check_ets(rperf, tmp, rng, checks, long_mode, fixed=None):
    bands, prio_band, sizes, loads = fixed or random_ets(rng)
    n = len(bands)
    path = os.path.join(tmp, "port.ets")
    with open(path, "w") as f:
        for b, (strict, q) in enumerate(bands):
            f.write(f"band {b} strict\n" if strict else f"band {b} drr {q}\n")
        for p in range(8):
            f.write(f"prio {p} {prio_band[p]}\n")
        f.write(f"default {n - 1}\n")
    load = ",".join(f"{p}:{'sat' if l is None else l}" for p, l in enumerate(loads) if l != 0)
    doc = json.loads(subprocess.run([rperf, "analyze", "--json=-", "--load", load, path],
                                    capture_output=True, text=True, check=True).stdout)
    got = ets_window(bands, prio_band, sizes, loads, 20000 if not long_mode else 150000)
    if got is None:
        return
    ours, ours_prio, bound = got
    tol = bound + 0.05
    for what, rows, key, want in (("priority", doc["sls"], "sl", ours_prio),
                                  ("band", doc["bands"], "band", ours)):
        for row in rows:
            i = row[key]
            diff = abs(row["share_pct"] - want[i])
            checks.check(f"ets loaded (sch_ets dequeue): {what} share", diff <= tol, diff,
                         f"{what} {i}: rperf {row['share_pct']:.3f} sch_ets {want[i]:.3f} "
                         f"(tolerance {tol:.3f}) {bands} {prio_band} {sizes} {loads}")


ISSUE_CASES = [
    # the examples of the analysis under partial load: (cfg, sizes, loads, SL, share %)
    ({"limit": 4, "high": [(0, 64), (1, 192)], "low": [(2, 64)]}, {1: 40.0}, [0, 1, 2], 2, 20.0),
    ({"limit": 1, "high": [(0, 64), (1, 64)], "low": [(2, 64)]}, {1: 10.0}, [0, 1, 2], 0, 40.0),
    ({"limit": 1, "high": [(0, 64), (1, 64)], "low": [(2, 64)]}, {1: 10.0}, [0, 1, 2], 2, 50.0),
]


def config_a():
    high = []
    w0, w1, w2 = [8] * 24 + [9] * 8, [10] * 14 + [9] * 2, [7] * 10 + [6] * 6
    for i in range(16):
        high += [(0, w0[2 * i]), (1 if i % 2 == 0 else 2, (w1 if i % 2 == 0 else w2)[i // 2]),
                 (0, w0[2 * i + 1]), (2 if i % 2 == 0 else 1, (w2 if i % 2 == 0 else w1)[i // 2])]
    return {"limit": 1, "high": high, "low": [(3, 6)]}


def issue_examples(rperf, tmp, checks):
    """The three examples, each against the reference's own arbiter too."""
    cases = [(c, l, s, sl, want) for c, l, s, sl, want in ISSUE_CASES]
    cases.append((config_a(), {1: 20.0}, [0, 1, 2, 3], 3, 100 * 6 / 70))
    for cfg, light, senders, sl, want in cases:
        cfg = dict(cfg, sl2vl=list(range(16)), queue=list(range(15)) + [None])
        loads = [0] * 16
        for s in senders:
            loads[s] = light.get(s)
        doc = run_rperf(rperf, tmp, cfg, [4096] * 16, loads)
        got = doc["sls"][sl]["share_pct"]
        diff = abs(got - want)
        checks.check("issue examples", diff <= doc["bound_pct"] + 0.01, diff,
                     f"SL{sl}: rperf {got:.3f} against {want:.3f}")
    cfg = {"limit": 0, "high": [(0, 16)], "low": [(1, 64)], "sl2vl": [0, 1, 0] + list(range(3, 16)),
           "queue": [0, 1, 0] + list(range(3, 15)) + [None]}
    sizes = [4096] * 16
    sizes[2] = 256
    loads = [0] * 16
    loads[1] = loads[2] = None
    doc = run_rperf(rperf, tmp, cfg, sizes, loads)
    want = 100 * 256 / (256 + 4096)
    diff = abs(doc["sls"][2]["share_pct"] - want)
    checks.check("issue examples", diff <= 0.01, diff,
                 f"SL2 of a shared VL: rperf {doc['sls'][2]['share_pct']:.3f} against {want:.3f}")


def limit0_cases():
    """Fixed saturated ports at limit 0, every reading computed: OpenSM's
    defaults (fourteen low VLs of 256 bytes, 4096-byte packets), whose
    entry turns read as bytes pass empty, and one low VL over two
    entries of half a packet, whose turns never do; and a VL in both
    tables whose SLs send 2048 and 512 bytes: its turns pass empty when
    all its packets are of the largest size, not with each SL's own."""
    ident = list(range(15)) + [None]
    osm = {"limit": 0, "high": [(0, 4)], "low": [(vl, 4) for vl in range(1, 15)],
           "sl2vl": list(range(16)), "queue": ident}
    two = {"limit": 0, "high": [(0, 64)], "low": [(1, 32), (1, 32)],
           "sl2vl": list(range(16)), "queue": ident}
    mixed = {"limit": 0, "high": [(1, 5), (1, 6), (0, 3), (1, 6), (1, 4)],
             "low": [(1, 5), (1, 3), (1, 6)], "sl2vl": [1] * 15 + [15],
             "queue": [1] * 15 + [None]}
    return [(osm, [4096] * 16, [None] * 15 + [0]),
            (two, [4096] * 16, [None, None] + [0] * 14),
            (mixed, [2048, 2048, 512] + [4096] * 13, [None, 0, None] + [0] * 13)]


def dtable_case():
    """A saturated DTable whose entries give SL0 and SL1 less than a
    packet each: a packet goes only once the accumulated weight covers
    it, which sets where each SL's packets fall (their distances)."""
    cfg = {"dtable": True, "limit": 255, "low": [],
           "high": [(1, 29), (1, 13), (1, 31), (0, 26), (1, 16), (1, 27), (1, 26), (0, 31),
                    (1, 17), (0, 25), (1, 19)],
           "sl2vl": list(range(16)), "queue": list(range(15)) + [None]}
    return cfg, [2048, 256] + [4096] * 14, [None, None] + [0] * 14


def phase_locked_case():
    """A loaded port whose long run under constant gaps depends on the
    arrivals' phases (0.16 points between rperf's stated draw and all
    light SLs in step, under carry=no and an entry low turn): VL1 is in
    both tables, its saturating SL1 sends 512 bytes, its light SL2 and
    SL3 256 and 2048, and how those fall into VL1's visits locks onto
    the arrivals' start."""
    cfg = {"limit": 2, "high": [(0, 47), (0, 40), (1, 61), (0, 61)],
           "low": [(1, 48), (2, 49), (2, 43), (1, 24), (2, 41), (1, 25), (1, 51), (1, 47)],
           "sl2vl": [0, 1, 1, 1, 0, 2, 1, 0, 0, 1, 2, 0, 1, 0, 2, 15]}
    cfg["queue"] = cfg["sl2vl"][:15] + [None]
    sizes = [4096, 512, 256, 2048, 2048] + [4096] * 11
    loads = [None, None, 8.9, 4.4, None] + [0] * 11
    return cfg, sizes, loads


def phase_distance_case():
    """A loaded port whose largest distances depend on the arrivals'
    phases: two light VLs at one gap beside a saturating one. Not in
    step (rperf's first draw) no light packet waits for the other; in
    step one does, and the saturating VL waits for both."""
    cfg = {"limit": 255, "high": [(0, 64), (1, 64), (2, 64)], "low": [],
           "sl2vl": list(range(16)), "queue": list(range(15)) + [None]}
    return cfg, [4096] * 16, [10.0, 10.0, None] + [0] * 13


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    rperf = args[0]
    long_mode = "--long" in sys.argv
    seed, only = 20261125, None
    for a in sys.argv[1:]:
        if a.startswith("--seed="):
            seed = int(a.split("=", 1)[1])
        if a.startswith("--case="):
            only = int(a.split("=", 1)[1])
    scale = 8 if long_mode else 1
    checks = Checks()
    checks.fail_fast = "--fail-fast" in sys.argv
    # the random cases in order: (number, kind); each its own generator
    kinds = (["saturated"] * (24 * scale) + ["loaded"] * (12 * scale) + ["ets"] * (10 * scale) +
             ["blind"] * (30 * scale))
    with tempfile.TemporaryDirectory() as tmp:
        if only is None:
            issue_examples(rperf, tmp, checks)
            rng = random.Random(f"{seed}/fixed")
            for fixed in limit0_cases():
                check_ib(rperf, tmp, rng, checks, False, True, fixed=fixed)
            check_ib(rperf, tmp, rng, checks, False, True, fixed=dtable_case())
            check_ib(rperf, tmp, rng, checks, True, True, fixed=phase_locked_case())
            check_ib(rperf, tmp, rng, checks, True, long_mode, fixed=phase_distance_case())
            check_ets(rperf, tmp, rng, checks, long_mode, fixed=ets_case())
            for fixed in blind_fixed_cases():
                check_ib(rperf, tmp, rng, checks, True, long_mode, fixed=fixed)
        for n, kind in enumerate(kinds):
            if only is not None and n != only:
                continue
            rng = random.Random(f"{seed}/{n}")
            if kind == "ets":
                check_ets(rperf, tmp, rng, checks, long_mode)
            elif kind == "blind":
                check_blind_only(rperf, tmp, rng, checks, long_mode)
            else:
                check_ib(rperf, tmp, rng, checks, kind == "loaded", long_mode)
    print(f"{checks.n} checks, {checks.failed} failed")
    for kind in sorted(checks.kinds):
        print(f"  {kind}: {checks.kinds[kind]} checks, worst difference "
              f"{checks.worst[kind]:.4f}")
    for kind in sorted(checks.notes):
        print(f"  (not checked) {kind}: at most {checks.notes[kind]:+.0f}")
    for kind in sorted(checks.counts):
        print(f"  (not checked) {kind}: {checks.counts[kind]}")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
