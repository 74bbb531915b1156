#!/usr/bin/env bash
# mpilens stages LOG [--baseline OLD] -o FILE.pdf: read back with pdftotext, the side-by-side
# table holds every stage of both logs (also a stage only one log has) with tasks, means and
# the change of the mean recomputed here from the JSON lines (per-node clocks: a stay is timed
# only when both its records name the same node), as is the one-log stage table; without a
# baseline there is no comparison page; the PDF is byte-identical under SOURCE_DATE_EPOCH; bad
# options are usage errors and a failure (template, output path) leaves no file.
. tests/lib.sh
PY=${PYTHON:-/usr/bin/python3}
M="$BIN/mpilens"
export SOURCE_DATE_EPOCH=1795219200
OLD=samples/stages/luna_sim.jsonl
NEW=samples/stages/luna_sim_v2.jsonl

# The reference: per log, per stage, the tasks with measured time > 0, their mean and max
# seconds, formatted as the report prints them (%.4g), and the change of the mean in percent
# (%+.1f %), a dash when either log timed no task in the stage. Rows: the new log's stages in
# order of first appearance, then the stages only the baseline has.
cat >"$TMP/ref.py" <<'EOF'
import collections, json, sys
def stats(path):
    recs, order = collections.defaultdict(list), []
    for line in open(path):
        if not line.strip(): continue
        r = json.loads(line)
        recs[r["task"]].append((r["t"], r["stage"], r["node"]))
        if r["stage"] not in order: order.append(r["stage"])
    per = collections.defaultdict(lambda: collections.defaultdict(float))
    for task, rs in recs.items():
        rs.sort(key=lambda x: x[0])
        for (a, s, n), (b, _, m) in zip(rs, rs[1:]):
            if n == m: per[s][task] += b - a
    out = {}
    for s in order:
        v = [x for x in per[s].values() if x > 0]
        out[s] = (len(v), sum(v) / len(v) if v else 0.0, max(v) if v else 0.0)
    return order, out
g = lambda x: "%.4g" % x
mode = sys.argv[1]
if mode == "one":
    order, st = stats(sys.argv[2])
    for s in order:
        print(" ".join([s, str(st[s][0]), g(st[s][1]), g(st[s][2])]))
else:
    ob, b = stats(sys.argv[2]); on, n = stats(sys.argv[3])
    for s in on + [x for x in ob if x not in on]:
        tb, mb, xb = b.get(s, (0, 0.0, 0.0)); tn, mn, xn = n.get(s, (0, 0.0, 0.0))
        ch = "%+.1f %%" % (100 * (mn - mb) / mb) if tb and tn and mb > 0 else "-"
        print(" ".join([s, "%d -> %d" % (tb, tn), g(mb), g(mn), ch, g(xb), g(xn)]))
EOF
# rows NAME PDF PAGE FIRST...: the table rows of one page that start with a stage name,
# spaces squeezed
rows() {
    pdftotext -layout -f "$2" -l "$2" "$1" - 2>/dev/null | sed -E 's/^ +//; s/ +/ /g; s/ +$//' |
        grep -E "^($3) "
}

# ---- the demo's pair: two revisions of the simulated runtime
"$M" stages "$NEW" --baseline "$OLD" -o "$TMP/c.pdf" >"$TMP/c.txt" 2>"$TMP/err"
check_eq "compare -o: exit" "$?" 0
check_match "compare -o: the text output still printed" "$(cat "$TMP/c.txt")" "^baseline: $OLD"
check_eq "compare -o: poppler has no warning" "$(pdftotext "$TMP/c.pdf" - 2>&1 >/dev/null)" ""
check_eq "compare -o: four pages" "$(pdfinfo "$TMP/c.pdf" | awk '/^Pages:/ { print $2 }')" 4
# page 3 is "Two logs side by side"
check_match "page 3: the heading" "$(pdftotext -f 3 -l 3 "$TMP/c.pdf" - 2>/dev/null)" "^Two logs side by side"
want=$($PY "$TMP/ref.py" two "$OLD" "$NEW")
check_eq "side-by-side rows: stages, tasks, means, change, max as computed from the logs" \
    "$(rows "$TMP/c.pdf" 3 'distribute|wait|execute|done')" "$want"
# the change column by hand for the wait stage: 0.02627 -> 0.0108 s is -58.9 %
check_match "wait: the change of the mean" "$(rows "$TMP/c.pdf" 3 wait)" "^wait 114 -> 124 0\.02627 0\.0108 -58\.9 % "
check_match "page 3: both logs named" "$(pdftotext -f 3 -l 3 "$TMP/c.pdf" - 2>/dev/null | tr -s ' \n' '  ')" \
    "The baseline $OLD .* against the new log $NEW"
check_match "page 3: tasks and waits of both" "$(pdftotext -layout -f 3 -l 3 "$TMP/c.pdf" - 2>/dev/null)" \
    "waited for inputs +114 -> 124"
check_match "page 3: the figure's caption" "$(pdftotext -f 3 -l 3 "$TMP/c.pdf" - 2>/dev/null | tr -s ' \n' '  ')" \
    "Figure 2: tasks in each stage against the time since each log began; the baseline dashed"
check_eq "page 3: one image (the overlay)" "$(pdfimages -f 3 -l 3 -list "$TMP/c.pdf" | tail -n +3 | wc -l)" 1
# page 2: the new log alone, as the text output of the new log gives it
want=$($PY "$TMP/ref.py" one "$NEW")
check_eq "page 2: the new log's stage table" "$(rows "$TMP/c.pdf" 2 'distribute|wait|execute|done' | cut -d' ' -f1-4)" "$want"
check_match "title page: both logs" "$(pdftotext -layout -f 1 -l 1 "$TMP/c.pdf" - 2>/dev/null)" "baseline +$OLD"
check "byte-identical under SOURCE_DATE_EPOCH" sh -c "'$M' stages '$NEW' --baseline '$OLD' -o '$TMP/c2.pdf' >/dev/null && cmp -s '$TMP/c.pdf' '$TMP/c2.pdf'"

# ---- logs whose stages differ: a stage only the baseline has and one only the new log has
# appear both, with a dash for the change; times by hand below
cat >"$TMP/a.jsonl" <<'EOF'
{"task": 1, "stage": "load", "t": 0.0, "node": 0}
{"task": 1, "stage": "old_sort", "t": 1.0, "node": 0}
{"task": 1, "stage": "run", "t": 1.5, "node": 0}
{"task": 1, "stage": "done", "t": 3.5, "node": 0}
{"task": 2, "stage": "load", "t": 0.5, "node": 1}
{"task": 2, "stage": "run", "t": 2.5, "node": 1}
{"task": 2, "stage": "done", "t": 4.5, "node": 1}
EOF
cat >"$TMP/b.jsonl" <<'EOF'
{"task": 1, "stage": "load", "t": 0.0, "node": 0}
{"task": 1, "stage": "run", "t": 0.5, "node": 0}
{"task": 1, "stage": "new_pack", "t": 1.5, "node": 0}
{"task": 1, "stage": "done", "t": 1.75, "node": 0}
{"task": 2, "stage": "load", "t": 0.5, "node": 1}
{"task": 2, "stage": "run", "t": 1.0, "node": 1}
{"task": 2, "stage": "done", "t": 3.0, "node": 1}
EOF
"$M" stages "$TMP/b.jsonl" --baseline "$TMP/a.jsonl" -o "$TMP/d.pdf" >/dev/null 2>"$TMP/err"
check_eq "differing stages: exit" "$?" 0
# load: (1 + 2) / 2 = 1.5 s -> (0.5 + 0.5) / 2 = 0.5 s, -66.7 %; run: (2 + 2) / 2 = 2 ->
# (1 + 2) / 2 = 1.5, -25.0 %; new_pack: only new (0.25 s); old_sort: only the baseline (0.5 s)
check_eq "differing stages: every stage of both logs, the change by hand" \
    "$(rows "$TMP/d.pdf" 3 'load|run|new_pack|done|old_sort')" \
    "load 2 -> 2 1.5 0.5 -66.7 % 2 0.5
run 2 -> 2 2 1.5 -25.0 % 2 2
new_pack 0 -> 1 0 0.25 - 0 0.25
done 0 -> 0 0 0 - 0 0
old_sort 1 -> 0 0.5 0 - 0.5 0"
check_eq "differing stages: the reference agrees" "$(rows "$TMP/d.pdf" 3 'load|run|new_pack|done|old_sort')" \
    "$($PY "$TMP/ref.py" two "$TMP/a.jsonl" "$TMP/b.jsonl")"

# ---- one log: no comparison page
"$M" stages "$OLD" -o "$TMP/one.pdf" >/dev/null 2>"$TMP/err"
check_eq "one log: exit" "$?" 0
check_eq "one log: no comparison page" "$(pdftotext "$TMP/one.pdf" - 2>/dev/null | grep -c 'Two logs side by side' || true)" 0
check_match "one log: no baseline on the title page" "$(pdftotext -layout -f 1 -l 1 "$TMP/one.pdf" - 2>/dev/null)" \
    "baseline +none \(one log"
check_eq "one log: stage table" "$(rows "$TMP/one.pdf" 2 'distribute|wait|execute|done' | cut -d' ' -f1-4)" \
    "$($PY "$TMP/ref.py" one "$OLD")"
check_match "one log: the clock caveat" "$(pdftotext -f 1 -l 1 "$TMP/one.pdf" - 2>/dev/null | tr -s ' \n' '  ')" \
    "284 stays began and ended on different nodes: counted, not timed"
check "one log: --json with -o" sh -c "'$M' stages '$OLD' --json -o '$TMP/j.pdf' | $PY -c 'import json,sys; json.load(sys.stdin)' && test -s '$TMP/j.pdf'"

# ---- usage and failures: nothing is left behind
check_exit "--title without -o: usage" 2 "$M" stages "$OLD" --title x
check_match "--title without -o: says so" "$(cat "$TMP/err")" "go with -o FILE.pdf"
check_exit "--template without -o: usage" 2 "$M" stages "$OLD" --template x
sed 's/^column right 0.12 change$//' templates/stages_report.tmpl >"$TMP/six.tmpl"
check_exit "six-column compare table: status 1" 1 "$M" stages "$NEW" --baseline "$OLD" -o "$TMP/six.pdf" \
    --template "$TMP/six.tmpl"
check_match "six-column compare table: names file and line" "$(cat "$TMP/err")" "six.tmpl:[0-9]+: table 'compare' needs 7 columns"
check "six-column compare table: no PDF" test ! -e "$TMP/six.pdf"
check_exit "missing directory: status 1" 1 "$M" stages "$OLD" -o "$TMP/nope/x.pdf"
check_match "missing directory: names the file" "$(cat "$TMP/err")" "$TMP/nope/x.pdf"
check_exit "missing template: status 1" 1 "$M" stages "$OLD" -o "$TMP/t.pdf" --template "$TMP/none.tmpl"
check "missing template: no PDF" test ! -e "$TMP/t.pdf"
check "missing template: no temporary file" sh -c "! ls -a '$TMP' | grep -q '^\.t\.pdf'"
finish test_stages_pdf
