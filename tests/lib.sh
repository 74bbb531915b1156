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
