#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The man pages (man/): no lint warning (groff -ww, and mandoc -T lint
# when installed), no alternating-font macro running words together, each
# command's options the same set in --help and in its page, every help
# text within 80 columns, and the EXAMPLES marked with '.\" example: DIR'
# run (in DIR of the source tree) with their output compared, so that a
# stale example fails. A marked block is
#	.\" example: tests/data
#	.nf
#	$ rperf analyze ...
#	expected standard output
#	.fi
# A command ending in 2>&1 is compared on its standard output and error
# together (an error message is the example).
# Run by `make check` with RPERF and TEST_TOP set.
RPERF=${RPERF:-src/rperf}
TOP=${TEST_TOP:-.}
MAN=$TOP/man
T=$(mktemp -d "${TMPDIR:-/tmp}/man.XXXXXX")
fails=0
trap 'rm -rf "$T"' EXIT
R=$(cd "$(dirname "$RPERF")" && pwd)/$(basename "$RPERF")

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# Lint.
for f in "$MAN"/*.[15]; do
	groff -ww -z -man "$f" >"$T/lint" 2>&1 || fail "$f: groff failed"
	[ -s "$T/lint" ] && fail "$f: groff warns: $(cat "$T/lint")"
	if command -v mandoc >/dev/null; then
		mandoc -T lint -W warning "$f" >"$T/lint" 2>&1
		[ -s "$T/lint" ] && fail "$f: mandoc warns: $(cat "$T/lint")"
	fi
done
command -v mandoc >/dev/null || echo "note: mandoc not installed; groff's lint only"

# .BR and its kind alternate fonts with no space between arguments: three
# plain words in a row render as one ("1:aruntimefailure").
python3 - "$MAN"/*.[15] >"$T/runs" <<'PY'
import re, sys
for path in sys.argv[1:]:
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        m = re.match(r"^\.(BR|RB|BI|IB|IR|RI) (.*)$", line.rstrip("\n"))
        if not m:
            continue
        args = re.findall(r'"[^"]*"|\S+', m.group(2))
        run = 0
        for a in args:
            run = run + 1 if re.fullmatch(r"[A-Za-z][A-Za-z',;:.()]*", a) else 0
            if run >= 3:
                print(f"{path}:{n}: words run together: {line.strip()}")
                break
PY
[ -s "$T/runs" ] && fail "$(cat "$T/runs")"

# Help texts within 80 columns.
for c in "" lat bw server analyze converge mesh agent; do
	# shellcheck disable=SC2086 # no command: rperf's own help
	"$RPERF" $c --help >"$T/help" 2>&1 || fail "rperf $c --help exited $?"
	awk 'length > 80 { print length ": " $0; bad = 1 } END { exit bad }' "$T/help" >"$T/wide" ||
		fail "rperf $c --help: over 80 columns: $(cat "$T/wide")"
done

# The options of --help and of the page: the same set. The page's are
# its definitions (the line after a .TP); every option of --help must be
# defined or named there.
for c in lat bw server analyze converge mesh agent; do
	page=$MAN/rperf-$c.1
	"$RPERF" "$c" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' |
		grep -oE -- '--[a-z0-9-]+' | sort -u >"$T/help.$c"
	awk '/^\.TP/ { tp = 1; next } tp && /^\.(B|BR|BI|I|IR) / { print } { tp = 0 }' "$page" |
		grep -oE '\\-\\-[a-z0-9][a-z0-9\\-]*' | sed 's/\\-/-/g' | sort -u >"$T/def.$c"
	grep -oE '\\-\\-[a-z0-9][a-z0-9\\-]*' "$page" | sed 's/\\-/-/g' | sort -u >"$T/all.$c"
	[ -s "$T/help.$c" ] || fail "rperf $c --help: no option found"
	missing=$(comm -23 "$T/help.$c" "$T/all.$c" | tr '\n' ' ')
	[ -z "$missing" ] || fail "$page: options of --help not in the page: $missing"
	extra=$(comm -13 "$T/help.$c" "$T/def.$c" | tr '\n' ' ')
	[ -z "$extra" ] || fail "$page: options defined that --help does not have: $extra"
done

# check_examples PAGE: run its marked examples; 0 when all match, else the
# differences on stdout.
check_examples() {
	python3 - "$1" "$TOP" "$R" <<'PY'
import re, shlex, subprocess, sys
page, top, rperf = sys.argv[1:4]
def unescape(s):
    return re.sub(r"\\f[BIRP]", "", s.replace("\\-", "-").replace("\\e", "\\").replace("\\&", ""))
lines = open(page, encoding="utf-8").read().split("\n")
bad = 0
i = 0
while i < len(lines):
    m = re.match(r'^\.\\" example: (\S+)$', lines[i])
    i += 1
    if not m:
        continue
    cwd, cmd, want, runs = f"{top}/{m.group(1)}", None, [], []
    while i < len(lines) and lines[i] not in (".fi", ".EE"):
        line = lines[i]
        i += 1
        if line.startswith("$ "):
            if cmd:
                runs.append((cmd, want))
            cmd, want = unescape(line[2:]), []
        elif cmd is not None and not re.match(r"^\.(RS|RE|nf|EX)\b", line):
            want.append(unescape(line))
    if cmd:
        runs.append((cmd, want))
    if not runs:
        print(f"{page}: a marked example with no '$ rperf' line")
        bad = 1
    for cmd, want in runs:
        argv = shlex.split(cmd)
        if argv[0] != "rperf":
            print(f"{page}: '{cmd}': not an rperf command")
            bad = 1
            continue
        merge = argv[-1] == "2>&1"
        got = subprocess.run([rperf] + argv[1:len(argv) - merge], cwd=cwd, text=True,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT if merge else subprocess.PIPE)
        if got.stdout.rstrip("\n").split("\n") != want:
            print(f"{page}: '{cmd}' prints (exit {got.returncode}):\n{got.stdout}{got.stderr or ''}"
                  f"the page says:\n" + "\n".join(want))
            bad = 1
sys.exit(bad)
PY
}

n=0
for f in "$MAN"/*.[15]; do
	check_examples "$f" >"$T/ex" 2>&1 || fail "stale example: $(cat "$T/ex")"
	grep -q '^\.\\" example:' "$f" && n=$((n + 1))
done
[ "$n" -ge 1 ] || fail "no page has a checked example"

# The check can fail: a page whose example no longer matches is caught.
sed 's/22\.50/99.99/' "$MAN/rperf.1" >"$T/stale.1"
check_examples "$T/stale.1" >"$T/ex" 2>/dev/null && fail "a stale example was not caught"
grep -q "the page says" "$T/ex" || fail "a stale example: no difference shown: $(cat "$T/ex")"
# And one whose message is on standard error (2>&1).
sed 's/from 0 to 15/from 0 to 16/' "$MAN/rperf-converge.1" >"$T/stale-err.1"
cmp -s "$MAN/rperf-converge.1" "$T/stale-err.1" && fail "rperf-converge.1: no scenario error example"
check_examples "$T/stale-err.1" >"$T/ex" 2>/dev/null && fail "a stale error example was not caught"

# rperf(1)'s OUTPUT names every schema shipped, the streams' included,
# and every command whose --help offers --json-stream.
for f in "$TOP"/schema/*.schema.json; do
	b=$(basename "$f" | sed 's/-/\\\\-/g')
	grep -q "$b" "$MAN/rperf.1" || fail "rperf.1 does not name $(basename "$f")"
done
for c in lat bw server agent analyze converge mesh; do
	"$RPERF" "$c" --help 2>/dev/null | grep -q -- '--json-stream' || continue
	sed -n '/^\.SH OUTPUT/,/^\.SH /p' "$MAN/rperf.1" | tr '\n' ' ' |
		grep -q "json\\\\-stream.* of [a-z, ]*$c" ||
		fail "rperf.1's OUTPUT does not say $c takes --json-stream"
done

# The CI job is examples/ci's, named by rperf-converge(1), copied nowhere.
grep -q 'examples/ci/github\\-actions.yml' "$MAN/rperf-converge.1" &&
	[ -f "$TOP/examples/ci/github-actions.yml" ] || fail "rperf-converge.1: no CI example named"
grep -l 'runs\\-on:' "$MAN"/*.[15] && fail "a page copies the CI job"

[ "$fails" -eq 0 ] && echo "man: all passed"
[ "$fails" -eq 0 ]
