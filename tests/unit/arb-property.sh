#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Every arbitration model against the reference written apart from src/
# from the documents (tests/arb_reference.py): the examples of the
# analysis under partial load, saturated ports to an exact period
# (shares within 0.1 points, distances exact), ports under offered loads
# (within the bounds stated), every reading and packet-size choice inside
# rperf's range, DTable, and ETS against sch_ets's dequeue.
# RPERF_ARB_LONG=1 runs eight times the cases over longer windows.
set -u
: "${RPERF:=src/rperf}"
: "${srcdir:=.}"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
exec python3 "$srcdir/tests/arb_reference.py" "$RPERF" ${RPERF_ARB_LONG:+--long}
