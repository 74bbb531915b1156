# mpilens links: the known link classes of a 2 nodes x 2 sockets synthetic machine through the
# command, its CSV and JSON outputs, the same bytes on 1 and 2 threads, and its errors.
. tests/lib.sh
PY=/usr/bin/python3
"$BIN/mpilens" synth -o "$TMP/m/n" --procs 16 --nodes 2 --sockets 2 --seed 4711 2>/dev/null
check "links with CSV outputs" "$BIN/mpilens" links "$TMP/m/n" --csv "$TMP/l.csv" --clusters "$TMP/c.csv"
out=$("$BIN/mpilens" links "$TMP/m/n")
check_match "text: 240 links, diagonal left out" "$out" "^240 links of 16 processes \(diagonal left out\)"
check_match "text: scree elbow at 3" "$out" "scree elbow: 3 clusters"
check_eq "links.csv: header + 240 rows" "$(wc -l <"$TMP/l.csv")" "241"
check_eq "links.csv: header" "$(head -n 1 "$TMP/l.csv")" "row,col,cluster"
check_eq "links.csv: class sizes" "$(tail -n +2 "$TMP/l.csv" | cut -d, -f3 | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')" "0:48 1:64 2:128 "
# same socket (ranks 0-3) -> cluster 0, other socket same node -> 1, other node -> 2
check_eq "links.csv: 1,2 same socket" "$(grep -c '^1,2,0$' "$TMP/l.csv")" "1"
check_eq "links.csv: 1,5 other socket" "$(grep -c '^1,5,1$' "$TMP/l.csv")" "1"
check_eq "links.csv: 12,3 other node" "$(grep -c '^12,3,2$' "$TMP/l.csv")" "1"
check_match "clusters.csv: header" "$(head -n 1 "$TMP/c.csv")" "^cluster,size,diameter,same_host,mean_0,mean_512,.*,mean_4096$"
check_eq "clusters.csv: 3 rows" "$(wc -l <"$TMP/c.csv")" "4"
check_match "clusters.csv: other node" "$(sed -n 4p "$TMP/c.csv")" "^2,128,[0-9.e+-]+,0,1\.9[0-9]*e-06,"

"$BIN/mpilens" links --json "$TMP/m/n" >"$TMP/l.json"
got=$($PY - "$TMP/l.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
lab = d["labels"]
assert len(lab) == 16 and all(len(r) == 16 for r in lab)
assert all(lab[i][i] == -1 for i in range(16))
assert sum(c["size"] for c in d["clusters"]) == 240 == d["links"]
assert len(d["clusters"][0]["mean"]) == len(d["lengths"]) == 9
print(d["k"], d["elbow"], [c["size"] for c in d["clusters"]], [c["same_host"] for c in d["clusters"]])
PYEOF
)
check_eq "json" "$got" "3 3 [48, 64, 128] [1, 1, 0]"

# the result does not depend on the number of threads
"$BIN/mpilens" synth -o "$TMP/b/n" --procs 48 --nodes 4 --slow-node 1 --bad-link 5,30 2>/dev/null
"$BIN/mpilens" links "$TMP/b/n" --threads 1 --csv "$TMP/t1.csv" --clusters "$TMP/t1c.csv" >"$TMP/t1.txt"
"$BIN/mpilens" links "$TMP/b/n" --threads 2 --csv "$TMP/t2.csv" --clusters "$TMP/t2c.csv" >"$TMP/t2.txt"
check "1 and 2 threads: same links.csv" cmp "$TMP/t1.csv" "$TMP/t2.csv"
check "1 and 2 threads: same clusters.csv" cmp "$TMP/t1c.csv" "$TMP/t2c.csv"
check "1 and 2 threads: same text" cmp "$TMP/t1.txt" "$TMP/t2.txt"
# the bad link 5->30 (row 30, column 5) is a cluster of its own
check_eq "bad link alone" "$(awk -F, -v c="$(grep '^30,5,' "$TMP/t1.csv" | cut -d, -f3)" '$3 == c' "$TMP/t1.csv" | wc -l)" "1"
check_match "-k 5" "$("$BIN/mpilens" links -k 5 "$TMP/b/n")" "cut at 5 clusters"

# errors: nothing written, exit 1 naming the file; usage errors exit 2
check_exit "missing input" 1 "$BIN/mpilens" links "$TMP/none/n" --csv "$TMP/x.csv"
check_match "missing input named" "$(cat "$TMP/err")" "none/n"
check "no CSV written on failure" test ! -e "$TMP/x.csv"
check_exit "unwritable CSV" 1 "$BIN/mpilens" links "$TMP/m/n" --csv "$TMP/no/such/dir/l.csv"
check_match "unwritable CSV named" "$(cat "$TMP/err")" "no/such/dir/l.csv"
check_exit "bad -k" 2 "$BIN/mpilens" links -k 0 "$TMP/m/n"
check_exit "bad --threads" 2 "$BIN/mpilens" links --threads 9 "$TMP/m/n"
check_exit "bad --max-splits" 2 "$BIN/mpilens" links --max-splits x "$TMP/m/n"
check_exit "no input" 2 "$BIN/mpilens" links
check_exit "help" 0 "$BIN/mpilens" links --help
check_match "help example" "$(cat "$TMP/out")" "example:"
# the sample's bad link 3->17 is a cluster of one: "1 link", its times in µs (common/units.h)
one=$("$BIN/mpilens" links samples/cubes/synth32/network | awk '$2 == 1')
check_match "a cluster of one link in the singular" "$one" " 1 link \(0%\), .* µs at 4096 B; e\.g\. 17,3$"
check_eq "no 'us' unit and no '1 links' in the text" \
    "$("$BIN/mpilens" links samples/cubes/synth32/network | grep -cE ' us | 1 links ')" 0
finish test_links_cli
