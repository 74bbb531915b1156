#!/usr/bin/env bash
# Advice that depends on the calls the problem's members made (docs/problems.md, "Advice that
# depends on the calls"): `advice when recv.function in (...) = "..."`, first match wins, the
# plain advice the fallback. The two Jacobi samples are traced at 4 ranks; which MPI calls
# each made is read from otf2-print (an independent reader), and the overlapped one, whose
# receives are MPI_Irecv completed in MPI_Waitall, must never be told to post MPI_Irecv
# before computing. Then the form on a small trace and its load-time errors (file:line:col).
. tests/lib.sh
PY=/usr/bin/python3
M="$BIN/mpilens problems"
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 -x OMPI_MCA_mpi_yield_when_idle=1"
S=$BUILD/bin/samples
j() { $PY -c "import json, sys; d=json.load(open(sys.argv[1])); p={x['id']: x for x in d['problems'] if x['total_s'] > 0}; $2" "$1"; }

# --- the Jacobi samples: jitter makes late senders in both
for name in jacobi_naive jacobi_overlap; do
    rm -rf "${TMP:?}/$name"
    check "trace $name" $BIN/mpilens trace -o "$TMP/$name" -- $MPIRUN -np 4 "$S/$name" \
        -n 256 -i 30 -j 10 -w 5 < /dev/null
    check "problems $name (en)" $M --json "$TMP/$name" -o "$TMP/$name.json"
    check "problems $name (ru)" $M --json --lang ru "$TMP/$name" -o "$TMP/$name.ru.json"
    # the calls the trace holds, by the OTF2 library's own printer
    otf2-print "$TMP/$name/traces.otf2" 2>/dev/null |
        awk '$1 == "ENTER" { gsub(/"/, "", $5); print $5 }' | sort -u > "$TMP/$name.calls"
done
check "naive makes no MPI_Irecv" bash -c "! grep -qx MPI_Irecv '$TMP/jacobi_naive.calls'"
check "overlapped posts MPI_Irecv" grep -qx MPI_Irecv "$TMP/jacobi_overlap.calls"
check "overlapped completes in MPI_Waitall" grep -qx MPI_Waitall "$TMP/jacobi_overlap.calls"

N=$TMP/jacobi_naive.json O=$TMP/jacobi_overlap.json
check_eq "both show a late sender" "$(j "$N" "print('late_sender' in p)") $(j "$O" "print('late_sender' in p)")" "True True"
# naive: a blocking MPI_Recv waited, so the plain advice (overlap with non-blocking receives)
check_eq "naive: late sender waits in MPI_Recv" \
    "$(j "$N" "print([c['function'] for c in p['late_sender']['callsites'] if c['role'] != 'cause'][0])")" MPI_Recv
check_match "naive: plain late-sender advice" "$(j "$N" "print(p['late_sender']['advice'])")" \
    '^Post the send earlier .*non-blocking receives'
# overlapped: the receive is already an MPI_Irecv completed in a wait; the sender is named
check_eq "overlapped: late sender waits in MPI_Waitall" \
    "$(j "$O" "print([c['function'] for c in p['late_sender']['callsites'] if c['role'] != 'cause'][0])")" MPI_Waitall
check_eq "overlapped: the advice names the wait and the late MPI_Isend" \
    "$(j "$O" "print(p['late_sender']['advice'])")" \
    "The receive is already posted early (an MPI_Irecv completed in MPI_Waitall); the sender is late: move the MPI_Isend in iterate earlier, or balance the computation before it."
check_eq "the two runs get different late-sender advice" \
    "$(j "$N" "print(p['late_sender']['advice'])" | cmp -s - <(j "$O" "print(p['late_sender']['advice'])") && echo same || echo different)" different
check_eq "overlapped is never told to post MPI_Irecv before computing" \
    "$(j "$O" "print([i for i, x in p.items() if 'MPI_Irecv before computing' in x['advice'] or 'overlap with non-blocking' in x['advice']])")" "[]"
check_match "overlapped: Russian advice follows the same variant" \
    "$(j "$TMP/jacobi_overlap.ru.json" "print(p['late_sender']['advice'])")" '^Приём уже выставлен заранее \(MPI_Irecv, завершённый в MPI_Waitall\)'
check_match "naive: Russian advice is the plain one" \
    "$(j "$TMP/jacobi_naive.ru.json" "print(p['late_sender']['advice'])")" '^Отправляйте раньше'

# --- the form on the small CASITA trace (blocking MPI_Send / MPI_Recv): order, not in, and,
# string fields, a variant without placeholders
CASITA=$DATA/otf2/casita-4_mpi_ls_barr
mkdir -p "$TMP/r1"
cat > "$TMP/r1/a.rules" <<'R'
declare composite event pp
member (send as send, recv as recv)
parameters (s = send.enter, r = recv.enter);
declare problem for pp
when s > r
parameters (
    id = "ls", name = "LS", description = "d",
    advice when recv.function in ("MPI_Wait", "MPI_Waitall") = "nonblocking",
    advice when recv.function in ("MPI_Recv") and send.function not in ("MPI_Isend")
        = "blocking {send.function}",
    advice when recv.function in ("MPI_Recv") = "second match never shown",
    advice = "plain",
    duration = min(s, recv.leave) - r, location = recv
);
declare composite event cc member (collective as c, shared collective_instance as all);
declare problem for cc
parameters (
    id = "field", name = "F", description = "d",
    advice when c.kind in ("barrier") = "a barrier ({c.op})",
    advice = "plain", duration = c.leave - c.enter, location = c
);
R
check "conditional rules load and run" $M --rules "$TMP/r1" --json "$CASITA" -o "$TMP/r1.json"
check_eq "first matching variant wins; and, not in" "$(j "$TMP/r1.json" "print(p['ls']['advice'])")" "blocking MPI_Send"
check_eq "a string field of the type" "$(j "$TMP/r1.json" "print(p['field']['advice'])")" "a barrier (barrier)"
sed -i 's/send.function not in ("MPI_Isend")/send.function not in ("MPI_Send")/' "$TMP/r1/a.rules"
check "rules load again" $M --rules "$TMP/r1" --json "$CASITA" -o "$TMP/r2.json"
check_eq "not in fails: the next variant" "$(j "$TMP/r2.json" "print(p['ls']['advice'])")" "second match never shown"

# --- load-time errors: file:line:col, exit 1, before the trace is read
bad() { # DESCRIPTION EXPECTED-MESSAGE-REGEX, rule file on stdin
    rm -rf "$TMP/bad"; mkdir -p "$TMP/bad"; cat > "$TMP/bad/b.rules"
    local msg rc
    msg=$($M --rules "$TMP/bad" "$CASITA" 2>&1 >/dev/null); rc=$?
    check_eq "$1: exit status" "$rc" 1
    check_match "$1: message" "$msg" "$2"
}
HEAD='declare composite event pp member (send as send, recv as recv);
declare problem for pp parameters (id = "x", name = "X", description = "d", duration = 1,'
bad "unknown member" 'b.rules:3:17: unknown member .snd. in an advice condition' <<R
$HEAD
    advice when snd.function in ("MPI_Recv") = "a", advice = "p");
R
bad "number field" "b.rules:3:17: field 'recv.bytes' is a number" <<R
$HEAD
    advice when recv.bytes in ("8") = "a", advice = "p");
R
bad "unknown item" "b.rules:3:17: event type 'recv' has no string item 'nosuch'" <<R
$HEAD
    advice when recv.nosuch in ("8") = "a", advice = "p");
R
bad "when on another parameter" "b.rules:3:5: only advice and advice_ru take 'when' \\(not 'name_ru'\\)" <<R
$HEAD
    name_ru when recv.function in ("MPI_Recv") = "a", advice = "p");
R
bad "a number in the list" "b.rules:3:35: expected a \"string\" in the list after 'in', got 'number'" <<R
$HEAD
    advice when recv.function in (3) = "a", advice = "p");
R
bad "missing in" "b.rules:3:31: expected 'in' in an advice condition" <<R
$HEAD
    advice when recv.function == "MPI_Recv" = "a", advice = "p");
R
bad "no plain fallback" "b.rules:2:1: problem lacks the parameter 'advice'" <<R
$HEAD
    advice when recv.function in ("MPI_Recv") = "a");
R
bad "bad placeholder in a variant" "b.rules:3:52: event type 'send' has no field 'nosuch'" <<R
$HEAD
    advice when recv.function in ("MPI_Recv") = "a {send.nosuch}", advice = "p");
R
bad "Russian lacks a variant" "b.rules:3:5: the 'advice_ru when' lines must repeat .*no Russian variant" <<R
$HEAD
    advice when recv.function in ("MPI_Recv") = "a", advice = "p", advice_ru = "п");
R
bad "Russian differs" "b.rules:4:5: the 'advice_ru when' lines must repeat .*differs" <<R
$HEAD
    advice when recv.function in ("MPI_Recv") = "a", advice = "p", advice_ru = "п",
    advice_ru when recv.function in ("MPI_Wait") = "б");
R
bad "Russian variant without plain advice_ru" "b.rules:2:1: 'advice_ru when' needs a plain advice_ru" <<R
$HEAD
    advice when recv.function in ("MPI_Recv") = "a", advice = "p",
    advice_ru when recv.function in ("MPI_Recv") = "б");
R
bad "in a composite" "b.rules:1:59: only advice and advice_ru take 'when'" <<'R'
declare composite event pp member (send as s) parameters (a when s.function in ("x") = 1);
R
bad "plain advice twice" "b.rules:3:68: parameter 'advice' given twice" <<R
$HEAD
    advice = "p", advice when recv.function in ("MPI_Recv") = "a", advice = "q");
R
finish test_advice_when
