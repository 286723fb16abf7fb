#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The source tree keeps its layering, in two ways:
# - its includes (scripts/check-layers): no folder includes a layer its
#   README's Uses: line leaves out, no include cycles;
# - its link: each layer is a library (Makefile.am), and each one links
#   whole with only the libraries of the layers its Uses: line names, so a
#   call that goes up a layer, or sideways to a layer it does not use, is
#   an undefined reference even where no header betrays it. A deliberate
#   upward call shows that both this check and the ordered link of the
#   rperf binary refuse it.
# Run by `make check` with SRC_DIR, LAYER_CC, LAYER_LIBDIR and
# LAYER_EXT_LIBS set.
SRC_DIR=${SRC_DIR:-src}
python3 "$SRC_DIR/../scripts/check-layers" "$SRC_DIR" || exit 1
[ -n "$LAYER_CC" ] && [ -n "$LAYER_LIBDIR" ] || {
	echo "FAIL: LAYER_CC and LAYER_LIBDIR are not set (run through make check)"
	exit 1
}
# shellcheck source=tests/unit/test-lib.sh
. "$(dirname "$0")/test-lib.sh"

# The layers LAYER's README lets it use, highest first (link order).
uses() {
	line=$(grep -i '^Uses:' "$SRC_DIR/$1/README" | head -n 1)
	out=
	for l in $ORDER; do
		case " $(echo "$line" | tr -c 'a-z_\n' ' ') " in
		*" $l "*) [ "$l" != "$1" ] && out="$l $out" ;;
		esac
	done
	echo "$out"
}

# link_whole LIBDIR LAYER: LAYER's library whole, with the libraries of
# the layers it uses. Prints the linker's complaints.
link_whole() {
	libs=
	for u in $(uses "$2"); do
		libs="$libs $1/$u/lib$u.a"
	done
	# shellcheck disable=SC2086
	$LAYER_CC -o "$T/a.out" "$T/main.o" -Wl,--whole-archive "$1/$2/lib$2.a" \
		-Wl,--no-whole-archive $libs $LAYER_EXT_LIBS 2>&1
}

# The layers, lowest first, as Makefile.am lists them (LAYER_LIBS_UP):
# every folder of src/ with a README is one, and no other; it links them
# in the reverse.
top=$SRC_DIR/../Makefile.am
up=$(sed -n '/^LAYER_LIBS_UP =/,/[^\\]$/p' "$top" | grep -o 'lib[a-z]*\.a' | sed 's/^lib//; s/\.a$//' | tr '\n' ' ')
down=$(sed -n '/^LAYER_LIBS =/,/[^\\]$/p' "$top" | grep -o 'lib[a-z]*\.a' | sed 's/^lib//; s/\.a$//' | tr '\n' ' ')
ORDER=$up
folders=$(for r in "$SRC_DIR"/*/README; do basename "$(dirname "$r")"; done | sort | tr '\n' ' ')
[ "$(echo $up | tr ' ' '\n' | sort | tr '\n' ' ')" = "$folders" ] ||
	fail "Makefile.am's LAYER_LIBS_UP is '$up', the layers of $SRC_DIR (a README each) '$folders'"
rev=$(for l in $ORDER; do echo "$l"; done | tac | tr '\n' ' ')
[ "$down" = "$rev" ] || fail "Makefile.am links '$down', want '$rev'"

echo 'int main(void) { return 0; }' >"$T/main.c"
$LAYER_CC -c -o "$T/main.o" "$T/main.c" || exit 1
for l in $ORDER; do
	[ -f "$LAYER_LIBDIR/$l/lib$l.a" ] || { fail "no $LAYER_LIBDIR/$l/lib$l.a"; continue; }
	link_whole "$LAYER_LIBDIR" "$l" >"$T/log" ||
		fail "layer $l does not link with only $(uses "$l"): $(grep -m 3 'undefined reference' "$T/log")"
done

# A deliberate upward call: base made to call criteria_failed() (flow).
mkdir -p "$T/lib/base"
for l in $ORDER; do
	mkdir -p "$T/lib/$l"
	cp "$LAYER_LIBDIR/$l/lib$l.a" "$T/lib/$l/"
done
cat >"$T/up.c" <<'C'
int criteria_failed(const void *cs);
int base_goes_up(void) { return criteria_failed((const void *)0); }
C
$LAYER_CC -c -o "$T/up.o" "$T/up.c" && ar r "$T/lib/base/libbase.a" "$T/up.o" 2>/dev/null || exit 1
if link_whole "$T/lib" base >"$T/log"; then
	fail "base calling criteria_failed (flow) linked"
else
	grep -q "undefined reference to .criteria_failed" "$T/log" ||
		fail "base's upward call failed for another reason: $(head -n 3 "$T/log")"
fi
# The same call through rperf's own ordered link: undefined too.
echo 'int base_goes_up(void); int main(void) { return base_goes_up(); }' >"$T/m2.c"
libs=
for l in $(echo $ORDER | tr ' ' '\n' | tac); do
	libs="$libs $T/lib/$l/lib$l.a"
done
# shellcheck disable=SC2086
if $LAYER_CC -o "$T/b.out" "$T/m2.c" $libs $LAYER_EXT_LIBS >"$T/log" 2>&1; then
	fail "the ordered link took base's upward call"
else
	grep -q "undefined reference to .criteria_failed" "$T/log" ||
		fail "the ordered link failed for another reason: $(head -n 3 "$T/log")"
fi
# And the check is not blind: the call going down, from engine to base, links.
cat >"$T/down.c" <<'C'
int units_parse_u64(const char *s, unsigned long long lo, unsigned long long hi,
		    unsigned long long *v);
int engine_goes_down(void) { unsigned long long v; return units_parse_u64("1", 0, 9, &v); }
C
$LAYER_CC -c -o "$T/down.o" "$T/down.c" && ar r "$T/lib/engine/libengine.a" "$T/down.o" 2>/dev/null || exit 1
link_whole "$T/lib" engine >"$T/log" || fail "engine calling base did not link: $(head -n 3 "$T/log")"

[ "$fails" = 0 ] && echo "layers: includes and links go down only (and an upward call fails to link)"
exit "$fails"
