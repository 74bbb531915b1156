#!/usr/bin/env bash
# Description and advice templates (docs/problems.md, "Templates"): a rule file written here,
# at test time, whose texts name the composite's members, fields, call sites and the duration;
# expanded once per problem on its largest instance in the listing, the JSON (both languages)
# and the PDF, checked against the largest late sender computed with awk from otf2-print (an
# independent reader). Then the load-time errors: an unknown name is file:line:col before any
# trace is read.
. tests/lib.sh
CASITA=$DATA/otf2/casita-4_mpi_ls_barr
M="$BIN/mpilens problems"
export SOURCE_DATE_EPOCH=1700000000

# --- reference: per receiving rank, late sender = send enter - recv enter (ticks / resolution),
# the sender from the MPI_SEND record; the largest of them is the instance the texts show
otf2-print "$CASITA/traces.otf2" > "$TMP/casita.txt"
res=$(otf2-print -G "$CASITA/traces.otf2" | sed -n 's/.*Ticks per Seconds: \([0-9]*\).*/\1/p')
read -r want_rank want_sender want_ms < <(awk -v res="$res" '
$1 == "ENTER" && $5 == "\"MPI_Recv\"" { recv_enter[$2] = $3 }
$1 == "ENTER" && $5 == "\"MPI_Send\"" { send_enter[$2] = $3 }
$1 == "MPI_SEND" { sender_of[$5] = $2 }
END {
    best = -1
    for (r in recv_enter) {
        w = (send_enter[sender_of[r]] - recv_enter[r]) / res
        if (w > best) { best = w; br = r; bs = sender_of[r] }
    }
    printf "%d %d %.6f\n", br, bs, best * 1000
}' "$TMP/casita.txt")
check "reference computed" test -n "$want_ms"

mkdir -p "$TMP/rules"
cat > "$TMP/rules/mine.rules" <<'R'
declare composite event point_to_point
member (send as send, recv as recv)
parameters (send_start_time = send.enter, recv_wait_start_time = recv.enter);

declare problem for point_to_point
when send_start_time > recv_wait_start_time
parameters (
    id = "late_sender_t",
    name = "Late sender (templated)",
    description = "Rank {recv.rank} waited {duration:ms} for rank {send.rank} "
                  "(tag {send.tag}, {{braces}})",
    advice = "Move the {send.function} in {send.caller} earlier; the wait was in {recv.site}",
    name_ru = "Поздний отправитель",
    description_ru = "Процесс {recv.rank} ждал {duration:ms} процесс {send.rank}",
    duration = min(send_start_time, recv.leave) - recv_wait_start_time,
    location = recv
);

declare problem for point_to_point
when false
parameters (
    id = "never",
    name = "Never",
    description = "Rank {recv.rank} never waits",
    advice = "Nothing to do for {send.caller}",
    duration = 1,
    location = recv
);
R

# --- text listing
out=$($M --rules "$TMP/rules" "$CASITA" 2>/dev/null)
desc=$(printf '%s\n' "$out" | sed -n 's/^  \(Rank .*\)/\1/p')
check_match "description expanded" "$desc" "^Rank $want_rank waited [0-9.]+ ms for rank $want_sender \\(tag 0, \\{braces\\}\\)$"
got_ms=$(printf '%s' "$desc" | sed -n 's/.* waited \([0-9.]*\) ms.*/\1/p')
check_close "duration in ms vs otf2-print" "$got_ms" "$want_ms" 1
adv=$(printf '%s\n' "$out" | sed -n 's/^  advice: //p')
check_eq "advice expanded" "$adv" "Move the MPI_Send in late_sender earlier; the wait was in MPI_Recv called from late_sender"

# --- JSON: the same texts, and the duration is the largest instance's seconds
check "problems --json" $M --rules "$TMP/rules" --json "$CASITA" -o "$TMP/t.json"
j() { /usr/bin/python3 -c "import json; d=json.load(open('$1')); p={x['id']:x for x in d['problems']}; $2"; }
check_eq "JSON description" "$(j "$TMP/t.json" "print(p['late_sender_t']['description'])")" "$desc"
check_eq "JSON advice" "$(j "$TMP/t.json" "print(p['late_sender_t']['advice'])")" "$adv"
check_eq "duration is top instance" "$(j "$TMP/t.json" "i=p['late_sender_t']['instances'][0]; import sys; sys.path.insert(0, 'tests'); from units import num; print('%d %s' % (i['rank'], num(i['seconds']*1000)))")" "$want_rank $got_ms"
# a problem without instances shows its template as written
check_eq "no instance: as written" "$(j "$TMP/t.json" "print(p['never']['description'])")" "Rank {recv.rank} never waits"

# --- Russian: its own template, units in Russian; no Russian advice falls back to English
check "problems --json --lang ru" $M --rules "$TMP/rules" --lang ru --json "$CASITA" -o "$TMP/ru.json"
check_match "Russian description" "$(j "$TMP/ru.json" "print(p['late_sender_t']['description'])")" "^Процесс $want_rank ждал $got_ms мс процесс $want_sender$"
check_eq "Russian advice falls back" "$(j "$TMP/ru.json" "print(p['late_sender_t']['advice'])")" "$adv"

# --- PDF
check_exit "problems --report" 0 $M --rules "$TMP/rules" "$CASITA" --report "$TMP/t.pdf"
pdftotext "$TMP/t.pdf" - 2>/dev/null | tr -s ' \n' '  ' > "$TMP/t.txt"
check_match "PDF description" "$(cat "$TMP/t.txt")" "Rank $want_rank waited $got_ms ms for rank $want_sender"
check_match "PDF advice" "$(cat "$TMP/t.txt")" "Move the MPI_Send in late_sender earlier"

# --- load-time errors: file:line:col of the brace, before the trace is read (it does not exist)
bad() { # name, description text, expected message
    mkdir -p "$TMP/bad"
    { sed -n '1,3p' "$TMP/rules/mine.rules"
      printf 'declare problem for point_to_point parameters (id = "x", name = "x",\n'
      printf '    description = %s,\n' "$2"
      printf '    advice = "a", duration = 1);\n'; } > "$TMP/bad/b.rules"
    check_exit "$1: refused" 1 $M --rules "$TMP/bad" "$TMP/no-such-trace"
    check_match "$1: message" "$(cat "$TMP/err")" "$3"
}
bad "unknown field" '"Rank {recv.nosuch}"' "bad/b.rules:5:25: event type 'recv' has no field 'nosuch'"
bad "unknown name" '"x {foo:ms}"' "b.rules:5:22: unknown name 'foo' in a placeholder"
bad "unknown member" '"{sender.rank}"' "b.rules:5:20: unknown member 'sender'"
bad "event as value" '"{send}"' "b.rules:5:20: 'send' is an event, not a value"
bad "stray brace" '"a } b"' "b.rules:5:22: '}' closes no placeholder"
bad "unclosed" '"a {duration"' "b.rules:5:22: placeholder '\\{duration' is not closed"
bad "unit of a string" '"{send.caller:ms}"' "b.rules:5:20: unit ':ms' given to 'caller', which is a string"
bad "unknown unit" '"{duration:h}"' "b.rules:5:20: unknown unit ':h'"
# in the second of two joined literals: the column is that literal's
bad "joined literal" '"ok {duration:s} " "then {recv.bad}"' "b.rules:5:44: event type 'recv' has no field 'bad'"
finish test_rules_templates
