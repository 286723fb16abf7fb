#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Mutation run of the arbitration property test: each mutant below is a
# plausible mistake in the models, applied to a copy of the built tree;
# the copy is rebuilt and tests/arb_reference.py must FAIL on it. Prints
# each mutant's verdict and "caught N of M"; exits 1 unless every mutant
# is caught. Run from a built tree: tests/arb-mutants.sh [MUTANT...]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# name|file|perl substitution (must change the file)
mutants='limit-sim|src/qos/arb_ib_sim.c|s/if \(sent >= limit_bytes\)/if (sent > limit_bytes)/
limit-load|src/qos/arb_ib_load.c|s/m->high_sent >= m->limit_bytes/m->high_sent > m->limit_bytes/
carry-sim|src/qos/arb_ib_sim.c|s/def\[t->vl\[t->pos\]\] \+= t->credit;/def[t->vl[t->pos]] = 0;/
carry-load|src/qos/arb_ib_load.c|s/t->def\[q\] \+= ld_has\(m, q\) \|\| t->credit < 0 \? t->credit : 0;/t->def[q] = 0;/
low-weight-sim|src/qos/arb_ib_sim.c|s/\(int32_t\)e->weight \* ARB_UNIT_BYTES;/(int32_t)e->weight * ARB_UNIT_BYTES * (k == SIM_LOW \&\& !m->n[k] ? 2 : 1);/
low-weight-load|src/qos/arb_ib_load.c|s/credit = \(int64_t\)e->weight \* ARB_UNIT_BYTES/credit = (int64_t)e->weight * ARB_UNIT_BYTES * (t == \&m->tab[LD_LOW] \&\& !t->pos ? 2 : 1)/
size-silent-sl|src/qos/arb_ib_run.c|s/if \(q < 0 \|\| !arb_sl_offers\(params, sl\)\)\n\t\t\tcontinue;\n\t\tif \(!seen/if (q < 0)\n\t\t\tcontinue;\n\t\tif (!seen/
size-queue-not-sl|src/qos/arb_ib_load.c|s/int64_t bytes = m->spec->packet_bytes\[sl\];/int64_t bytes = m->spec->packet_bytes[q];/
dtable-overshoot|src/qos/arb_ib_sim.c|s/return round \? credit >= pb\[vl\] : credit > 0;/return credit > 0;/
gap-off-by-one|src/qos/arb_ib_sim.c|s/gap = r - last\[vl\[r\]\] - 1;/gap = r - last[vl[r]];/
load-distance|src/qos/arb_ib_load.c|s/m->head_since\[q\] = m->sent \+ 1;/m->head_since[q] = m->sent;/
limit0-keep-all|src/qos/arb_ib.c|s/if \(cfg->limit != 0 \|\| !sem.carry \|\| sem.low_turn == ARB_LOW_PACKET/if (1 || cfg->limit != 0 || !sem.carry || sem.low_turn == ARB_LOW_PACKET/
ets-light-band|src/qos/arb_common.c|s/demand\[g\] >= left \* share\[g\]/demand[g] >= left/
ets-per-flow|src/qos/arb_common.c|s/wf->load_gbps\[f\] >= gbps \/ n\)/wf->load_gbps[f] >= gbps)/
low-turn-one-visit-sim|src/qos/arb_ib_sim.c|s/if \(pass \&\& \+\+failed == t->n\)/if (pass \&\& ++failed)/
phase-draws-one|src/qos/arb_ib_run.c|s/!spec->poisson \&\& k < ARB_LOAD_PHASES/!spec->poisson \&\& k < 1/
phase-draws-max-distance|src/qos/arb_ib_run.c|s/out->max_distance\[q\] = k_out.max_distance\[q\];/;/
low-turn-one-visit-load|src/qos/arb_ib_load.c|s/(t->def\[q\] = credit;\n\t\tld_advance\(t\);\n\t\tif \(max > 0) \&\& i >= max\)/$1)/
poisson-half-rate|src/qos/arb_ib_run.c|s/spec->load_gbps\[sl\] = params->load_gbps\[sl\];/spec->load_gbps[sl] = params->load_gbps[sl] > 0 \&\& poisson ? params->load_gbps[sl] \/ 2 : params->load_gbps[sl];/
bound-tenfold-smaller|src/qos/arb_ib.c|s/res->bound_pct = 100 \* arb_ib_loaded\(/res->bound_pct = 10 * arb_ib_loaded(/
continuation-flipped|src/qos/arb_ib_load.c|s/if \(m->spec->sem.low_turn != ARB_LOW_CONTINUE\)\n\t\treturn -1;/if (m->spec->sem.low_turn == ARB_LOW_CONTINUE)\n\t\treturn -1;/'


echo "copying the built tree"
tar -C "$top" --exclude=.git --exclude='*.log' --exclude='*.trs' -cf - . | tar -C "$work" -xf -
caught=0 total=0 missed=""
printf '%s\n' "$mutants" | while IFS='|' read -r name file sub; do
	[ $# -gt 0 ] && ! echo " $* " | grep -q " $name " && continue
	cp -p "$top/$file" "$work/$file.orig"
	if ! perl -0pi -e "\$n = ($sub); END { exit(\$n ? 0 : 1) }" "$work/$file"; then
		echo "mutant $name: ERROR: substitution did not apply to $file"
		echo "x" >>"$work/.missed"
		cp -p "$work/$file.orig" "$work/$file"
		continue
	fi
	touch "$work/$file"
	if ! make -C "$work" -s src/rperf >"$work/.build.log" 2>&1; then
		echo "mutant $name: ERROR: did not build"
		echo "x" >>"$work/.missed"
	elif python3 "$top/tests/arb_reference.py" "$work/src/rperf" --fail-fast \
		>"$work/.run.log" 2>&1; then
		echo "mutant $name: MISSED (the property test passed)"
		echo "x" >>"$work/.missed"
	else
		echo "mutant $name: caught: $(grep -m1 '^FAIL' "$work/.run.log" | cut -c1-110)"
	fi
	echo "x" >>"$work/.total"
	cp -p "$work/$file.orig" "$work/$file"
	touch "$work/$file"
done
total=$(cat "$work/.total" 2>/dev/null | wc -l)
missed=$(cat "$work/.missed" 2>/dev/null | wc -l)
echo "caught $((total - missed)) of $total mutants"
[ "$missed" -eq 0 ] && [ "$total" -gt 0 ]
