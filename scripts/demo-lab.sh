#!/usr/bin/env bash
# Run by scripts/demo inside `scripts/lab run`: a server on h2, rperf lat on
# h1, results in .lab/vm/h1/results/lat.json.
set -euo pipefail
LAB=${RPERF_LAB:?run me through scripts/lab run}
TOP=$(cd "$(dirname "$0")/.." && pwd)
"$LAB" sh h2 "$TOP/src/rperf server --duration 60 >\$RPERF_LAB_RESULTS/server.txt 2>&1" &
server=$!
"$LAB" sh h1 "sleep 1; $TOP/src/rperf lat --clock=monotonic --yield -n 2000 -s 64,4096 --json \$RPERF_LAB_RESULTS/lat.json h2"
kill "$server" 2>/dev/null || true
echo "JSON: $TOP/.lab/vm/h1/results/lat.json"
