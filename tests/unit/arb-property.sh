#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Every arbitration model against the reference simulator written apart
# from src/ (tests/arb_reference.py): 300 random configurations in every
# regime, each share within what the reference's finite window allows.
set -u
: "${RPERF:=src/rperf}"
: "${srcdir:=.}"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
exec python3 "$srcdir/tests/arb_reference.py" "$RPERF" 300
