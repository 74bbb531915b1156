#!/usr/bin/env bash
# The bounds of the text readers through the commands (docs/problems.md, "Limits of the text
# readers"): the fuzzer's rule reproducers (100,000 nested parentheses, 'not's and unary '-'s,
# a 10 MB sum) give file:line:col naming the depth limit and exit 1, never a crash; the
# profile and runs readers refuse a line over 1 MiB with file:line. The C tests check the
# exact columns (test_rules.c) and each reader's edges (test_text_limits.c, test_runs.c).
. tests/lib.sh
PY=/usr/bin/python3
M=$BIN/mpilens
TRACE=$DATA/otf2/casita-4_mpi_ls_barr

mkdir -p "$TMP/r"
for kind in paren not neg sum; do
    $PY - "$TMP/r/deep.rules" "$kind" <<'EOF'
import sys
path, kind = sys.argv[1], sys.argv[2]
n = 100000
expr = {"paren": "(" * n + "s.enter" + ")" * n,
        "not": "not " * n + "true",
        "neg": "-" * n + "s.enter",
        "sum": " + ".join(["s.enter"] * (10 * 1000 * 1000 // 10))}[kind]
with open(path, "w") as f:
    f.write("# fuzzer reproducer: %s\n" % kind)
    f.write("declare composite event deep member (send as s, recv as r)\n")
    f.write("parameters (x = %s);\n" % expr)
EOF
    check_exit "rules: 100000-deep $kind" 1 "$M" problems --rules "$TMP/r" "$TRACE"
    check_match "rules: $kind names file:line:col and the limit" "$(cat "$TMP/err")" \
        "deep.rules:3:[0-9]+: expression nested deeper than 256 levels"
done

# profile CSV and runs CSV: a line of 1 MiB + 1 byte
$PY -c 'print("0," + "f" * (1 << 20) + ",1")' >"$TMP/p.csv"
check_exit "profile: line over 1 MiB" 1 "$M" profile-clusters "$TMP/p.csv"
check_match "profile: names file:line" "$(cat "$TMP/err")" "p.csv:1: line longer than 1048576 bytes"
$PY -c 'print("app,procs,size,efficiency"); print("a" * (1 << 20) + ",1,10,0.5")' >"$TMP/runs.csv"
check_exit "runs: line over 1 MiB" 1 "$M" scale marks "$TMP/runs.csv"
check_match "runs: names file:line" "$(cat "$TMP/err")" "runs.csv:2:1: line longer than 1048576 bytes"

finish test_parser_limits
