#!/usr/bin/env bash
# The project stands alone: no tracked file names the private source notes, the folder they
# live in or their file numbering of the papers, and docs/methods.md, which replaces them, is
# consistent with its own reference list (every [N] cited has an entry, every entry is cited,
# a name right before a citation is in that entry, every "Name et al" citation used anywhere in the
# project is in the list). Each check first runs on planted faults, so it can fail.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
export LC_ALL=C # byte-wise matching: the same result in every locale

# The forbidden names, built from pieces so that this file does not name them itself.
FORBIDDEN=("../sha""red" "ALGO""RITHMS.md" "see""ds/" "paper 00""[0-9]")

# list_files DIR MODE: the files of the project under DIR, one per line, relative to DIR.
# MODE git: the tracked files; MODE find: every file but .git, build trees and out/ (for a
# copy without git). Binary files are skipped later, by grep -I.
list_files() {
    if [ "$2" = git ]; then
        git -C "$1" ls-files
    else
        (cd "$1" && find . -type f ! -path './.git' ! -path './.git/*' ! -path './build*' ! -path './out/*' \
            | sed 's|^\./||' | sort)
    fi
}

# existing DIR MODE: the listed files that exist (a tracked file may be deleted in the work
# tree), NUL-separated for xargs, relative to DIR.
existing() {
    list_files "$1" "$2" | while IFS= read -r f; do
        [ -f "$1/$f" ] && printf '%s\0' "$f"
    done
}

# scan DIR MODE: prints "file:line: names 'X'" for every forbidden name in a text file. One
# grep reads every file; the name is then told apart on the few lines that hold one.
scan() {
    local dir=$1 mode=$2 p hit file rest line text
    local res=() args=()
    for p in "${FORBIDDEN[@]}"; do
        res+=("$(printf '%s' "$p" | sed 's/\./\\./g')")
        args+=(-e "${res[${#res[@]} - 1]}")
    done
    # -I: binary files (the NetCDF and OTF2 reference data) are not text to read
    existing "$dir" "$mode" | (cd "$dir" && xargs -0 -r grep -I -n -H -E "${args[@]}" -- 2>/dev/null) \
        | while IFS= read -r hit; do
            file=${hit%%:*} rest=${hit#*:}
            line=${rest%%:*} text=${rest#*:}
            for p in "${!res[@]}"; do
                printf '%s\n' "$text" | grep -q -E -- "${res[$p]}" && echo "$file:$line: names '${FORBIDDEN[$p]}'"
            done
        done
}

# check_citations FILE: prints one line per inconsistency between the text of a methods
# document and its reference list (the entries "N. ..." after the "## N. References" heading).
check_citations() {
    awk '
    function flush() { if (cur) ref[cur] = ref[cur] " " buf; buf = "" }
    /^## [0-9]+\. References/ { inrefs = 1; next }
    inrefs && /^[0-9]+\. / {
        flush(); cur = $1; sub(/\.$/, "", cur); cur += 0; nref++
        if (cur != nref) printf "reference %d is numbered %d\n", nref, cur
        buf = $0; next
    }
    inrefs && /^ / { buf = buf " " $0; next }
    inrefs { flush(); next }
    {
        # citations: [N] or [N, M, ...] at the start of a line, after a space or a parenthesis
        line = " " $0
        while (match(line, /[ (]\[[0-9]+(, [0-9]+)*\]/)) {
            c = substr(line, RSTART + 2, RLENGTH - 3)
            before = substr(line, 1, RSTART)
            line = substr(line, RSTART + RLENGTH)
            n = split(c, num, /, /)
            for (k = 1; k <= n; k++) { cited[num[k] + 0] = 1; where[num[k] + 0] = NR }
            # a capitalised name just before a single citation must be in that entry
            if (n == 1 && match(before, /[A-Z][A-Za-z\200-\377_-]*[ (]$/)) {
                w = substr(before, RSTART, RLENGTH - 1)
                names[++nn] = w; namenum[nn] = num[1] + 0; nameline[nn] = NR
            }
        }
    }
    END {
        flush()
        if (!nref) print "no reference list (a heading \"## N. References\" and entries \"1. ...\")"
        for (r in cited) if (!(r in ref)) printf "line %d cites [%d], which is not in the reference list\n", where[r], r
        for (r = 1; r <= nref; r++) if (!(r in cited)) printf "reference %d is never cited\n", r
        for (k = 1; k <= nn; k++)
            if ((namenum[k] in ref) && index(ref[namenum[k]], names[k]) == 0)
                printf "line %d: \"%s [%d]\" but reference %d does not name %s\n", nameline[k], names[k], namenum[k], namenum[k], names[k]
    }' "$1"
}

# check_etal DIR MODE METHODS: every "Name et al" citation in a text file of the project must be in
# the reference list of METHODS.
check_etal() {
    local refs hit
    refs=$(sed -n '/^## [0-9]*\. References/,$p' "$3")
    existing "$1" "$2" \
        | (cd "$1" && xargs -0 -r grep -I -o -H -E $'[A-Z][A-Za-z\x80-\xff-]* et al\\.' -- 2>/dev/null) \
        | sort -u | while IFS= read -r hit; do
            name=${hit#*:}
            name=${name% et al.}
            printf '%s\n' "$refs" | grep -q -F -- "$name" || echo "${hit%%:*}: '${hit#*:}' is not in the reference list"
        done
}

# ---- the checks can fail: planted faults in a scratch tree ----
F="$TMP/fake"
mkdir -p "$F/docs" "$F/tests/data" "$F/build"
printf 'clean text\n' >"$F/clean.c"
printf 'x\n/* see %s section 6 */\n' "${FORBIDDEN[1]}" >"$F/a.c"
printf 'data in %s/data\n' "${FORBIDDEN[0]}" >"$F/b.sh"
printf 'from %s000_x.txt\n' "${FORBIDDEN[2]}" >"$F/docs/c.md"
P0=${FORBIDDEN[3]%\[0-9\]} # "paper 00" without the digit class
printf 'caption: as in Figure 6 of %s0\nand %s4\n' "$P0" "$P0" >"$F/d.tmpl"
printf '\0\1binary %s\n' "${FORBIDDEN[1]}" >"$F/tests/data/blob.nc"
printf '%s\n' "${FORBIDDEN[1]}" >"$F/build/generated.txt"
hits=$(scan "$F" find)
check_eq "planted: one hit per planted name" "$(printf '%s\n' "$hits" | grep -c .)" 5
check_match "planted: file and line named" "$hits" "^a\.c:2: names 'ALGO""RITHMS\.md'"
check_match "planted: the shared folder found" "$hits" "^b\.sh:1: names"
check_match "planted: the folder of the papers found" "$hits" "^docs/c\.md:1: names"
check_match "planted: the first paper number found" "$hits" "^d\.tmpl:1: names"
check_match "planted: the fifth paper number found" "$hits" "^d\.tmpl:2: names"
check_eq "planted: binary data and build trees skipped" \
    "$(printf '%s\n' "$hits" | grep -c -E 'blob|generated')" 0

# the git listing: a file only counts when tracked
if command -v git >/dev/null 2>&1; then
    G="$TMP/repo"
    mkdir -p "$G"
    git -C "$G" init -q 2>/dev/null
    printf 'ok\n' >"$G/tracked.c"
    printf 'untracked %s\n' "${FORBIDDEN[1]}" >"$G/untracked.c"
    git -C "$G" add tracked.c
    check_eq "planted git tree: untracked file not scanned" "$(scan "$G" git)" ""
    printf 'now %s\n' "${FORBIDDEN[3]/\[0-9\]/3}" >>"$G/tracked.c"
    check_match "planted git tree: tracked file scanned" "$(scan "$G" git)" "^tracked\.c:2: names"
fi

cat >"$TMP/methods.md" <<'EOF'
# Methods
Distances by Saitou and Nei [1] and the update of Lance [2]; see also [1, 4].
As Müllner [3] shows;
[6] at the start of a line is a citation too.

## 9. References

1. N. Saitou, M. Nei. The neighbor-joining method. 1987.
2. G. N. Lance, W. T. Williams. A general theory. 1967.
3. D. Mullner. Modern clustering. 2011.
5. Uncited. 2000.
EOF
bad=$(check_citations "$TMP/methods.md")
check_match "planted citations: a cited number with no entry" "$bad" "cites \[4\], which is not in the reference list"
check_match "planted citations: one at the start of a line" "$bad" "cites \[6\], which is not"
check_match "planted citations: numbering gap" "$bad" "reference 4 is numbered 5"
check_match "planted citations: name not in its entry" "$bad" "\"Müllner \[3\]\" but reference 3 does not name"
check_eq "planted citations: Nei [1] and Lance [2] accepted" "$(printf '%s\n' "$bad" | grep -c -E 'Nei|Lance')" 0
ETAL='et al.' # the planted citations, written so that this file holds none
printf 'see Smith %s and Saitou %s and Lance %s\n' "$ETAL" "$ETAL" "$ETAL" >"$F/cite.md"
etal=$(check_etal "$F" find "$TMP/methods.md")
check_match "planted: an author citation not in the list" "$etal" "cite\.md: 'Smith et al\.'"
check_eq "planted: citations of listed authors accepted" "$(printf '%s\n' "$etal" | grep -c -E 'Saitou|Lance')" 0

# ---- the project itself ----
if command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mode=git
else
    mode=find # a copy without git, or no git installed
fi
hits=$(scan . "$mode")
check_eq "no $mode-listed file names the private notes, their folder or paper numbers" "$hits" ""
[ -n "$hits" ] && printf '%s\n' "$hits" | head -20 >&2
if [ "$mode" = git ]; then # the fallback gives the same answer on this tree
    check_eq "no file found by find names them either" "$(scan . find)" ""
fi
check "docs/methods.md exists" test -s docs/methods.md
bad=$(check_citations docs/methods.md)
check_eq "docs/methods.md: citations and reference list agree" "$bad" ""
[ -n "$bad" ] && printf '%s\n' "$bad" >&2
nref=$(sed -n '/^## [0-9]*\. References/,$p' docs/methods.md | grep -c -E '^[0-9]+\. ')
check "docs/methods.md: at least 15 references ($nref)" test "$nref" -ge 15
etal=$(check_etal . "$mode" docs/methods.md)
check_eq "every author citation in the project is in the reference list" "$etal" ""
[ -n "$etal" ] && printf '%s\n' "$etal" >&2
finish test_standalone
