#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# perftest's ib_send_lat runs between two hosts across the switch, on rxe.
# In this lab its doubled t_typical was 1.9 to 3 times wire round trips of
# 2 to 13 ms (idle, 64 B; docs/accuracy.md): a half round trip of 2 to
# 20 ms. Beyond 50 ms something is wrong.
. "$(dirname "$0")/lib.sh"

MAX_US=50000

us=$(perftest_lat_us ib_send_lat h2 h1 64 200)
[ -n "$us" ] || fail "no latency figure from ib_send_lat"
echo "ib_send_lat h1 -> h2 through the switch: t_typical ${us} us (half round trip)"
awk -v us="$us" 'BEGIN { exit !(us > 0) }' || fail "t_typical '$us' is not positive"
awk -v us="$us" -v max="$MAX_US" 'BEGIN { exit !(us <= max) }' ||
	fail "t_typical ${us} us, above ${MAX_US} us (Soft-RoCE here: 2 to 20 ms)"
