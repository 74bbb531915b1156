# `mpilens links --method`: the agglomerative partition against scipy's linkage on the same
# distance computed independently from the NetCDF files (netCDF4 + numpy: rho with the
# deviation floors of docs/methods.md §3), cut after n - k merges (cut_tree), and the ARI the
# command prints against scikit-learn's adjusted_rand_score; the memory bound's refusal.
. tests/lib.sh
PY=/usr/bin/python3
# the references are test packages (scripts/install-deps.sh --test): without them the test
# fails, it does not pass on nothing
if ! $PY -c 'import numpy, netCDF4, scipy, sklearn' 2>/dev/null; then
    check "numpy, netCDF4, scipy and scikit-learn importable (make deps-test)" false
    finish test_links_agglo
    exit 1
fi
mkdir -p "$TMP/c"
"$BIN/mpilens" synth -o "$TMP/c/network" --procs 12 --nodes 3 --sockets 2 --lengths 0:4096:1024 >/dev/null 2>&1
for m in average complete single ward; do
    check "$m: runs" "$BIN/mpilens" links "$TMP/c/network" --method $m --json
    "$BIN/mpilens" links "$TMP/c/network" --method $m --json >"$TMP/$m.json" 2>/dev/null
    r=$($PY - "$TMP/c/network" "$TMP/$m.json" $m <<'PYEOF'
import json, sys
import numpy as np, netCDF4
from scipy.cluster.hierarchy import linkage, cut_tree
from sklearn.metrics import adjusted_rand_score
def var(stat):
    ds = netCDF4.Dataset(sys.argv[1] + "_" + stat + ".nc"); ds.set_auto_mask(False)
    return np.array(ds.variables["data"][:], dtype=float)
a, sd = var("average"), var("deviation")
L, P, _ = a.shape
got = json.load(open(sys.argv[2]))
# objects in row-major order without the diagonal, each a curve over the lengths
pairs = [(i, j) for i in range(P) for j in range(P) if i != j]
A = np.array([a[:, i, j] for i, j in pairs])
S = np.array([sd[:, i, j] for i, j in pairs])
fl = np.maximum(1e-3 * np.abs(A), 1e-9)
S = np.where(S >= fl, S, fl)
W = 1.0 / (S * S)
n = len(pairs)
cond = []
for x in range(n - 1):
    d = A[x + 1:] - A[x]
    cond.extend(np.sqrt((d * d * (W[x + 1:] + W[x])).sum(axis=1)))
k = got["k"]
ref = cut_tree(linkage(np.array(cond), sys.argv[3]), n_clusters=k).ravel()
ours = [got["agglo_labels"][i][j] for i, j in pairs]
div = [got["labels"][i][j] for i, j in pairs]
same = adjusted_rand_score(ref, ours)
print("%.12f %.12f %.12f %d" % (same, adjusted_rand_score(div, ours), got["ari"], got["matrix_bytes"] == n * (n - 1) // 2 * 8))
PYEOF
)
    set -- $r
    check_close "$m: same partition as scipy (ARI 1)" "$1" 1 1e-12
    check_close "$m: printed ari equals sklearn's" "$3" "$2" 1e-9
    check_eq "$m: matrix bytes L(L-1)/2 x 8" "$4" "1"
done
# the text line, and the CSV column only with --method
t=$("$BIN/mpilens" links "$TMP/c/network" --method average 2>/dev/null)
check_match "text: agreement sentence" "$t" "agglomerative \(average\) agrees with the divisive clustering: ARI [-0-9.]+"
"$BIN/mpilens" links "$TMP/c/network" --method average --csv "$TMP/a.csv" >/dev/null 2>&1
check_eq "csv: agglo column" "$(head -n 1 "$TMP/a.csv")" "row,col,cluster,agglo"
"$BIN/mpilens" links "$TMP/c/network" --csv "$TMP/d.csv" >/dev/null 2>&1
check_eq "csv: divisive unchanged" "$(head -n 1 "$TMP/d.csv")" "row,col,cluster"
check_eq "json: divisive has no ari" "$("$BIN/mpilens" links "$TMP/c/network" --json 2>/dev/null | grep -c '"ari"' || true)" "0"
check_eq "divisive named explicitly" "$("$BIN/mpilens" links "$TMP/c/network" --method divisive 2>/dev/null | md5sum)" \
    "$("$BIN/mpilens" links "$TMP/c/network" 2>/dev/null | md5sum)"
# 132 links: 132 x 131 / 2 x 8 = 69168 bytes; a 32-process cube (992 links) needs 3932288 > 1 MiB
check_exit "over the bound: status 1" 1 "$BIN/mpilens" links samples/cubes/synth32/network --method average --max-matrix-mb 1
check_match "over the bound: the bytes" "$(cat "$TMP/err")" "992 links needs .*L\(L-1\)/2 x 8 = 3932288 bytes"
check_exit "bad method: usage" 2 "$BIN/mpilens" links "$TMP/c/network" --method centroid
check_exit "bad bound: usage" 2 "$BIN/mpilens" links "$TMP/c/network" --method average --max-matrix-mb 0
# the report: the agreement sentence in the link section (the cube is under the bound) and
# the asymmetry row on page one, at the first and last length as info --json gives them
if command -v pdftotext >/dev/null; then
    SOURCE_DATE_EPOCH=0 "$BIN/mpilens" report "$TMP/c/network" -o "$TMP/r.pdf" >/dev/null 2>&1
    txt=$(pdftotext "$TMP/r.pdf" - 2>/dev/null | tr '\n' ' ')
    want=$("$BIN/mpilens" links "$TMP/c/network" --method average --json 2>/dev/null | $PY -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["ari"])')
    check_match "report: agreement sentence" "$txt" "Agglomerative \(average\) agrees with the divisive clustering: ARI $want"
    a=$("$BIN/mpilens" info --json "$TMP/c/network" 2>/dev/null | $PY -c 'import json,sys; a=json.load(sys.stdin)["asymmetry_per_length"]; print("%.1f %% \\(max %.0f %%\\) +%.1f %% \\(max %.0f %%\\)" % (100*a[0]["median"], 100*a[0]["max"], 100*a[-1]["median"], 100*a[-1]["max"]))')
    # the sentence is the template's (links_agree): a translated template changes its words
    # and keeps the numbers; a template without it names the missing text
    sed 's/^text links_agree .*/text links_agree Aglomerativo (${agglo_method}) concuerda: ARI ${ari}./' \
        templates/report.tmpl >"$TMP/es.tmpl"
    SOURCE_DATE_EPOCH=0 "$BIN/mpilens" report "$TMP/c/network" --template "$TMP/es.tmpl" -o "$TMP/es.pdf" >/dev/null 2>&1
    es=$(pdftotext "$TMP/es.pdf" - 2>/dev/null | tr '\n' ' ')
    check_match "template: translated sentence" "$es" "Aglomerativo \(average\) concuerda: ARI $want"
    check_eq "template: English sentence gone" "$(echo "$es" | grep -c 'agrees with the divisive' || true)" 0
    grep -v '^text links_agree ' templates/report.tmpl >"$TMP/no.tmpl"
    check_exit "template without links_agree: status 1" 1 "$BIN/mpilens" report "$TMP/c/network" \
        --template "$TMP/no.tmpl" -o "$TMP/no.pdf"
    check_match "template without links_agree: named" "$(cat "$TMP/err")" "links_agree"
    check "template without links_agree: no PDF" test ! -e "$TMP/no.pdf"
    check_match "report: asymmetry row" "$(pdftotext -layout -f 1 -l 1 "$TMP/r.pdf" - 2>/dev/null | grep asymmetry)" "$a"
fi
finish test_links_agglo
