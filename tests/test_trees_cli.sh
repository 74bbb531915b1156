#!/usr/bin/env bash
# The tree pictures of `mpilens cluster` and `mpilens nj`: leaves drawn in the order of
# scipy.cluster.hierarchy.dendrogram(Z)['leaves'] for every method (read back from the SVG's
# text layer), the cut at k = 4 on samples/cubes/synth32 finds its 4 nodes (and agrees with
# scipy's fcluster), the automatic cut finds the 4 nodes too, PNG sizes, well-formed SVG with
# every leaf label, byte-identical reruns, and the errors (exit status, message, no file).
. tests/lib.sh
PY=${PYTHON:-/usr/bin/python3}
M="$BIN/mpilens"
S=samples/cubes/synth32/network
export SOURCE_DATE_EPOCH=1795219200

if ! "$PY" -c 'import scipy, numpy' 2>/dev/null; then
    fail "python3-scipy is missing: run scripts/install-deps.sh --test"
    finish test_trees_cli
    exit 1
fi

# ---- leaf order against scipy, every method: random points (no ties), labelled and not
"$PY" - "$TMP" <<'EOF'
import sys, numpy as np
from scipy.cluster.hierarchy import linkage, dendrogram
from scipy.spatial.distance import pdist, squareform
tmp = sys.argv[1]
rng = np.random.default_rng(20261121)
for name, n, labelled in (("p40", 40, True), ("p200", 200, False)):
    x = rng.normal(size=(n, 6)) + 4.0 * (np.arange(n) % 5)[:, None] * rng.uniform(0.5, 1.5, size=(1, 6))
    d = pdist(x)
    with open(f"{tmp}/{name}.csv", "w") as f:
        if labelled:
            f.write(",".join(f"proc-{i:02d}" for i in range(n)) + "\n")
        for row in squareform(d):
            f.write(",".join(repr(v) for v in row) + "\n")
    for m in ("single", "complete", "average", "weighted", "centroid", "median", "ward"):
        leaves = dendrogram(linkage(d, m), no_plot=True)["leaves"]
        open(f"{tmp}/{name}.{m}.ref", "w").write(" ".join(map(str, leaves)) + "\n")
EOF
for name in p40 p200; do
    for m in single complete average weighted centroid median ward; do
        check "cluster $name $m --plot" "$M" cluster "$TMP/$name.csv" --method $m --plot "$TMP/$name.$m.svg"
    done
done
# leaf labels are the texts drawn upwards below the plot (the axis title is the other one)
cat >"$TMP/leaves.py" <<'EOF'
import re, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
def leaves(path):
    out = []
    for t in ET.parse(path).iter(ns + "text"):
        if "rotate(-90" in t.get("transform", "") and not t.text.startswith("height"):
            out.append((float(t.get("x")), t.text))
    return [s for _, s in sorted(out)]
bad = []
for path, ref in zip(sys.argv[1::2], sys.argv[2::2]):
    want = open(ref).read().split()
    got = [re.sub(r"^proc-0?", "", s) for s in leaves(path)]
    step = max(1, round(len(want) / max(1, len(got))))
    if got != want[::step] or (step > 1 and len(want) <= 128):
        bad.append(f"{path}: drawn {got[:12]}... want every {step}: {want[:12]}...")
print("\n".join(bad) if bad else "ok")
EOF
args=()
for name in p40 p200; do
    for m in single complete average weighted centroid median ward; do
        args+=("$TMP/$name.$m.svg" "$TMP/$name.$m.ref")
    done
done
check_eq "leaf order = scipy dendrogram leaves (7 methods, 40 and 200 leaves)" "$("$PY" "$TMP/leaves.py" "${args[@]}" 2>&1)" ok

# ---- synth32: 4 nodes of 8 ranks; every output at once, then again for byte-identity
run_all() { # DIR
    mkdir -p "$1"
    "$M" cluster "$S" --linkage "$1/Z.csv" --cut 4 --clusters "$1/c.csv" --plot "$1/d.png" \
        --heatmap "$1/h.png" 2>"$1/err" &&
    "$M" cluster "$S" --cut 4 --plot "$1/d.svg" --heatmap "$1/h.svg" >"$1/c_stdout.csv" 2>>"$1/err" &&
    "$M" nj "$S" --plot "$1/t.png" 2>>"$1/err" &&
    "$M" nj "$S" --plot "$1/t.svg" --root nj --newick "$1/t.nwk" 2>>"$1/err"
}
check "synth32: all pictures" run_all "$TMP/a"
check "synth32: all pictures again" run_all "$TMP/b"
for f in Z.csv c.csv d.png h.png d.svg h.svg c_stdout.csv t.png t.svg t.nwk; do
    check "byte-identical $f" cmp "$TMP/a/$f" "$TMP/b/$f"
done
want=$(for r in $(seq 0 31); do echo "$r,node0$((r / 8 + 1)),$((r / 8))"; done)
check_eq "cut 4 = the 4 nodes" "$(tail -n +2 "$TMP/a/c.csv")" "$want"
check_eq "clusters header" "$(head -1 "$TMP/a/c.csv")" "rank,host,cluster"
check_eq "clusters on stdout without --clusters" "$(cat "$TMP/a/c_stdout.csv")" "$(cat "$TMP/a/c.csv")"
check_match "cut reported" "$(cat "$TMP/a/err")" "cut into 4 clusters at 1\.8[0-9]* µs"

# scipy's fcluster on our Z gives the same partition; the automatic cut (lens_hclust_cut_auto,
# worked by hand in test_dendrogram) finds the 4 nodes although the slow node03's inside merges
# sit between the node and inter-node levels (the plain largest gap would give 2 groups)
check "cut --auto" "$M" cluster "$S" --cut auto --clusters "$TMP/auto.csv"
auto_k=$(sed -n 's/.*cut into \([0-9]*\) clusters.*/\1/p' "$TMP/err")
"$M" cluster "$S" --cut-height 1.8 --clusters "$TMP/h18.csv" 2>/dev/null
check_eq "cut at 1.8 µs = cut 4" "$(cat "$TMP/h18.csv")" "$(cat "$TMP/a/c.csv")"
got=$("$PY" - "$TMP/a/Z.csv" "$TMP/a/c.csv" "$TMP/auto.csv" "$auto_k" <<'EOF'
import sys, numpy as np
from scipy.cluster.hierarchy import fcluster
z = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
def canon(labels):  # partition as sorted tuple of blocks
    blocks = {}
    for i, c in enumerate(labels):
        blocks.setdefault(c, []).append(i)
    return sorted(map(tuple, blocks.values()))
ours = [int(l.split(",")[2]) for l in open(sys.argv[2]).read().split()[1:]]
ref = fcluster(z, 4, "maxclust")
auto = [int(l.split(",")[2]) for l in open(sys.argv[3]).read().split()[1:]]
k = int(sys.argv[4])
print(canon(ours) == canon(ref), k == 4, canon(auto) == canon(fcluster(z, k, "maxclust")))
EOF
)
check_eq "fcluster(Z, 4), auto k = 4, auto clusters = fcluster(Z, k)" "$got" "True True True"

# pictures: PNG sizes, SVG well-formed with every leaf label and the title
got=$("$PY" - "$TMP/a" <<'EOF'
import sys, xml.etree.ElementTree as ET
sys.path.insert(0, "tests")
from pngcheck import pixels
d = sys.argv[1]
sizes = [pixels(f"{d}/{f}")[:2] for f in ("d.png", "h.png", "t.png")]
ns = "{http://www.w3.org/2000/svg}"
out = [str(sizes)]
for f in ("d.svg", "t.svg"):
    root = ET.parse(f"{d}/{f}").getroot()
    texts = {t.text for t in root.iter(ns + "text")}
    labels = {f"node0{r // 8 + 1}:{r}" for r in range(32)}
    out.append(f"{f} {len(labels - texts)} missing, title {root.find(ns + 'title') is not None}")
ET.parse(f"{d}/h.svg")
# NJ: the ranks of each node are contiguous top to bottom
ys = sorted((float(t.get("y")), t.text) for t in ET.parse(f"{d}/t.svg").getroot().iter(ns + "text")
            if t.text in labels)
hosts = [s.split(":")[0] for _, s in ys]
out.append(f"nj host runs {sum(a != b for a, b in zip(hosts, hosts[1:])) + 1}")
print("; ".join(out))
EOF
)
check_eq "png sizes, svg labels" "$got" "[(1000, 640), (1000, 760), (1000, 700)]; d.svg 0 missing, title True; t.svg 0 missing, title True; nj host runs 4"

# what existed before is unchanged: Z on stdout without other outputs, Newick on stdout
"$M" cluster "$S" >"$TMP/z_stdout.csv" 2>/dev/null
check_eq "Z on stdout as with --linkage" "$(cat "$TMP/z_stdout.csv")" "$(cat "$TMP/a/Z.csv")"
"$M" nj "$S" --root nj >"$TMP/nwk_stdout" 2>/dev/null
check_eq "Newick on stdout as with --newick" "$(cat "$TMP/nwk_stdout")" "$(cat "$TMP/a/t.nwk")"

# ---- errors: usage (2) or failure (1), message, nothing written
mkdir -p "$TMP/outdir"
O="$TMP/outdir"
check_exit "plot .jpg" 2 "$M" cluster "$S" --plot "$O/d.jpg"
check_match "plot .jpg message" "$(cat "$TMP/err")" "d.jpg: the file name must end in .png or .svg"
check_exit "heatmap no extension" 2 "$M" cluster "$S" --heatmap "$O/h"
check_exit "nj plot .pdf" 2 "$M" nj "$S" --plot "$O/t.pdf"
check_exit "cut 0" 2 "$M" cluster "$S" --cut 0
check_exit "cut abc" 2 "$M" cluster "$S" --cut abc
check_match "cut abc message" "$(cat "$TMP/err")" "--cut wants a number of clusters"
check_exit "cut-height -1" 2 "$M" cluster "$S" --cut-height -1
check_exit "clusters without cut" 2 "$M" cluster "$S" --clusters "$O/c.csv"
check_exit "cut 33 of 32" 2 "$M" cluster "$S" --cut 33 --clusters "$O/c.csv" --plot "$O/d.png"
check_match "cut 33 message" "$(cat "$TMP/err")" "cannot cut 32 processes into 33 clusters"
check_exit "root bad" 2 "$M" nj "$S" --root top
check_exit "plot into a missing dir" 1 "$M" cluster "$S" --plot "$TMP/none/d.png"
check_match "missing dir message" "$(cat "$TMP/err")" "^mpilens: .*none/d.png"
check_exit "nj plot into a missing dir" 1 "$M" nj "$S" --plot "$TMP/none/t.svg"
check_match "nj missing dir message" "$(cat "$TMP/err")" "none/t.svg"
check_exit "clusters into a missing dir" 1 "$M" cluster "$S" --cut 2 --clusters "$TMP/none/c.csv"
check_exit "missing input" 1 "$M" cluster "$TMP/none.csv" --plot "$O/d.png"
check_eq "nothing written on errors" "$(ls -A "$O")" ""
check_exit "cluster --help" 0 "$M" cluster --help
check_match "help names --plot and --cut" "$(cat "$TMP/out")" "--cut K\|auto"
check_exit "nj --help" 0 "$M" nj --help
check_match "nj help names --plot" "$(cat "$TMP/out")" "--plot F"

finish test_trees_cli
