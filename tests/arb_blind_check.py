# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rperf's loaded arbiter against the blind reference (tests/arb_blind.py).

The blind reference was written from the documents alone (the papers,
the arbitration notes and rperf-analyze(1); never src/ nor
tests/arb_reference.py): tests/arb_blind.md gives its readings and the
sentences behind each. This module maps rperf's readings onto its own
and checks, on a loaded port:

  - each rperf reading the blind reference also defines gives the same
    shares, within rperf's bound plus the reference's (constant gaps
    can lock the arbiter onto a cycle of the arrivals that depends on
    their phases: a difference past that is looked at again over two
    more random phases, and accepted within their spread);
  - rperf's range holds the reference's value of every such reading;
  - rperf's range is no wider than the reference's (where every rperf
    reading has its counterpart and a VL's SLs send one packet size),
    the reference's Poisson arrivals included: rperf widens its range by
    its own Poisson run;
  - rperf's stated bound is at least what rperf-analyze(1) says it
    holds: the arbiter's state (every weight's bytes, two packets of
    each SL that offers) over the window.

Readings: carry=yes|no is acct=carry|nocarry; low=entry is low=visit and
low=continue low=continue, both scanning one pass (scan=pass); low=packet
is low=packet with scan=send (a packet turn takes the first entry that
can send); limit0=alternate|bytes is limit0=alt|turn; high packets count
against the limit until it is reached (hlim=after). The reference has
one deficit a VL (deficit=table differs only with carry and a VL in both
tables), and carry=yes where a VL is in both tables has no counterpart:
rperf owes
an overshoot from the end of the packet that made it, so the VL's next
visit in either table repays it, where the reference charges it when
the visit's table next decides (the other table's visits in between do
not see it). low=continue is compared only without carry and where no
low visit can spend its weight exactly with the packet that empties its
VL: there rperf ends the turn (the weight is spent) and the reference
goes on (the VL emptied).
"""
import importlib.util
import math
import os

_spec = importlib.util.spec_from_file_location(
    "arb_blind", os.path.join(os.path.dirname(os.path.abspath(__file__)), "arb_blind.py"))
blind = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(blind)

UNIT = 64
LOW = {"entry": ("visit", "pass"), "continue": ("continue", "pass"), "packet": ("packet", "send")}


def blind_case(cfg, sizes, loads, link=100.0, seed=1, poisson=False):
    """The port in the reference's case format (tests/arb_blind.md)."""
    sls = {}
    for sl in range(16):
        if loads[sl] == 0:
            continue
        sls[str(sl)] = {"size_bytes": sizes[sl],
                        "offered": None if loads[sl] is None else loads[sl] / link,
                        "arrivals": "poisson" if poisson else "constant"}
    return {"kind": "ib", "limit": cfg["limit"], "link_gbps": link,
            "high": [list(e) for e in cfg.get("high", [])],
            "low": [list(e) for e in cfg.get("low", [])],
            "sl2vl": list(cfg["sl2vl"]), "sls": sls, "seed": seed}


def continue_comparable(cfg, sizes, loads):
    """Whether no low visit can spend its weight exactly with the packet
    that empties its VL: without carry, every low entry of a VL that can
    empty has a weight no sum of the VL's packet sizes reaches."""
    for q, w in cfg.get("low", []):
        own = [sl for sl in range(16) if cfg["queue"][sl] == q and loads[sl] != 0]
        if not w or not own or any(loads[sl] is None for sl in own):
            continue
        if (w * UNIT) % math.gcd(*[sizes[sl] for sl in own]) == 0:
            return False
    return True


def blind_reading(cfg, name, sizes=None, loads=None):
    """The reference's reading of rperf reading @name; None: it has none."""
    sem = dict(kv.split("=") for kv in name.split(","))
    if sem["carry"] == "yes" and in_both(cfg):
        return None
    if sem["low"] == "continue" and low_drains(cfg, loads) and (
            sem["carry"] == "yes" or not continue_comparable(cfg, sizes, loads)):
        return None
    if sem["low"] == "continue" and not low_drains(cfg, loads):
        sem["low"] = "entry"                # no low VL empties: one machine
    low, scan = LOW[sem["low"]]
    rd = {"acct": "carry" if sem["carry"] == "yes" else "nocarry", "low": low,
          "hlim": "after"}
    if rd["acct"] == "carry":
        rd["scan"] = scan
    if cfg["limit"] == 0:
        rd["limit0"] = "alt" if sem["limit0"] == "alternate" else "turn"
    return rd


def low_drains(cfg, loads):
    """Whether a VL of the low table can empty (no SL saturates it)."""
    for q, w in cfg.get("low", []):
        own = [sl for sl in range(16) if cfg["queue"][sl] == q and loads[sl] != 0]
        if w and own and all(loads[sl] is not None for sl in own):
            return True
    return False


def in_both(cfg):
    high = {q for q, w in cfg.get("high", []) if w and q < 15}
    return bool(high & {q for q, w in cfg.get("low", []) if w and q < 15})


def mixed_sizes(cfg, sizes, loads):
    seen = {}
    for sl in range(16):
        q = cfg["queue"][sl]
        if q is not None and loads[sl] != 0:
            seen.setdefault(q, set()).add(sizes[sl])
    return any(len(s) > 1 for s in seen.values())


def check_bound_floor(doc, cfg, sizes, loads, checks, label):
    """rperf's bound against the state it must at least cover."""
    busy = sum(doc["sls"][sl]["share_pct"] for sl in range(16))
    pk = sum(doc["sls"][sl]["share_pct"] / sizes[sl] for sl in range(16))
    if doc["exact"] or doc["period_packets"] or not pk or not doc["window_packets"]:
        return
    offered = {cfg["queue"][sl] for sl in range(16) if loads[sl] != 0}
    state = 0
    for name in ("high", "low"):
        ents = cfg.get(name, [])
        if any(w and q < 15 and q in offered for q, w in ents):
            state += sum(w * UNIT for q, w in ents)
    state += sum(2 * sizes[sl] for sl in range(16)
                 if loads[sl] != 0 and cfg["queue"][sl] is not None)
    window_bytes = doc["window_packets"] * busy / pk
    floor = 100.0 * state * (busy / 100.0) / window_bytes
    # half of it: the window's bytes come from the shares stated, which
    # are of one phase draw
    checks.check(f"{label}: stated bound at least the arbiter's state over the window",
                 doc["bound_pct"] >= 0.5 * floor, max(0.0, floor - doc["bound_pct"]),
                 f"bound {doc['bound_pct']:.4f} below {floor:.4f} {cfg}")


def check_blind(doc, cfg, sizes, loads, checks, label, packets):
    """Every rperf reading of a loaded port against the blind reference;
    whether there was one to compare (something is served)."""
    offered = {cfg["queue"][sl] for sl in range(16) if loads[sl] != 0}
    if not any(w and q in offered for name in ("high", "low") for q, w in cfg.get(name, [])):
        return False            # nothing is served (the reference would wait forever)
    case = blind_case(cfg, sizes, loads)
    lo = [s.get("share_min_pct", s["share_pct"]) for s in doc["sls"]]
    hi = [s.get("share_max_pct", s["share_pct"]) for s in doc["sls"]]
    bound = doc["bound_pct"]
    runs, ref_lo, ref_hi, unmapped = {}, [None] * 16, [None] * 16, False
    for per in doc["per_semantics"]:
        rd = blind_reading(cfg, per["semantics"], sizes, loads)
        if rd is None:
            unmapped = True
            continue
        key, _ = blind.canonical(case, rd)
        if key not in runs:
            share, b, _ = blind.run_loaded(case, rd, window=packets, seed=case["seed"])
            runs[key] = ({int(k): 100 * v for k, v in share.items()},
                         {int(k): 100 * v for k, v in b.items()})
        ours, ob = runs[key]
        worst, at = 0.0, None
        for sl, v in ours.items():
            tol = bound + ob[sl] + 0.01
            ref_lo[sl] = v if ref_lo[sl] is None else min(ref_lo[sl], v)
            ref_hi[sl] = v if ref_hi[sl] is None else max(ref_hi[sl], v)
            out = max(lo[sl] - v, v - hi[sl], 0)
            checks.check(f"{label}: blind reference inside rperf's range", out <= tol, out,
                         f"SL{sl} {per['semantics']}: blind {v:.3f} outside "
                         f"{lo[sl]:.3f}-{hi[sl]:.3f} (tolerance {tol:.3f}) {cfg} {sizes} {loads}")
            diff = abs(per["share_pct"][sl] - v) - tol
            if diff > worst:
                worst, at = diff, sl
        if at is not None:
            worst = phase_spread(case, rd, packets, per, at, bound, (ours, ob), checks)
        checks.check(f"{label}: share of the reading against the blind reference", worst <= 0,
                     max(worst, 0), f"{per['semantics']}: SL{at} rperf "
                     f"{per['share_pct'][at] if at is not None else 0:.3f} against the blind "
                     f"{ours.get(at, 0):.3f} {cfg} {sizes} {loads}")
    if not runs or unmapped or mixed_sizes(cfg, sizes, loads):
        return True
    # rperf's range holds its Poisson run of the reading it shows
    pcase = blind_case(cfg, sizes, loads, poisson=True)
    share, b, _ = blind.run_loaded(pcase, blind_reading(cfg, doc["semantics"], sizes, loads),
                                   window=packets, seed=pcase["seed"])
    for k, v in share.items():
        sl, v = int(k), 100 * v
        if ref_lo[sl] is None:
            continue
        tol = bound + 100 * b[k] + 0.01
        ref_min, ref_max = min(ref_lo[sl], v) - tol, max(ref_hi[sl], v) + tol
        out = max(ref_min - lo[sl], hi[sl] - ref_max, 0)
        checks.check(f"{label}: rperf's range no wider than the blind reference's", out <= 0, out,
                     f"SL{sl}: rperf {lo[sl]:.3f}-{hi[sl]:.3f}, the blind readings "
                     f"{ref_lo[sl]:.3f}-{ref_hi[sl]:.3f} and Poisson {v:.3f} "
                     f"(tolerance {tol:.3f}) {cfg} {sizes} {loads}")
    return True


def phase_spread(case, rd, packets, per, sl, bound, first, checks):
    """How far rperf's share of @sl lies outside the reference's over
    three random phases (@first's and two more), each widened by its
    bound; counted as a phase-locked case when inside."""
    vals = [(first[0][sl], first[1][sl])]
    for seed in (case["seed"] + 1, case["seed"] + 2):
        share, b, _ = blind.run_loaded(dict(case, seed=seed), rd, window=packets, seed=seed)
        vals.append((100 * share[sl], 100 * b[sl]))
    got = per["share_pct"][sl]
    lo = min(v - b for v, b in vals) - bound - 0.01
    hi = max(v + b for v, b in vals) + bound + 0.01
    out = max(lo - got, got - hi, 0)
    if out == 0:
        checks.tally("loaded readings whose blind figure moved with the arrivals' phases")
    return out
