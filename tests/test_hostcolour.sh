#!/usr/bin/env bash
# One colour per host (render/fig/hostcolour.h) and legends of drawn classes only. Two cubes
# whose ranks sit on their hosts in different orders go into one report; the colours are read
# back from the SVG figures (the NJ tree's leaf branches, found through its text layer, the
# link map's host bands, found from its diagonal cells, and the tree-ordered heatmap's host
# bands, its rows named by the dendrogram's leaf labels) and must be one per host across
# the figures and both inputs: the tab10 entry of the host's place among the report's sorted
# host names, written out here independently. Then a one-node p2p sweep's caption keys no
# squares "across nodes".
. tests/lib.sh
PY=/usr/bin/python3
export SOURCE_DATE_EPOCH=1715860800
S32=samples/cubes/synth32/network

# A: synth32 with its four hosts renamed so rank order is node03, node01, node04, node02 (first
# appearance and sorted order disagree); B: node04 renamed node00, which sorts before all.
mkdir -p "$TMP/a" "$TMP/b"
for x in a b; do cp "$S32"_*.nc "$TMP/$x/"; done
sed 's/node01/X3/; s/node02/X1/; s/node03/X4/; s/node04/X2/; s/X/node0/' "${S32}_hosts.txt" >"$TMP/a/network_hosts.txt"
sed 's/node04/node00/' "${S32}_hosts.txt" >"$TMP/b/network_hosts.txt"
check_eq "A's hosts in rank order" "$(uniq "$TMP/a/network_hosts.txt" | tr '\n' ' ')" "node03 node01 node04 node02 "

# The colours each figure gives each host, as "host r,g,b" lines; "MIXED host" when a host
# has two colours in one figure, "NONE" when no host colour was found.
cat >"$TMP/colours.py" <<'EOF'
import re, sys
kind, svg, hosts_file = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
hosts = open(hosts_file).read().split()
P = len(hosts)
# rows of the map: rank order (link map), or the tree order of the dendrogram's leaf labels
# ("node03:17", left to right) for the heatmap reordered by the tree
rows = hosts
if kind == "heat" and len(sys.argv) > 4:
    leaves = re.findall(r'<text x="([\d.]+)"[^>]*>[^<:]*:(\d+)</text>', open(sys.argv[4]).read())
    rows = [hosts[int(r)] for x, r in sorted(leaves, key=lambda t: float(t[0]))]
    if len(rows) != P:
        print("ORDER", len(rows))
def rgb(style, key):
    m = re.search(r'(?<![-\w])' + key + r':rgb\(([\d.]+)%,([\d.]+)%,([\d.]+)%\)', style)
    return tuple(round(float(v) * 2.55) for v in m.groups()) if m else None
paths = [(s, [float(v) for v in re.findall(r'-?[\d.]+', d)]) for s, d in re.findall(r'<path style="([^"]*)" d="([^"]*)"', svg)]
seen = {}
def put(h, c):
    if seen.setdefault(h, c) != c:
        print("MIXED", h)
if kind == "dendro":
    # leaf label "node03:17": its glyphs are the <g fill> group whose first glyph starts where
    # the text layer's copy starts; label colours are the host colour darkened to 0.72
    at = {(round(float(x), 1), round(float(y), 1)): t
          for x, y, t in re.findall(r'<text x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*:\d+)</text>', svg)}
    for st, x, y in re.findall(r'<g style="([^"]*)">\s*<use xlink:href="[^"]*" x="([-\d.]+)" y="([-\d.]+)"', svg):
        t = at.get((round(float(x), 1), round(float(y), 1)))
        m = re.search(r'fill:rgb\(([\d.]+)%,([\d.]+)%,([\d.]+)%\)', st)
        if t and m:
            put(t.split(":")[0], tuple(round(float(v) * 2.55 / 0.72) for v in m.groups()))
elif kind == "nj":
    # leaf label "node03:17" (text layer, baseline in device units); its leaf branch is the
    # horizontal stroke ending left of the label, level with the label's middle
    lines = [(rgb(s, "stroke"), n) for s, n in paths if rgb(s, "stroke") and len(n) == 4 and n[1] == n[3]]
    for x, y, size, text in re.findall(r'<text x="([\d.]+)" y="([\d.]+)" font-size="([\d.]+)"[^>]*>([^<]*)</text>', svg):
        x, y, size = float(x), float(y), float(size)
        if ":" not in text:
            continue
        near = [(n[2], c) for c, n in lines if n[2] <= x and abs(n[1] - (y - 0.35 * size)) < 0.5 * size]
        if near:
            put(text.split(":")[0], max(near)[1])
else:
    rects = []
    for s, n in paths:
        c = rgb(s, "fill")
        if c and len(n) >= 8:
            xs, ys = n[0:8:2], n[1:8:2]
            rects.append((c, min(xs), min(ys), max(xs), max(ys)))
    # the diagonal cells: P squares of the diagonal grey (link map) or the missing-cell grey
    # (heatmap, diagonal hidden) on one line x - y = const
    grey = (191, 191, 191) if kind == "heat" else (228, 228, 228)
    diag = {}
    for c, x0, y0, x1, y1 in rects:
        if c == grey:
            diag.setdefault(round(x0 - y0, 1), []).append((x0, y0))
    cells = [v for v in diag.values() if len(v) == P]
    if cells:
        mx, my = min(v[0] for v in cells[0]), min(v[1] for v in cells[0])
        cw = (max(v[0] for v in cells[0]) - mx) / (P - 1)
        for c, x0, y0, x1, y1 in rects:
            # left band: ends at the map's left edge; bottom band: starts at its bottom edge
            if x1 <= mx + 0.01 and x0 < mx and y0 >= my - 0.01:
                span = range(round((y0 - my) / cw), round((y1 - my) / cw))
            elif abs(y0 - (my + P * cw)) < 0.05 and x0 >= mx - 0.01:
                span = range(round((x0 - mx) / cw), round((x1 - mx) / cw))
            else:
                continue
            for r in span:
                put(rows[r], c)
if not seen:
    print("NONE")
for h in sorted(seen):
    print(h, "%d,%d,%d" % seen[h])
EOF
colours() { $PY "$TMP/colours.py" "$@"; }
# matplotlib's tab10 without its grey (the tree figures' palette), by the sorted host index
TAB=(31,119,180 255,127,14 44,160,44 214,39,40 148,103,189 140,86,75 227,119,194 188,189,34 23,190,207)
expect() { local i=0 out=""; for h in "$@"; do out+="$h ${TAB[$i]}"$'\n'; i=$((i + 1)); done; printf '%s' "$out"; }

check "report A B" "$BIN/mpilens" report "$TMP/a/network" "$TMP/b/network" -o "$TMP/r.pdf" --figures "$TMP/fig"
# the report's hosts, sorted: node00 (B only), node01..node03 (both), node04 (A only)
all=$(expect node00 node01 node02 node03 node04)
ref_a=$(printf '%s\n' "$all" | grep -v '^node00')
ref_b=$(printf '%s\n' "$all" | grep -v '^node04')
for k in 1 2; do
    x=$([ $k = 1 ] && echo a || echo b)
    ref=$([ $k = 1 ] && echo "$ref_a" || echo "$ref_b")
    got=$(colours dendro "$TMP/fig/input${k}_dendrogram.svg" "$TMP/$x/network_hosts.txt" 2>&1)
    check_eq "input $k dendrogram: leaf labels in their host's colour" "$got" "$ref"
    for f in nj_tree link_clusters; do
        svg="$TMP/fig/input${k}_$f.svg"
        got=$(colours $([ $f = nj_tree ] && echo nj || echo map) "$svg" "$TMP/$x/network_hosts.txt" 2>&1)
        check_eq "input $k $f: one colour per host, the sorted report-wide index" "$got" "$ref"
    done
    got=$(colours heat "$TMP/fig/input${k}_structure_heatmap.svg" "$TMP/$x/network_hosts.txt" \
        "$TMP/fig/input${k}_dendrogram.svg" 2>&1)
    check_eq "input $k heatmap in tree order: host bands as the NJ tree" "$got" "$ref"
    got=$(colours heat "$TMP/fig/input${k}_heatmap_median_4096B.svg" "$TMP/$x/network_hosts.txt" 2>&1)
    check_eq "input $k heatmap of one length, rank order: the same host bands" "$got" "$ref"
done
# the figures of an input agree with each other, not only with the reference
check_eq "input 1: NJ tree and link map agree" \
    "$(colours nj "$TMP/fig/input1_nj_tree.svg" "$TMP/a/network_hosts.txt")" \
    "$(colours map "$TMP/fig/input1_link_clusters.svg" "$TMP/a/network_hosts.txt")"

# The commands on one cube: the cube's own sorted hosts (node01..node04 whatever the placement)
check "nj --plot" "$BIN/mpilens" nj "$TMP/a/network" --plot "$TMP/nj.svg"
check "links --plot" "$BIN/mpilens" links "$TMP/a/network" --plot "$TMP/map.svg"
one=$(expect node01 node02 node03 node04)
check_eq "mpilens nj: sorted host colours" "$(colours nj "$TMP/nj.svg" "$TMP/a/network_hosts.txt")" "$one"
check_eq "mpilens links: the same colours" "$(colours map "$TMP/map.svg" "$TMP/a/network_hosts.txt")" "$one"
check "cluster --heatmap --plot" "$BIN/mpilens" cluster "$TMP/a/network" --heatmap "$TMP/heat.svg" --plot "$TMP/dendro.svg"
check_eq "mpilens cluster --heatmap: the same host bands" \
    "$(colours heat "$TMP/heat.svg" "$TMP/a/network_hosts.txt" "$TMP/dendro.svg")" "$one"
check_eq "mpilens cluster --plot: leaf labels in the same colours" \
    "$(colours dendro "$TMP/dendro.svg" "$TMP/a/network_hosts.txt")" "$one"

# ---- legends and captions name only what is drawn: a sweep inside one node has no squares ----
mkdir -p "$TMP/sw"
sweep() { # sweep FILE KIND...: one pair per kind, a plain latency model
    $PY - "$@" <<'EOF'
import sys
cols = ("size_bytes,latency_s,latency_min_s,latency_median_s,latency_max_s,bandwidth_Bps,bandwidth_min_Bps,"
        "bandwidth_median_Bps,bandwidth_max_Bps,msg_rate_per_s,msg_rate_min_per_s,msg_rate_median_per_s,"
        "msg_rate_max_per_s,bw_time_s,window,round_trips_per_iter,lat_iters,bw_iters,pair,kind,rank_a,rank_b,"
        "host_a,host_b")
out = [cols]
for p, kind in enumerate(sys.argv[2:]):
    lat, hb = (2.3e-7, "nodeA") if kind == "intra" else (1.7e-6, "nodeB")
    for s in [1, 64, 4096, 262144]:
        t = lat + s / 1e9
        out.append(",".join(str(v) for v in [s, t, t, t, t, s / t, s / t, s / t, s / t, 1 / t, 1 / t, 1 / t, 1 / t,
                                            64 * t, 64, 10, 1000, 100, p, kind, 0, 1 + p, "nodeA", hb]))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOF
}
sweep "$TMP/sw/one_p2p.csv" intra
sweep "$TMP/sw/two_p2p.csv" intra inter
check "report one-node sweep" "$BIN/mpilens" report "$TMP/sw/one" -o "$TMP/one.pdf"
check "report two-kind sweep" "$BIN/mpilens" report "$TMP/sw/two" -o "$TMP/two.pdf"
one_t=$(pdftotext "$TMP/one.pdf" - | tr '\n' ' ')
two_t=$(pdftotext "$TMP/two.pdf" - | tr '\n' ' ')
check_match "one node: circles keyed" "$one_t" "Circles: pairs within a node\. 0-byte"
if printf '%s' "$one_t" | grep -Eq "across nodes|[Ss]quares"; then fail "one node: the caption keys squares across nodes"; else ok; fi
check_match "two kinds: both shapes keyed" "$two_t" "Circles: pairs within a node; squares: pairs across nodes\. 0-byte"

# The timeline's legend keys the call classes its lanes draw, no others: a ping-pong window has
# point-to-point and other MPI calls but no collective, one-sided or wait/test ones.
check "timeline of a ping-pong" "$BIN/mpilens" problems --rules templates/rules "$DATA/otf2/pipit-ping-pong" \
    --timeline "$TMP/tl.svg"
tl=$($PY - "$TMP/tl.svg" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
# the class colours of render/fig/timeline.c (Okabe-Ito), by name
cls = {(0, 114, 178): "p2p", (213, 94, 0): "collective", (0, 158, 115): "one-sided", (204, 121, 167): "wait",
       (140, 140, 140): "other"}
rects = []
for st, d in re.findall(r'<path style="([^"]*)" d="([^"]*)"', s):
    m = re.search(r'(?<![-\w])fill:rgb\(([\d.]+)%,([\d.]+)%,([\d.]+)%\)', st)
    n = [float(v) for v in re.findall(r'-?[\d.]+', d)]
    if m and len(n) >= 8:
        rects.append((tuple(round(float(v) * 2.55) for v in m.groups()), min(n[1:8:2])))
# lanes start at the first lane band (one rectangle of the band colour per lane); the legend is above
top = min(y for c, y in rects if c == (246, 247, 249))
legend = sorted({cls[c] for c, y in rects if c in cls and y < top})
lanes = sorted({cls[c] for c, y in rects if c in cls and y >= top})
print(" ".join(legend) + " | " + " ".join(lanes))
EOF
)
check_eq "timeline legend = classes drawn" "$tl" "other p2p | other p2p"

finish test_hostcolour
