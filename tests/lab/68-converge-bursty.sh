#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A bursty bandwidth flow: h1 paced at 4 Mbit/s, on for 100 ms and off
# for 100 ms, into h3 in band 0 while h2 saturates band 1 (ETS 3:1, 10
# Mbit/s). What the destination received of it over its rate is its
# measured duty cycle: within 5 % of the configured 0.5. The bursty flow
# does not saturate its band, so the analysis takes what it carried and
# gives the rest to band 1; converge exits 0 (or 4: a share not judged).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"

"$LAB" egress h3 "rate=10mbit,ets=$TOP/examples/ets-3to1.txt"
trap 'stop_agents; cleanup' EXIT
start_agents

converge_ran bursty --tolerance 4 examples/converge-bursty.ini ||
	fail "converge exited $? with a bursty flow"
[ "$(step_jq bursty .cut_short)" = false ] || fail "step cut short"
duty=$(step_jq bursty '.flows[] | select(.name == "burst") | .measured_duty_cycle')
want=$(step_jq bursty '.flows[] | select(.name == "burst") | .duty_cycle')
echo "burst: measured duty cycle $duty, configured $want"
within_pct "$duty" "$want" 5 || fail "burst: measured duty cycle $duty, configured $want"
grep -q "^flow burst: duty cycle .* measured" "$WORK/bursty.out" || fail "the table has no duty-cycle line"
[ "$(step_jq bursty '.classes[] | select(.band == 0) | .saturating')" = false ] ||
	fail "the bursty flow's band was taken as saturating"
echo "converge: bursty flow's duty cycle within 5 % of on/off"
