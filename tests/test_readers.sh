# The reader table from the command line: a packed cube (mpilens compress) is read by info,
# cluster and report like the cube it was packed from. The reference is the original cube:
# the same processes, hosts and groups, statistics within the packing bound; and the input
# kinds of report (a trace is refused by name).
. tests/lib.sh
S=samples/cubes/synth32/network
P="$TMP/s32.lcz.nc"
export SOURCE_DATE_EPOCH=1700000000

check "compress the sample at 1%" "$BIN/mpilens" compress "$S" -o "$P" --max-error 0.01

# info: metadata equal, every min/median/max within 1% of the original's
"$BIN/mpilens" info --json "$S" >"$TMP/a.json" 2>/dev/null
check "info reads the packed cube" "$BIN/mpilens" info --json "$P"
"$BIN/mpilens" info --json "$P" >"$TMP/b.json" 2>/dev/null
got=$(/usr/bin/python3 - "$TMP/a.json" "$TMP/b.json" <<'PYEOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for k in ("procs", "mode", "lengths", "repeats", "hosts"):
    assert a[k] == b[k], k
assert set(a["stats"]) == set(b["stats"]) == {"average", "median", "deviation", "min"}
for s in a["stats"]:
    for q in ("min", "median", "max"):
        x, y = a["stats"][s][q], b["stats"][s][q]
        assert abs(x - y) <= 0.01 * abs(x) * (1 + 1e-12), (s, q, x, y)
print("ok")
PYEOF
)
check_eq "info: same metadata, statistics within the bound" "$got" "ok"
check_match "info names the packed layout" "$("$BIN/mpilens" info "$P" 2>/dev/null)" "layout: +packed cube"

# cluster: the cut gives the same groups (the sample's 4 nodes) from either input
"$BIN/mpilens" cluster "$S" --cut auto --clusters "$TMP/a.csv" 2>/dev/null
check "cluster reads the packed cube" "$BIN/mpilens" cluster "$P" --cut auto --clusters "$TMP/b.csv"
check "cluster: same groups" cmp "$TMP/a.csv" "$TMP/b.csv"
check_eq "cluster: 4 groups, as the sample's 4 nodes" "$(tail -n +2 "$TMP/b.csv" | cut -d, -f3 | sort -u | wc -l)" "4"
# one statistic at one length: what lens_cube_read_stats loads for cluster
"$BIN/mpilens" cluster "$S" --stat min --length 1024 --cut 4 --clusters "$TMP/ma.csv" 2>/dev/null
check "cluster --stat min --length 1024" "$BIN/mpilens" cluster "$P" --stat min --length 1024 --cut 4 --clusters "$TMP/mb.csv"
check "cluster --stat min --length 1024: same groups" cmp "$TMP/ma.csv" "$TMP/mb.csv"

# report: the packed cube gives a PDF whose structure section finds the same 4 groups
check "report reads the packed cube" "$BIN/mpilens" report "$P" -o "$TMP/p.pdf" --figures "$TMP/fig"
check "report: a PDF" test -s "$TMP/p.pdf"
check "report: structure figures" test -s "$TMP/fig/dendrogram.svg"
check "report: same bytes twice" sh -c "'$BIN/mpilens' report '$P' -o '$TMP/p2.pdf' 2>/dev/null && cmp '$TMP/p.pdf' '$TMP/p2.pdf'"

# convert and compress read it too (one table for every command)
check "convert a packed cube" "$BIN/mpilens" convert "$P" -o "$TMP/conv/network"
check "the converted cube reads" "$BIN/mpilens" info "$TMP/conv/network"
check "compress a packed cube again" "$BIN/mpilens" compress "$P" -o "$TMP/again.nc" --max-error 0.01

# a damaged packed file: an error naming it, never a crash or a fallback to another format
head -c 2000 "$P" >"$TMP/cut.lcz.nc"
check_exit "truncated packed cube: exit 1" 1 "$BIN/mpilens" info "$TMP/cut.lcz.nc"
check_match "truncated packed cube: names the file" "$(cat "$TMP/err")" "cut.lcz.nc"

# report's input kinds: a trace is refused with the command to use, a missing cube named
mkdir -p "$TMP/tr" && : >"$TMP/tr/traces.otf2"
check_exit "report on a trace: exit 1" 1 "$BIN/mpilens" report "$TMP/tr" -o "$TMP/t.pdf"
check_match "report on a trace: says which command" "$(cat "$TMP/err")" "OTF2 trace; 'mpilens problems"
check_exit "report on nothing: exit 1" 1 "$BIN/mpilens" report "$TMP/none/network" -o "$TMP/n.pdf"
check_match "report on nothing: the missing file" "$(cat "$TMP/err")" "none/network_median.nc: no such file"
check "no PDF after a failed input" test ! -e "$TMP/n.pdf"
finish test_readers
