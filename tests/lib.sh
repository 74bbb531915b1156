# Shell test helpers: source this, call check/check_fails, end with `finish NAME`.
# Paths: $BIN is the build's bin directory, $DATA the reference data, $TMP a scratch dir.
set -u
PASSED=0
FAILED=0
BUILD=${BUILD:-build}
BIN=${BIN:-$BUILD/bin}
DATA=${DATA:-tests/data}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

ok() { PASSED=$((PASSED + 1)); }
fail() { FAILED=$((FAILED + 1)); echo "FAIL: $*" >&2; }
# check DESCRIPTION COMMAND...: passes when the command exits 0
check() { local d=$1; shift; if "$@" >/dev/null 2>"$TMP/err"; then ok; else fail "$d"; sed 's/^/  /' "$TMP/err" >&2; fi; }
# check_eq DESCRIPTION GOT WANT
check_eq() { if [ "$2" = "$3" ]; then ok; else fail "$1: got '$2' want '$3'"; fi; }
# check_match DESCRIPTION TEXT REGEX
check_match() { if printf '%s' "$2" | grep -Eq -- "$3"; then ok; else fail "$1: '$2' does not match /$3/"; fi; }
# check_close DESCRIPTION GOT WANT RELTOL
check_close() {
    if awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; a = w < 0 ? -w : w; exit !(d <= t * a || d == 0) }'; then ok
    else fail "$1: got $2 want $3 (rel tol $4)"; fi
}
# check_exit DESCRIPTION STATUS COMMAND...: passes when the command exits with STATUS
check_exit() {
    local d=$1 want=$2; shift 2
    "$@" >"$TMP/out" 2>"$TMP/err"; local got=$?
    if [ "$got" = "$want" ]; then ok; else fail "$d: exit $got, want $want"; sed 's/^/  /' "$TMP/err" >&2; fi
}
finish() { echo "$1: $PASSED passed, $FAILED failed"; [ "$FAILED" = 0 ]; }

# dwarf_inlined BIN FUNC: BIN's DWARF has an inlined instance of the function FUNC (an
# inlined_subroutine whose abstract_origin is the subprogram named FUNC), read with binutils'
# readelf, independently of libdw
dwarf_inlined() {
    readelf --debug-dump=info "$1" 2>/dev/null | awk -v f="$2" '
        /^ *<[0-9]+><[0-9a-f]+>:/ { split($1, a, /[<>]/); off = a[4]; tag = $NF; next }
        tag ~ /DW_TAG_subprogram/ && /DW_AT_name/ && $NF == f { ex[off] = 1 }
        tag ~ /DW_TAG_inlined_subroutine/ && /DW_AT_abstract_origin/ { o = $NF; gsub(/[<>]|0x/, "", o); org[o] = 1 }
        END { for (k in ex) if (k in org) found = 1; exit !found }'
}
