#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf analyze --port against a live fabric: a real OpenSM programs the
# simulated fabric of tests/ib/net (scripts/iblab run --conf), and for
# every port kind the analysis of the port read live over SMP MADs must
# equal the analysis of smpquery's text captures of the same port; an
# opensm.conf read for the live port (its caps, operational VLs and node
# type) must equal the opensm.conf read with the port's portinfo capture.
# A directed route reaches the same port as its LID; a base port 0 and
# an unanswered LID are refused with the reason. ibnetdiscover's live
# output is fed to the topology reader (tests/ib/topo_probe), on this
# fabric and on the one tests/data/ib/two-switch.ibnetdiscover.txt was
# captured from.
#
# Run by `make check` with RPERF, TOPO_PROBE and TEST_TOP set. Needs ibsim-utils,
# opensm, infiniband-diags and jq (scripts/install-deps); it fails, never
# skips, without them.
RPERF=${RPERF:-src/rperf}
TOP=$(realpath "${TEST_TOP:-.}")
RPERF=$(realpath "$RPERF")
IBLAB="$TOP/scripts/iblab"
# A sanitized rperf under ibsim-run: see tests/ib/asan.supp.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:suppressions=$TOP/tests/ib/asan.supp"

# LID:PORT, the node type rperf must find there, and a directed route to
# the same port (from Switch1, where ibsim-run's clients attach).
PORTS="1:1:swe:0:1 1:3:swe:0:3 1:0:sw0:0:0 2:1:ca:0,1:1 3:1:swe:0,3:1 4:1:ca:0,3,1:1"
CONFS="01-defaults 02-config-a 18-max-op-vls-3 22-ca-set 24-sw0-set 35-per-type-limits"

shape() {
	jq -c -f "$TOP/tests/ib/shape.jq" "$1"
}

# Under ibsim-run: compare every port of one programmed fabric in $1.
inner() {
	out=$1 conf=$2 fails=0 n=0
	# ibsim-run's shim makes its sys-PID folders in the working directory.
	cd "$out" || return 1
	for p in $PORTS; do
		lid=${p%%:*} p=${p#*:} port=${p%%:*} p=${p#*:} type=${p%%:*} dr=${p#*:}
		f="$out/$lid-$port"
		{ smpquery vlarb "$lid" "$port" && smpquery sl2vl "$lid" "$port" &&
			smpquery portinfo "$lid" "$port"; } >"$f.txt" 2>/dev/null
		smpquery portinfo "$lid" "$port" >"$f.portinfo.txt" 2>/dev/null
		"$RPERF" analyze --json="$f.text.json" "$f.txt" 2>"$f.err"
		"$RPERF" analyze --json="$f.live.json" --port "$lid:$port" 2>>"$f.err"
		"$RPERF" analyze --json="$f.dr.json" --port "$dr" 2>>"$f.err"
		"$RPERF" analyze --json="$f.conf.json" --node-type "$type" "$conf" \
			"$f.portinfo.txt" 2>>"$f.err"
		"$RPERF" analyze --json="$f.liveconf.json" --port "$lid:$port" "$conf" \
			2>>"$f.err"
		t=$(shape "$f.text.json")
		if [ -z "$t" ] || [ "$t" != "$(shape "$f.live.json")" ] ||
			[ "$t" != "$(shape "$f.dr.json")" ]; then
			echo "FAIL: port $lid:$port: live tables differ from the captures"
			echo "  text: $t"
			echo "  live: $(shape "$f.live.json")"
			echo "  dr $dr: $(shape "$f.dr.json")"
			fails=$((fails + 1))
		fi
		c=$(shape "$f.conf.json")
		if [ -z "$c" ] || [ "$c" != "$(shape "$f.liveconf.json")" ] ||
			[ "$(jq -r .node_type "$f.liveconf.json")" != "$type" ]; then
			echo "FAIL: port $lid:$port: the opensm.conf read for the live port differs"
			echo "  with portinfo: $c"
			echo "  live port ($(jq -r .node_type "$f.liveconf.json")):" \
				"$(shape "$f.liveconf.json")"
			fails=$((fails + 1))
		fi
		[ "$(jq -r .format "$f.live.json")" = mad ] ||
			{ echo "FAIL: port $lid:$port: format not 'mad'"; fails=$((fails + 1)); }
		n=$((n + 1))
	done
	if "$RPERF" analyze --port 3:0 >/dev/null 2>"$out/base.err" ||
		! grep -q 'lid 3 port 0 has no VL arbitration tables' "$out/base.err"; then
		echo "FAIL: base port 0 not refused: $(cat "$out/base.err")"
		fails=$((fails + 1))
	fi
	if "$RPERF" analyze --port 77:1 >/dev/null 2>"$out/nolid.err" ||
		! grep -q 'lid 77 port 1: .*failed' "$out/nolid.err"; then
		echo "FAIL: an unanswered LID not refused: $(cat "$out/nolid.err")"
		fails=$((fails + 1))
	fi
	# converge reads the same live port, before it reaches any agent:
	# flows need verbs, which ibsim has not, so the agents are
	# unreachable here and the run stops there, with the port read.
	for lp in 1:1 0,1:1 3:0 77:1; do
		printf '[global]\ndestination = 127.0.0.1\nagent_port = 9\narbitration = port:%s %s\n[l]\nhost = 127.0.0.2\ntype = lat\n' \
			"$lp" "$conf" >"$out/s-$lp.ini"
		"$RPERF" converge --timeout 1 "$out/s-$lp.ini" >/dev/null 2>"$out/c-$lp.err"
		echo "$?" >"$out/c-$lp.rc"
	done
	for want in "1:1 1 agent '127.0.0.1' (destination) cannot be reached" \
		"0,1:1 1 agent '127.0.0.1' (destination) cannot be reached" \
		"3:0 2 lid 3 port 0 has no VL arbitration tables" \
		"77:1 1 lid 77 port 1: "; do
		lp=${want%% *} rest=${want#* } rc=${rest%% *} msg=${rest#* }
		if [ "$(cat "$out/c-$lp.rc")" != "$rc" ] || ! grep -qF "$msg" "$out/c-$lp.err"; then
			echo "FAIL: converge with port:$lp: exit $(cat "$out/c-$lp.rc")," \
				"want $rc and '$msg': $(grep -v ibwarn "$out/c-$lp.err")"
			fails=$((fails + 1))
		fi
	done
	topology_live "$out" || fails=$((fails + 1))
	echo "$n ports: $fails failures"
	[ "$fails" = 0 ]
}

# Under ibsim-run: ibnetdiscover's live output of tests/ib/net through the
# topology reader (tests/ib/topo_probe): its four nodes, the two links
# between the switches kept apart, and the hosts' route across them said
# to have two shortest paths; the same from ibnetdiscover -p.
topology_live() {
	ibnetdiscover >"$1/topology.txt" 2>/dev/null ||
		{ echo "FAIL: ibnetdiscover failed"; return 1; }
	"$TOPO_PROBE" "$1/topology.txt" >"$1/topo.out" 2>&1 ||
		{ echo "FAIL: the reader refused ibnetdiscover's output: $(cat "$1/topo.out")"; return 1; }
	sort "$1/topo.out" >"$1/topo.sorted"
	cat >"$1/topo.want" <<'W'
link Hca1 - Switch1:1
link Hca2 - Switch2:1
link Switch2:3 - Switch1:3
link Switch2:5 - Switch1:5
node Hca1 host
node Hca2 host
node Switch1 switch
node Switch2 switch
route Hca1 Hca2 3 ecmp
route Hca2 Hca1 3 ecmp
W
	diff -u "$1/topo.want" "$1/topo.sorted" >"$1/topo.diff" ||
		{ echo "FAIL: ibnetdiscover read live:"; cat "$1/topo.diff"; return 1; }
	# one port a line (-p): the same fabric
	ibnetdiscover -p >"$1/topology-p.txt" 2>/dev/null ||
		{ echo "FAIL: ibnetdiscover -p failed"; return 1; }
	"$TOPO_PROBE" "$1/topology-p.txt" 2>&1 | sort >"$1/topo-p.sorted"
	diff -u "$1/topo.want" "$1/topo-p.sorted" >"$1/topo.diff" ||
		{ echo "FAIL: ibnetdiscover -p read live:"; cat "$1/topo.diff"; return 1; }
}

if [ "${1:-}" = --inner ]; then
	inner "$2" "$3"
	exit
fi

for tool in ibsim ibsim-run opensm smpquery jq; do
	command -v "$tool" >/dev/null ||
		{ echo "FAIL: $tool not found: run scripts/install-deps"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/ib-live.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
for name in $CONFS; do
	conf="$TOP/tests/ib/conf/$name.conf"
	mkdir -p "$work/$name"
	if "$IBLAB" run --conf "$conf" "$(realpath "$0")" --inner "$work/$name" \
		"$(realpath "$conf")" >"$work/$name.log" 2>&1; then
		echo "$name: $(tail -1 "$work/$name.log")"
	else
		grep -v '^ibwarn' "$work/$name.log"
		echo "FAIL: $name"
		fails=$((fails + 1))
	fi
done
# The ibnetdiscover capture the reader's unit tests use, taken again live
# from its ibsim fabric: the reader must make the same topology of both.
TOPO_PROBE=${TOPO_PROBE:-tests/ib/topo_probe}
export TOPO_PROBE
two=$TOP/tests/data/ib/two-switch
mkdir -p "$work/two"
if ! (cd "$work/two" && "$IBLAB" run --net "$two.net" ibnetdiscover >"$work/two.txt" 2>"$work/two.err") ||
	! "$TOPO_PROBE" "$work/two.txt" | sort >"$work/two.live" ||
	! "$TOPO_PROBE" "$two.ibnetdiscover.txt" | sort >"$work/two.kept" ||
	[ "$(wc -l <"$work/two.kept")" -ne 23 ] || ! diff -u "$work/two.kept" "$work/two.live"; then
	echo "FAIL: ibnetdiscover on $two.net, live and kept, differ or are refused"
	grep -v ibwarn "$work/two.err"
	fails=$((fails + 1))
fi
echo "ib-live: $(echo "$CONFS" | wc -w) configurations, $fails failed"
[ "$fails" = 0 ]
