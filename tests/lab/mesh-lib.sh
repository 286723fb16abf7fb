# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Helpers for the rperf mesh lab tests, in the lab of two switches
# (scripts/lab run --switches 2 --hosts 4); source after lib.sh and
# converge-lib.sh. Agents run on every host; the mesh runs on h1.

AGENT_HOSTS="h1 h2 h3 h4"
MESH_HOSTS=h1,h2,h3,h4
# Each ordered pair measures this long: a few hundred samples at the lab's
# round trips of 1 to 10 ms, so that a pair's median moves by less than
# the delay the tests look for.
MESH_DURATION=${MESH_DURATION:-2s}

[ "$("$LAB" switches | wc -l)" = 2 ] && [ "$("$LAB" hosts | wc -l)" = 4 ] ||
	fail "needs the lab of two switches: scripts/lab run --switches 2 --hosts 4"

# The topology as the fabric's own LLDP tells it, read live: every host's
# and switch's `lldpcli -f json show chassis` then `show neighbors`, one
# file each, put in h1's share ($RPERF_LAB_RESULTS/lldp-VM.json there).
# Waits (up to 60 s) until each VM knows all its neighbours: a host its
# switch, a switch its two hosts and the other switch.
mesh_topology() {
	local v want share=${RPERF_LAB_DIR:?}/vm/h1/results
	for v in $("$LAB" switches) $("$LAB" hosts); do
		want=1
		[[ "$v" == sw* ]] && want=3
		in_vm "$v" "for i in \$(seq 60); do
			[ \"\$(lldpcli -f json show neighbors 2>/dev/null | jq '[.lldp.interface // [] | .[]?] | length')\" -ge $want ] && exit 0
			sleep 1; done; lldpcli show neighbors; exit 1" >"$WORK/lldp-wait-$v.out" ||
			{ cat "$WORK/lldp-wait-$v.out" >&2; fail "$v: fewer than $want LLDP neighbours after 60 s"; }
		in_vm "$v" 'lldpcli -f json show chassis 2>/dev/null && lldpcli -f json show neighbors 2>/dev/null' \
			>"$share/lldp-$v.json" || fail "$v: lldpcli failed"
	done
	MESH_TOPOLOGY=""
	for v in $("$LAB" switches) $("$LAB" hosts); do
		MESH_TOPOLOGY="$MESH_TOPOLOGY --topology \$RPERF_LAB_RESULTS/lldp-$v.json"
	done
}

# mesh_over NAME ARGS...: converge-lib's mesh over the four hosts, the
# LLDP topology given; fails the test unless it exits 0. The JSON is also
# left in h1's share as NAME.ref.json, for a later run's --reference.
mesh_over() {
	local name=$1 t0=$SECONDS
	shift
	mesh "$name" --hosts "$MESH_HOSTS" --clock monotonic -D "$MESH_DURATION" $MESH_TOPOLOGY "$@" \
		>/dev/null || { cat "$WORK/$name.out" >&2; fail "$name: rperf mesh exited non-zero"; }
	cp "$WORK/$name.json" "${RPERF_LAB_DIR:?}/vm/h1/results/$name.ref.json"
	echo "$name: rperf mesh took $((SECONDS - t0)) s ($(jq -r '"\(.steps) steps, \(.duration_s) s measuring"' "$WORK/$name.json"))"
}

# The hops of NAME.json, one a line: name, estimate, its interval (us),
# identifiable, slow, why.
mesh_hops() {
	jq -r 'def us: if . == null then "-" else . / 1e3 | round | tostring end;
		((.hops // [])[] | "  \(.name): \(.est_ns | us) us [\(.ci_low_ns | us), \(.ci_high_ns | us)]" +
		" identifiable \(.identifiable) group \(.group) slow \(.slow)\(if .slow then ": " + .why else "" end)"),
		(.locate // empty | "  residual rms \(.residual_rms_ns | us) us, \(.used) pairs used, \(.unresolved) unresolved, ecmp \(.ecmp)")' \
		"$WORK/$1.json"
}

# expect_slow NAME PATTERN D_NS: in NAME.json, the one hop whose name
# matches PATTERN (a jq regex) is identifiable and named slow, with its
# estimate within 20 % of D_NS; no other hop is named slow (a host's link
# above all). Prints the figures.
expect_slow() {
	local name=$1 pat=$2 d_ns=$3 est
	echo "$name: hops (a delay of $((d_ns / 1000)) us on the link matching '$pat'):"
	mesh_hops "$name"
	jq -e '.locate != null and (.hops | length) > 0' "$WORK/$name.json" >/dev/null ||
		fail "$name: no hops located (was --topology read?)"
	[ "$(jq --arg p "$pat" '[.hops[] | select(.name | test($p))] | length' "$WORK/$name.json")" = 1 ] ||
		fail "$name: not exactly one hop matches '$pat'"
	est=$(jq --arg p "$pat" '.hops[] | select(.name | test($p)) | .est_ns' "$WORK/$name.json")
	jq -e --arg p "$pat" '.hops[] | select(.name | test($p)) | .identifiable and .slow' "$WORK/$name.json" >/dev/null ||
		fail "$name: the hop matching '$pat' is not named slow (or not identifiable)"
	within_pct "$est" "$d_ns" 20 ||
		fail "$name: the hop matching '$pat' estimated $est ns, not within 20 % of $d_ns ns"
	[ "$(jq --arg p "$pat" '[.hops[] | select(.slow and (.name | test($p) | not))] | length' "$WORK/$name.json")" = 0 ] ||
		fail "$name: another hop is named slow: $(jq -c --arg p "$pat" '[.hops[] | select(.slow and (.name | test($p) | not)) | .name]' "$WORK/$name.json")"
	echo "$name: estimate $(awk -v e="$est" 'BEGIN { printf "%.0f", e / 1e3 }') us against D = $((d_ns / 1000)) us" \
		"($(awk -v e="$est" -v d="$d_ns" 'BEGIN { printf "%+.1f", 100 * (e - d) / d }') %)"
}
