#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Synthetic fabrics for rperf mesh --replay, made from a model that is
written here, apart from rperf's own code:

  fattree DIR --leaves L --spines S --per-leaf H [--rails R] [--seed N]
      DIR/topo: a two-level fat tree (topology file); DIR/routes: each
      ordered pair's path, its spine drawn at random (what ECMP does);
      DIR/first-routes: every pair through the lowest-numbered spine
      (the one shortest path rperf took before it read routes).
      With R rails, each host has R NICs (mlx5_0 ...), rail r of the
      hosts of leaf group g on leaf g * R + r + 1 (rail-optimized): the
      endpoints are HOST/mlx5_r, every ordered pair of them measured
      (two rails of one host too).
  lft IBNETDISCOVER DUMP_LFTS OUT
      the routes the InfiniBand forwarding tables give every pair of CAs
      (walked here from the captures, independently of rperf), as a
      routes file naming each CA HOST/DEVICE.
  mesh ROUTES TEMPLATE [--slow A-B=NS ...] [--slow-switch SW=NS]
       [--drift NS] [--noise NS] [--seed N]
      a saved mesh (TEMPLATE: any rperf mesh --json, for the keys it
      carries) whose pairs' p50 are the sums over their paths, there and
      back, of half each link's round-trip share (host links 1000 to
      1400 ns, fabric links 300 ns; a slow link +NS, a slow switch +NS on
      each of its links), plus normal noise of sd NS with its 95 %
      interval; --drift moves each host's link by up to +-NS.
"""
import json
import random
import re
import sys


def arg(argv, name, default, cast=float):
    return cast(argv[argv.index(name) + 1]) if name in argv else default


def fattree(argv):
    out = argv[0]
    leaves, spines, per = (arg(argv, n, 0, int) for n in ("--leaves", "--spines", "--per-leaf"))
    rails = arg(argv, "--rails", 0, int)
    rng = random.Random(arg(argv, "--seed", 1, int))
    if rails:
        groups = leaves // rails
        hosts = {f"h{g * per + i + 1}/mlx5_{r}": f"L{g * rails + r + 1}"
                 for g in range(groups) for i in range(per) for r in range(rails)}
    else:
        hosts = {f"h{l * per + i + 1}": f"L{l + 1}" for l in range(leaves) for i in range(per)}
    with open(f"{out}/topo", "w") as f:
        f.write("# a two-level fat tree\n")
        if rails:
            f.write("host " + " ".join(sorted({h.split("/")[0] for h in hosts})) + "\n")
        for h, l in hosts.items():
            f.write(f"{h.replace('/', ':')} {l}\n")
        for s in range(spines):
            for l in range(leaves):
                f.write(f"L{l + 1} S{s + 1}\n")
    with open(f"{out}/routes", "w") as r, open(f"{out}/first-routes", "w") as first:
        for a, la in hosts.items():
            for b, lb in hosts.items():
                if a == b:
                    continue
                if la == lb:
                    r.write(f"{a} {la} {b}\n")
                    first.write(f"{a} {la} {b}\n")
                else:
                    r.write(f"{a} {la} S{rng.randrange(spines) + 1} {lb} {b}\n")
                    first.write(f"{a} {la} S1 {lb} {b}\n")


def lft(argv):
    ibnd, lfts, out = argv[:3]
    port_peer, name_of = {}, {}
    node = None
    for line in open(ibnd):
        m = re.match(r'^(Switch|Ca)\s+\d+\s+"([^"]+)"\s+#\s+"([^"]+)"', line)
        if m:
            node = m.group(3)
            name_of[m.group(2)] = node
            continue
        m = re.match(r'^\[(\d+)\](?:\([0-9a-f]+\))?\s+"([^"]+)"\[(\d+)\]', line)
        if m and node:
            port_peer[(node, int(m.group(1)))] = m.group(2)
    port_peer = {k: name_of[v] for k, v in port_peer.items()}
    table, lid_of, sw = {}, {}, None
    for line in open(lfts):
        m = re.search(r"of switch .* guid \S+ \((.*)\):", line)
        if m:
            sw = m.group(1)
            table[sw] = {}
            continue
        m = re.match(r"^0x([0-9a-f]+) (\d+) : \((.*)\)", line)
        if m and sw:
            lid = int(m.group(1), 16)
            table[sw][lid] = int(m.group(2))
            d = re.search(r"Channel Adapter portguid \S+ '(.*)'", m.group(3))
            if d:
                lid_of.setdefault(d.group(1), lid)
    cas = [n for n in lid_of if (n, 1) in port_peer]
    with open(out, "w") as f:
        for a in cas:
            for b in cas:
                if a == b:
                    continue
                path, v = [a], port_peer[(a, 1)]
                while v != b:
                    path.append(v)
                    v = port_peer[(v, table[v][lid_of[b]])]
                path.append(b)
                f.write(" ".join(p.replace(" ", "/") if p in cas else p for p in path) + "\n")


def mesh(argv):
    routes, template = argv[:2]
    noise = arg(argv, "--noise", 10)
    drift = arg(argv, "--drift", 0)
    rng = random.Random(arg(argv, "--seed", 1, int))
    slow = {}
    for i, a in enumerate(argv):
        if a == "--slow":
            link, ns = argv[i + 1].rsplit("=", 1)
            slow[frozenset(link.split("-"))] = float(ns)
    sw_slow = {}
    if "--slow-switch" in argv:
        sw, ns = argv[argv.index("--slow-switch") + 1].split("=")
        sw_slow[sw] = float(ns)
    paths = [line.split() for line in open(routes) if line.split()]
    hosts = []
    for p in paths:
        for h in (p[0], p[-1]):
            if h not in hosts:
                hosts.append(h)
    # each host's own link: 1000 to 1400 ns, and its drift since the reference
    own = {h: 1000 + 400 * i / max(1, len(hosts) - 1) + rng.uniform(-drift, drift)
           for i, h in enumerate(hosts)}
    via = {(p[0], p[-1]): p for p in paths}

    def share(a, b):
        s = own[a] if a in own else own[b] if b in own else 300
        s += slow.get(frozenset((a, b)), 0)
        s += sw_slow.get(a, 0) + sw_slow.get(b, 0)
        return s

    def one_way(p):
        return sum(share(p[i], p[i + 1]) / 2 for i in range(len(p) - 1))

    doc = json.load(open(template))
    pattern = doc["pairs"][0]
    pairs = []
    for a in hosts:
        for b in hosts:
            if a == b:
                continue
            y = one_way(via[(a, b)]) + one_way(via[(b, a)]) + rng.gauss(0, noise)
            p = json.loads(json.dumps(pattern))
            p.update(src=a, dst=b, sl=0, tclass=0, samples=1000, outlier=False, why=None,
                     error=None)
            p["p50"] = dict(state="resolved", value_ns=round(y, 1), rank=500,
                            ci_low_ns=round(y - 1.96 * noise, 1),
                            ci_high_ns=round(y + 1.96 * noise, 1), ci_ranks=[469, 531],
                            samples_needed=0, reason=None)
            pairs.append(p)
    doc.update(hosts=hosts, pairs=pairs, complete=True, error=None, outliers=[],
               rounds=len(hosts) - 1, steps=2 * (len(hosts) - 1),
               steps_done=2 * (len(hosts) - 1))
    doc["config"]["classes"] = [{"sl": 0, "tclass": 0}]
    json.dump(doc, sys.stdout, indent=1)


if __name__ == "__main__":
    {"fattree": fattree, "lft": lft, "mesh": mesh}[sys.argv[1]](sys.argv[2:])
