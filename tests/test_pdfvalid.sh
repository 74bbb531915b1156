#!/usr/bin/env bash
# Every kind of PDF mpilens writes is valid and its text extracts as written: the cube report
# (the demo's sample cube with the plugins-branch cube and Cyrillic hosts), the problems report
# in English and with the Russian template, the scale report, the profile report and the stages
# report (two logs side by side), each with
# a title of Cyrillic, symbols and accented letters. For each: pdftotext prints nothing on
# stderr (libharu 2.3 alone makes it warn "Invalid 'begincidrange' operator in ToUnicode CMap"
# on every page), qpdf --check passes without warnings, every shown string decodes through its
# font's ToUnicode CMap as qpdf reads it (tests/test_pdfvalid.py), pdfminer extracts the same
# words as pdftotext -layout, the title extracts from all three, and pdffonts lists every font
# embedded and subset.
. tests/lib.sh
PY=/usr/bin/python3
M=$BIN/mpilens
NT=$DATA/network-tests2
PLUG=$NT/plugins-branch-2024/delays-MSK-2024-05-16
CASITA=$DATA/otf2/casita-4_mpi_ls_barr
TITLE="Задержки «Ломоносов»: 2.5 µs ≥ 1·10³, café Łódź"
export SOURCE_DATE_EPOCH=1715860800
mkdir -p "$TMP/figs"
export TMPDIR=$TMP/figs

# valid NAME PDF TITLE: the checks above on one file
valid() {
    local name=$1 pdf=$2 title=$3
    # -layout: without it poppler joins a line ending in "-" with the next ("plugins-" "branch"
    # becomes "pluginsbranch"), which is not what was written
    pdftotext -layout "$pdf" "$TMP/$name.txt" 2>"$TMP/$name.warn"
    check_eq "$name: pdftotext exit" "$?" 0
    check_eq "$name: pdftotext stderr" "$(head -c 300 "$TMP/$name.warn")" ""
    qpdf --check "$pdf" >"$TMP/$name.qpdf" 2>&1
    check_eq "$name: qpdf --check exit" "$?" 0
    check_match "$name: qpdf finds no errors" "$(cat "$TMP/$name.qpdf")" "No syntax or stream encoding errors"
    check_eq "$name: qpdf warnings or errors" "$(grep -icE 'warning|error:' "$TMP/$name.qpdf")" 0
    $PY tests/test_pdfvalid.py tounicode "$pdf" >"$TMP/$name.codes" 2>"$TMP/$name.err"
    check_eq "$name: shown codes decode through the ToUnicode CMaps" "$?:$(head -c 300 "$TMP/$name.err")" "0:"
    # one line per Tj: a title that wraps is split at a space
    check_match "$name: title in the decoded codes" "$(tr -s ' \n' '  ' <"$TMP/$name.codes")" "$title"
    check_match "$name: title in pdftotext's text" "$(tr -s ' \n' '  ' <"$TMP/$name.txt")" "$title"
    check "$name: pdfminer and pdftotext give the same words" \
        $PY tests/test_pdfvalid.py words "$pdf" "$TMP/$name.txt" "$TMP/$name.miner"
    check_match "$name: title in pdfminer's text" "$(tr -s ' \n' '  ' <"$TMP/$name.miner")" "$title"
    # pdffonts: name, type (2 words), encoding, emb, sub, uni, object id, generation; a subset's
    # name starts with a 6-letter tag and "+" (mawk has no {6})
    pdffonts "$pdf" 2>/dev/null | awk 'NR > 2' >"$TMP/$name.fonts"
    check_match "$name: fonts listed" "$(wc -l <"$TMP/$name.fonts")" "^[1-9]"
    check_eq "$name: fonts not embedded or not subset" \
        "$(awk '$(NF-4) != "yes" || $(NF-3) != "yes" || $1 !~ /^[A-Z][A-Z][A-Z][A-Z][A-Z][A-Z]\+/' "$TMP/$name.fonts")" ""
}

# ---- cube report: the demo's sample cube plus the plugins-branch cube, Cyrillic hosts ----
mkdir -p "$TMP/cyr"
for s in average median deviation min; do cp "$NT/one_to_one_np4/network_$s.nc" "$TMP/cyr/network_$s.nc"; done
printf 'узел-01\nузел-01\nузел-02\nузел-02\n' >"$TMP/cyr/network_hosts.txt"
check "cube report" "$M" report samples/cubes/synth32/network "$PLUG" "$TMP/cyr/network" -o "$TMP/cube.pdf" \
    --title "$TITLE"
valid cube "$TMP/cube.pdf" "$TITLE"
check_match "cube: Cyrillic host name" "$(cat "$TMP/cube.miner")" "узел-01"

# ---- problems report, English and the Russian template ----
check "problems report" "$M" problems --rules templates/rules "$CASITA" --report "$TMP/problems.pdf" --title "$TITLE"
valid problems "$TMP/problems.pdf" "$TITLE"
check "problems report ru" "$M" problems --rules templates/rules "$CASITA" --report "$TMP/problems_ru.pdf" --lang ru
valid problems_ru "$TMP/problems_ru.pdf" "Проблемы производительности"
check_match "problems_ru: Russian problem name in pdfminer's text" "$(cat "$TMP/problems_ru.miner")" \
    "Поздний отправитель"
check_match "problems_ru: Russian footer" "$(cat "$TMP/problems_ru.miner")" "стр\. 1 из [0-9]+"

# ---- scale report ----
check "scale report" "$M" scale report samples/scale/paper.csv -o "$TMP/scale.pdf" --title "$TITLE"
valid scale "$TMP/scale.pdf" "$TITLE"

# ---- profile report ----
PROF=profile-clusters
"$M" $PROF --help >/dev/null 2>&1 || PROF=profile_clusters
check "profile report" "$M" $PROF samples/profiles/halo64.csv --report "$TMP/profile.pdf" --title "$TITLE"
valid profile "$TMP/profile.pdf" "$TITLE"

# ---- stages report: two stage logs side by side ----
check "stages report" "$M" stages samples/stages/luna_sim_v2.jsonl --baseline samples/stages/luna_sim.jsonl \
    -o "$TMP/stages.pdf" --title "$TITLE"
valid stages "$TMP/stages.pdf" "$TITLE"

# the checks can fail: a file with libharu's defect put back (one repaired CMap's first block
# turned into a begincidrange; its name shortened by as many bytes, so offsets stay right)
$PY - "$TMP/scale.pdf" "$TMP/broken.pdf" <<'EOF'
import sys
raw = open(sys.argv[1], "rb").read()
i = raw.index(b"/Adobe-Identity-UCS def")
j = raw.index(b"endbfrange", i)
bad = (raw[:i] + b"/Adobe-Identity-U def" + raw[i + 23:j].replace(b"beginbfrange", b"begincidrange")
       + b"endcidrange" + raw[j + 10:])
assert len(bad) == len(raw)
open(sys.argv[2], "wb").write(bad)
EOF
check_match "defect put back: poppler warns" "$(pdftotext "$TMP/broken.pdf" - 2>&1 >/dev/null)" "ToUnicode"
check_exit "defect put back: the decoder fails" 1 $PY tests/test_pdfvalid.py tounicode "$TMP/broken.pdf"

finish test_pdfvalid
