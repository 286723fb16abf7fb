#!/usr/bin/env bash
# perftest's ib_send_lat runs between two hosts across the switch, on rxe.
. "$(dirname "$0")/lib.sh"

us=$(perftest_lat_us ib_send_lat h2 h1 64 200)
[ -n "$us" ] || fail "no latency figure from ib_send_lat"
echo "ib_send_lat h1 -> h2 through the switch: t_typical ${us} us (half round trip)"
awk -v us="$us" 'BEGIN { exit !(us > 0) }' || fail "t_typical '$us' is not positive"
