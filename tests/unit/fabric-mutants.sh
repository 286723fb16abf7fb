#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Mutation run of the fabric layer's unit tests: each mutant below is a
# plausible mistake in the topology or the localization, applied to a
# copy of src/fabric; the unit tests test_topo, test_locate and
# test_locate_paths are built
# against the copy (with the built libbase.a) and must FAIL on it. The
# unmutated copy must pass. Prints each mutant's verdict and "caught N of
# M"; exits 1 unless every mutant is caught.
#
# Run by `make check` with SRC_DIR, TEST_TOP and LAYER_CC, LAYER_LIBDIR,
# LAYER_EXT_LIBS set; one compile and two links a mutant, a few seconds.
SRC_DIR=${SRC_DIR:-src}
TOP=${TEST_TOP:-.}
[ -n "$LAYER_CC" ] && [ -n "$LAYER_LIBDIR" ] || {
	echo "FAIL: LAYER_CC and LAYER_LIBDIR are not set (run through make check)"
	exit 1
}
T=$(mktemp -d "${TMPDIR:-/tmp}/fabric-mutants.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

# name|file|perl substitution (must change the file)
mutants='no-factor-2|locate.c|s/whole \? 2 \* f->x\[gi\]/whole ? f->x[gi]/
one-way-only|locate.c|s/p->cb = p->nb > 1 \? -1 : 0;/p->cb = 0; p->nb = 0;/
swapped-route|topo_route.c|s/links\[k\] = l;/links[dist[dst] - 1 - k] = l;/
hosts-forward|topo_route.c|s/if \(u != src && !t->nodes\[u\].is_switch\)/if (0)/
no-groups|locate_fit.c|s/for \(b = a \+ 1; b < n \&\& colkey_same/for (b = a + 1; 0 \&\& colkey_same/
rank-blind|nnls.c|s/ident\[basis\[i\]\] = false;/;/
slow-without-mad|locate_name.c|s/fmax\(o->k_mad \* NAME_MAD_SIGMA \* sp\[\*used\]\.mad \* sqrt\(\(double\)size\),/fmax(0,/
negative-allowed|nnls.c|s/if \(alpha > 1\) \{/if (1) {/
ib-one-end|topo_ib.c|s/return topo_src_link\(s, line, a, port, b, rport, true\);/return topo_src_link(s, line, a, port, b, rport, false);/
no-misfit|locate.c|s/out->misfit = m > f->rank &&/out->misfit = 0 \&\&/
ecmp-first-path|locate.c|s/p->cf = p->nf > 1 \? -1 : 0;\n\t\tp->cb = p->nb > 1 \? -1 : 0;/p->cf = p->cb = 0;/
kinds-together|locate_name.c|s/int kind = link_fabric\(t, h->link\) \? KIND_FABRIC : KIND_HOST;/int kind = KIND_ALL;/
switch-as-links|locate_name.c|s/if \(n < 2 \|\| slow < n\)/if (1)/
lft-port-ignored|topo_paths.c|s/l = link_of\(t, v, port, -1\);/l = link_of(t, v, "", -1);/
routes-ignored|locate.c|s/if \(r->given\) \{/if (0) {/'

# cc OUT SRC: compile one file against the fabric headers in $T/inc.
cc() {
	# shellcheck disable=SC2086
	$LAYER_CC -I"$T/inc" -I"$SRC_DIR" -I"$TOP/tests/unit" -DTEST_DATA="\"$TOP/tests/data\"" \
		-c -o "$1" "$2" >"$T/build.log" 2>&1 ||
		{ echo "build failed:"; head -n 5 "$T/build.log"; return 2; }
}

# run_tests OBJDIR: the tests linked with the fabric objects in OBJDIR;
# 0 if all pass, 1 if one fails, 2 if they do not build.
run_tests() {
	for t in test_topo test_locate test_locate_paths; do
		# shellcheck disable=SC2086
		$LAYER_CC -o "$T/$t" "$T/$t.o" "$1"/*.o "$LAYER_LIBDIR/base/libbase.a" -lcmocka \
			$LAYER_EXT_LIBS >"$T/build.log" 2>&1 ||
			{ echo "link failed:"; head -n 5 "$T/build.log"; return 2; }
		"$T/$t" >"$T/$t.log" 2>&1 || return 1
	done
	return 0
}

# The unmutated layer, compiled once; a mutant recompiles its one file.
mkdir -p "$T/inc/fabric" "$T/obj"
cp "$SRC_DIR"/fabric/*.h "$T/inc/fabric/"
for f in "$SRC_DIR"/fabric/*.c; do
	cc "$T/obj/$(basename "$f" .c).o" "$f" || exit 1
done
for t in test_topo test_locate test_locate_paths; do
	cc "$T/$t.o" "$TOP/tests/unit/$t.c" || exit 1
done
run_tests "$T/obj"
rc=$?
[ $rc = 0 ] || { echo "FAIL: the unmutated fabric does not pass ($rc)"; cat "$T"/*.log | tail -n 20; exit 1; }

caught=0 total=0
while IFS='|' read -r name file sub; do
	[ -n "$name" ] || continue
	total=$((total + 1))
	rm -rf "$T/m"
	mkdir -p "$T/m"
	cp "$T/obj/"*.o "$T/m/"
	cp "$SRC_DIR/fabric/$file" "$T/m.c"
	if ! perl -0pi -e "\$n = ($sub); END { exit(\$n ? 0 : 1) }" "$T/m.c"; then
		echo "mutant $name: ERROR: the substitution did not apply to $file"
		continue
	fi
	if ! cc "$T/m/$(basename "$file" .c).o" "$T/m.c"; then
		echo "mutant $name: ERROR: did not build"
		continue
	fi
	run_tests "$T/m"
	case $? in
	0) echo "mutant $name: MISSED (the tests pass)" ;;
	1) echo "mutant $name: caught"; caught=$((caught + 1)) ;;
	*) echo "mutant $name: ERROR: did not build" ;;
	esac
done <<EOF_M
$mutants
EOF_M
echo "caught $caught of $total"
[ "$caught" = "$total" ]
