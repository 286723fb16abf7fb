# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# What every shell test here shares, sourced first:
#   . "$(dirname "$0")/test-lib.sh"
# It sets T (a directory of the test's own, named after it, removed on
# exit after on_exit, which a test may define again to stop what it
# started) and fails, and gives:
#   fail MESSAGE          count a failure and say it
T=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0" .sh).XXXXXX") || exit 1
fails=0

on_exit() {
	:
}
trap 'on_exit; rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
