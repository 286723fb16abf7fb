#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# What the README tells someone with an HCA, held against what it speaks
# of: the schema version against the schemas, the build dependencies
# against debian/control and rperf.spec, every rperf command line of the
# perftest table against that command's --help, the ports against the
# defaults each command states, and the JSON section against the commands
# whose --help offers --json or --json-stream. Run by `make check`.
. "$(dirname "$0")/cli-lib.sh"
README=$TOP/README.md

# The schema version the README states is the schemas' own.
want=$(jq -r '."$defs".schema_version.const' "$TOP/schema/common.schema.json")
got=$(sed -n 's/.*`schema_version` (now \([0-9]*\)).*/\1/p' "$README")
[ -n "$got" ] || fail "README: no \"schema_version (now N)\""
[ "$got" = "$want" ] || fail "README says schema_version $got, the schemas $want"

# Every build dependency of the Debian package is in the README's apt-get
# line, and every one of the RPM's in its dnf line.
apt=$(awk '/apt-get install build-essential/ { f = 1 } f { print } f && !/\\$/ { exit }' "$README")
[ -n "$apt" ] || fail "README: no apt-get line of build dependencies"
# Build-Depends items, one a line; alternatives (a | b) stay on one line;
# what only the package's own tests need (<!nocheck>) is left out.
while IFS= read -r item; do
	ok=0
	for p in ${item//|/ }; do
		grep -qw -- "$p" <<<"$apt" && ok=1
	done
	[ "$ok" = 1 ] || fail "README's apt-get line lacks $item (debian/control Build-Depends)"
done < <(awk '/^Build-Depends:/ { f = 1; sub(/^Build-Depends:/, ""); print; next }
	f && /^[ \t]/ { print; next } { f = 0 }' "$TOP/debian/control" | tr ',' '\n' | grep -v 'nocheck>' | sed 's/([^)]*)//g; s/^[ \t]*//; s/[ \t]*$//' |
	grep -v '^debhelper-compat$\|^$')
dnf=$(awk '/^    dnf install/ { f = 1 } f { print } f && !/\\$/ { exit }' "$README")
[ -n "$dnf" ] || fail "README: no dnf line of build dependencies"
for p in $(sed -n 's/^BuildRequires://p' "$TOP/rperf.spec" |
	sed 's/pkgconfig(\([a-z]*\))/\1-devel/g' | tr ' ' '\n' | grep -v '^$\|rpm-macros$'); do
	grep -qw -- "$p" <<<"$dnf" || fail "README's dnf line lacks $p (rperf.spec BuildRequires)"
done

# Each rperf command line in the perftest table: its options are in the
# command's --help.
n=0
while IFS= read -r cmd; do
	sub=$(awk '{ print $2 }' <<<"$cmd")
	"$RPERF" "$sub" --help >"$T/help" 2>&1 || fail "rperf $sub --help failed"
	for o in $(grep -oE -- ' -(-[a-z0-9-]+|[a-zA-Z])' <<<" ${cmd#rperf "$sub"}"); do
		grep -qE -- "(^|[ ,])$o([ ,=]|$)" "$T/help" || fail "README's '$cmd': rperf $sub has no $o"
	done
	n=$((n + 1))
done < <(sed -n 's/^| `ib_[a-z_]* [^`]*` | `\(rperf [^`]*\)` |.*/\1/p' "$README")
[ "$n" -ge 8 ] || fail "README's perftest table: $n rperf command lines, expected 8 or more"

# The ports the README names are the defaults the commands state.
for pair in "server:18520:--port" "agent:18530:--port"; do
	IFS=: read -r sub port opt <<<"$pair"
	"$RPERF" "$sub" --help 2>&1 | grep -- "$opt" | grep -q "default $port" ||
		grep -q "default $port" "$TOP/man/rperf-$sub.1" ||
		fail "rperf $sub: the default $opt is not $port"
	grep -q "$port" "$README" || fail "README does not name port $port ($sub)"
done
grep -q '18540' "$TOP/man/rperf-scenario.5" && grep -q '18540' "$README" ||
	fail "the data port 18540: not in README and rperf-scenario(5) both"

# Every command that offers --json or --json-stream is named in the
# README's JSON section, in the list of that output.
json_sec=$(awk '/^## JSON outputs/ { f = 1; next } f && /^## / { exit } f' "$README" | tr '\n' ' ')
for out in json json-stream; do
	list=$(grep -oE -- "--$out\` [a-z ]*\(([a-z, -]*)" <<<"$json_sec" | sed 's/.*(//')
	[ -n "$list" ] || fail "README's JSON section: no list of the commands with --$out"
	for sub in $("$RPERF" --help | sed -n 's/^  \([a-z]*\)   .*/\1/p'); do
		"$RPERF" "$sub" --help 2>&1 | grep -qE -- "--$out([ ,=]|$)" || continue
		grep -qw "$sub" <<<"$list" || fail "README's JSON section: --$out lacks $sub"
	done
done

finish "README: schema version $want, build dependencies, $n perftest rows and the ports hold"
