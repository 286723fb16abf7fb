#!/bin/sh
# rperf-analyze(1)'s examples come from the current binary: every example
# block of the man page that shows a command and its output is run (in
# tests/data, where its input files are) and its standard output must be
# the page's, line for line. A stale example fails.
set -u
: "${RPERF:=src/rperf}"
: "${srcdir:=.}"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
case $RPERF in /*) ;; *) RPERF=$(pwd)/$RPERF ;; esac
exec python3 - "$srcdir/man/rperf-analyze.1" "$RPERF" "$srcdir/tests/data" <<'PY'
import shlex, subprocess, sys
page, rperf, data = sys.argv[1:4]
text = open(page).read()
text = text[text.index(".SH EXAMPLES"):text.index(".SH EXIT STATUS")]
blocks, cur = [], None
for line in text.split("\n"):
    if line == ".RS":
        cur = []
    elif line == ".RE" and cur is not None:
        blocks.append(cur)
        cur = None
    elif cur is not None:
        cur.append(line.replace("\\-", "-").replace("\\\\", "\\"))
ran = failed = 0
for b in blocks:
    cmds = [l for l in b if l.startswith("$ ")]
    if len(cmds) != 1 or b[0] != cmds[0] or len(b) < 2:
        continue          # commands shown without their output
    argv = shlex.split(b[0][2:])
    assert argv[:2] == ["rperf", "analyze"], b[0]
    got = subprocess.run([rperf] + argv[1:], cwd=data, capture_output=True,
                         text=True).stdout.rstrip("\n").split("\n")
    want = b[1:]
    ran += 1
    if got != want:
        failed += 1
        print(f"FAIL: the output of '{b[0][2:]}' is not the man page's:")
        for i in range(max(len(got), len(want))):
            g = got[i] if i < len(got) else "<none>"
            w = want[i] if i < len(want) else "<none>"
            if g != w:
                print(f"  line {i + 1}: page '{w}'\n          binary '{g}'")
print(f"{ran} examples run, {failed} differ")
sys.exit(1 if failed or ran < 4 else 0)
PY
