#!/usr/bin/env bash
# General composite events (docs/problems.md, "General composite events"): the two problems of
# templates/rules/sequence.rules on the traced samples that provoke them, redundant_barrier
# (a barrier directly followed by a synchronising collective on the same communicator) and
# unsafe_exchange (nested: Send then Recv on both sides of an exchange), each counted against
# awk over otf2-print's listing (an independent reader that knows nothing of the matcher);
# then a rule file written here at test time, with composites of its own (three calls in a
# row, and a nested one); then the load-time errors of the matcher's plan.
. tests/lib.sh
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 -x OMPI_MCA_mpi_yield_when_idle=1"
S=$BUILD/bin/samples
PY=/usr/bin/python3
export SOURCE_DATE_EPOCH=1700000000

for s in redundant_barrier unsafe_exchange; do
    check "trace of $s" $BIN/mpilens trace -o "$TMP/$s" -- $MPIRUN -np 4 "$S/$s" \
        < /dev/null
    check "problems on $s" $BIN/mpilens problems --json "$TMP/$s" -o "$TMP/$s.json"
    otf2-print "$TMP/$s/traces.otf2" > "$TMP/$s.txt" 2>/dev/null
done
# j FILE ID EXPR: EXPR over p (that problem's JSON object)
j() { $PY -c "import json; d=json.load(open('$1')); p={x['id']:x for x in d['problems']}['$2']; $3"; }
line_of() { grep -n "PROBLEM $2\b" "samples/apps/$1.c" | cut -d: -f1; }

# --- redundant_barrier: per rank, a barrier whose next MPI call is a barrier or a many-to-many
# collective on the same communicator (the communicator from MPI_COLLECTIVE_END)
want=$(awk '
$1 == "ENTER" && $5 ~ /^"MPI_/ { op[$2] = ""; comm[$2] = "" }
$1 == "MPI_COLLECTIVE_END" {
    o = $5; sub(",", "", o); op[$2] = o
    for (i = 6; i <= NF; i++) if ($i ~ /^<[0-9]+>,?$/) { comm[$2] = $i; break }
}
$1 == "LEAVE" && $5 ~ /^"MPI_/ {
    l = $2
    if (pop[l] == "BARRIER" && op[l] ~ /^(BARRIER|ALLREDUCE|ALLGATHERV?|ALLTOALL[VW]?|REDUCE_SCATTER(_BLOCK)?)$/ && pcomm[l] == comm[l]) n++
    pop[l] = op[l]; pcomm[l] = comm[l]
}
END { print n + 0 }' "$TMP/redundant_barrier.txt")
check_eq "redundant barriers: the program's 40" "$want" 40
R=$TMP/redundant_barrier.json
check_eq "redundant_barrier count vs otf2-print" "$(j "$R" redundant_barrier "print(p['count'])")" "$want"
check_eq "every rank charged" "$(j "$R" redundant_barrier "print(all(x > 0 for x in p['per_rank']))")" True
line=$(line_of redundant_barrier redundant_barrier)
check_eq "only the marked barrier" "$(j "$R" redundant_barrier "print(' '.join(sorted(set(str(c['line']) for c in p['callsites'] if c['role'] == 'waits'))))")" "$line"
check_match "cause is the Allreduce" "$(j "$R" redundant_barrier "print(p['callsites'][-1]['function'])")" "^MPI_Allreduce$"
check_match "advice names the line" "$(j "$R" redundant_barrier "print(p['advice'])")" "Remove the MPI_Barrier in main \\(redundant_barrier.c:$line\\): the MPI_Allreduce after it"
# the built-in problems still see the same barriers: the imbalance is wait_at_barrier's
check_eq "wait_at_barrier still found" "$(j "$R" wait_at_barrier "print(p['total_s'] > 0)")" True

# --- unsafe_exchange: Send then Recv with the same partner, where the partner's pair is the
# other end of both messages (messages keyed source:destination:tag:ordinal, MPI's order)
want=$(awk '
$1 == "ENTER" && $5 ~ /^"MPI_/ { fn[$2] = $5; key[$2] = ""; peer[$2] = "" }
$1 == "MPI_SEND" || $1 == "MPI_RECV" {
    l = $2; match($0, /Tag: [0-9]+/); t = substr($0, RSTART + 5, RLENGTH - 5); peer[l] = $5
    if ($1 == "MPI_SEND") key[l] = l ":" $5 ":" t ":" (++ns[l, $5, t])
    else key[l] = $5 ":" l ":" t ":" (++nr[$5, l, t])
}
$1 == "LEAVE" && $5 ~ /^"MPI_/ {
    l = $2
    if (pfn[l] == "\"MPI_Send\"" && fn[l] == "\"MPI_Recv\"" && ppeer[l] == peer[l]) { pair[pkey[l]] = key[l]; np++; s[np] = pkey[l] }
    pfn[l] = fn[l]; pkey[l] = key[l]; ppeer[l] = peer[l]
}
END { for (i = 1; i <= np; i++) { r = pair[s[i]]; if ((r in pair) && pair[r] == s[i]) n++ } print n + 0 }' "$TMP/unsafe_exchange.txt")
check_eq "unsafe exchanges: the program's 40" "$want" 40
U=$TMP/unsafe_exchange.json
check_eq "unsafe_exchange count vs otf2-print" "$(j "$U" unsafe_exchange "print(p['count'])")" "$want"
line=$(line_of unsafe_exchange unsafe_exchange)
check_eq "only the unsafe send" "$(j "$U" unsafe_exchange "print(' '.join(sorted(set(str(c['line']) for c in p['callsites']))))")" "$line"
check_match "description names the pair" "$(j "$U" unsafe_exchange "print(p['description'])")" "Largest: rank ([0-9]) with rank [0-9], [0-9.]+ ms in the send\\.$"
# the redundant_barrier trace has no unsafe exchange, and the other way round
check_eq "no unsafe exchange in the barrier sample" "$(j "$R" unsafe_exchange "print(p['count'])")" 0
check_eq "no redundant barrier in the exchange sample" "$(j "$U" redundant_barrier "print(p['count'])")" 0

# --- a rule file the source never saw: three calls in a row, and a composite nesting another
mkdir -p "$TMP/mine"
cat > "$TMP/mine/mine.rules" <<'R'
declare composite event allreduce_barrier_shift
member (call as a, call as b, call as c)
when b.id == a.next and c.id == b.next and a.function == "MPI_Allreduce"
     and b.function == "MPI_Barrier" and c.function == "MPI_Sendrecv"
parameters (span = c.leave - a.enter);

declare problem for allreduce_barrier_shift
parameters (id = "triple", name = "Triple",
    description = "rank {c.rank}: {b.function} at line {b.line} between {a.op} and {c.function}",
    advice = "none", duration = span, location = c);

declare composite event barrier_next
member (call as bar, call as after)
when after.id == bar.next and bar.function == "MPI_Barrier"
parameters (after_id = after.id, bar_rank = bar.rank, bar_time = bar.leave - bar.enter);

declare composite event barrier_before_shift
member (call as c, barrier_next as p)
when p.after_id == c.id and c.function == "MPI_Sendrecv"
parameters (d = p.bar_time, r = p.bar_rank);

declare problem for barrier_before_shift
parameters (id = "nested", name = "Nested",
    description = "rank {r} ({p.bar_rank}) shifted after a barrier at {p.site}",
    advice = "none", duration = d, location = p);
R
check "own rules run" $BIN/mpilens problems --rules "$TMP/mine" --json "$TMP/redundant_barrier" -o "$TMP/mine.json"
ref() { awk -v want="$1" '
$1 == "ENTER" && $5 ~ /^"MPI_/ { seq[$2] = seq[$2] " " $5 }
END { for (l in seq) { s = seq[l]; while ((i = index(s, want)) > 0) { n++; s = substr(s, i + 1) } } print n + 0 }' "$TMP/redundant_barrier.txt"; }
triple=$(ref '"MPI_Allreduce" "MPI_Barrier" "MPI_Sendrecv"')
pair=$(ref '"MPI_Barrier" "MPI_Sendrecv"')
check_eq "triples in the trace" "$triple" 40
check_eq "triple count vs otf2-print" "$(j "$TMP/mine.json" triple "print(p['count'])")" "$triple"
check_eq "nested count vs otf2-print" "$(j "$TMP/mine.json" nested "print(p['count'])")" "$pair"
check_match "triple text" "$(j "$TMP/mine.json" triple "print(p['description'])")" "^rank [0-3]: MPI_Barrier at line [0-9]+ between allreduce and MPI_Sendrecv$"
check_match "nested text" "$(j "$TMP/mine.json" nested "print(p['description'])")" "^rank ([0-3]) \\(\\1\\) shifted after a barrier at MPI_Barrier called from main \\(redundant_barrier.c:[0-9]+\\)$"

# --- the collective shape as a general composite: each call of a collective instance and the
# shared set of all calls of that instance (its aggregates). The built-in kind's version of
# collective.rules is the shipped file turned back (composite head, is_root, the member's own
# prefix maximum, no cause); a hand-written composite without causes must equal it per rank,
# in counts and sites, and the shipped rule base must equal the kind's byte for byte.
mkdir -p "$TMP/builtin" "$TMP/general" "$TMP/kind"
sed -e 's/^member (call as c, shared calls as all)$/member (collective as c, shared collective_instance as all)/' \
    -e '/^when c.instance >= 0 and all.instance == c.instance$/d' \
    -e 's/c\.rank != all\.root/not c.is_root/' -e 's/c\.rank == all\.root/c.is_root/' \
    -e 's/all\.prefix_max_enter, own_leave/c.prefix_max_enter, own_leave/' \
    -e '/^    cause = all\./d' templates/rules/collective.rules > "$TMP/builtin/collective.rules"
check_eq "kind version written" "$(grep -c 'collective_instance\|is_root\|c.prefix_max_enter' "$TMP/builtin/collective.rules"):$(grep -c '^    cause = \|all\.root\b\|calls as all' "$TMP/builtin/collective.rules")" "4:0"
cp templates/rules/*.rules "$TMP/kind/"
cp "$TMP/builtin/collective.rules" "$TMP/kind/"
# p2p.rules likewise: the two message ends back to the kind's send + recv, without causes
sed -e 's/^member (send_msg as send, recv_msg as recv)$/member (send as send, recv as recv)/' \
    -e '/^when recv.id == send.id$/d' -e '/^    cause = \(send\|recv\)\./d' \
    templates/rules/p2p.rules > "$TMP/kind/p2p.rules"
# rma.rules: lock epochs and PSCW ends back to the kinds' pairs
sed -e 's/^member (lock_ep as l, lock_ep as holder)$/member (lock_epoch as l, shared lock_holder as holder);/' \
    -e 's/^member (pscw_access as a, pscw_exposure as x)$/member (access_epoch as a, shared exposure_epoch as x);/' \
    -e '/^when holder.id == l.prev;$/d' -e '/^when x.id == a.id;$/d' -e '/^    cause = /d' \
    templates/rules/rma.rules > "$TMP/kind/rma.rules"
check_eq "rma kind version written" "$(grep -c 'shared lock_holder as holder);$\|shared exposure_epoch as x);$' "$TMP/kind/rma.rules"):$(grep -c 'lock_ep as\|pscw_access\|pscw_exposure\|^    cause = ' "$TMP/kind/rma.rules")" "2:0"
check_eq "p2p kind version written" "$(grep -c '^member (send as send, recv as recv)$' "$TMP/kind/p2p.rules"):$(grep -c 'send_msg\|^    cause = ' "$TMP/kind/p2p.rules")" "1:0"
cat > "$TMP/general/coll.rules" <<'R'
declare composite event coll_general
member (call as c, shared calls as all)
when c.instance >= 0 and all.instance == c.instance
parameters (own_enter = c.enter, own_leave = c.leave, latest_enter = all.max_enter,
            earliest_leave = all.min_leave);
declare problem for coll_general when c.kind == "barrier"
parameters (id = "wait_at_barrier", name = "a",
            description = "{all.count} calls, the last in at {all.max_enter:s}, rank {c.rank} in at {c.enter:s}",
            advice = "a",
            duration = min(latest_enter, own_leave) - own_enter, location = c);
declare problem for coll_general when c.kind == "barrier"
parameters (id = "barrier_completion", name = "a", description = "d", advice = "a",
            duration = own_leave - max(earliest_leave, min(latest_enter, own_leave)),
            waits = "until_leave", location = c);
declare problem for coll_general when c.kind == "all_to_all"
parameters (id = "wait_at_nxn", name = "a", description = "d", advice = "a",
            duration = min(latest_enter, own_leave) - own_enter, location = c);
declare problem for coll_general when c.kind == "all_to_all"
parameters (id = "nxn_completion", name = "a", description = "d", advice = "a",
            duration = own_leave - max(earliest_leave, min(latest_enter, own_leave)),
            waits = "until_leave", location = c);
declare problem for coll_general when c.kind == "one_to_all" and c.rank != c.peer
parameters (id = "late_broadcast", name = "a", description = "d", advice = "a",
            duration = min(all.root_enter, own_leave) - own_enter, location = c);
declare problem for coll_general when c.kind == "all_to_one" and c.rank == c.peer
parameters (id = "early_reduce", name = "a", description = "d", advice = "a",
            duration = min(all.max_enter_nonroot, own_leave) - own_enter, location = c);
declare problem for coll_general when c.kind == "rma_create"
parameters (id = "rma_window_create_wait", name = "a", description = "d", advice = "a",
            duration = min(latest_enter, own_leave) - own_enter, location = c);
R
cat > "$TMP/same.py" <<'PY'
import json, sys
a = {x["id"]: x for x in json.load(open(sys.argv[1]))["problems"]}
b = {x["id"]: x for x in json.load(open(sys.argv[2]))["problems"]}
bad = []
for pid, g in b.items():
    w = a[pid]
    if g["count"] != w["count"]:
        bad.append("%s count %d want %d" % (pid, g["count"], w["count"]))
    if any(abs(x - y) > 1e-12 for x, y in zip(g["per_rank"], w["per_rank"])):
        bad.append("%s per rank %s want %s" % (pid, g["per_rank"], w["per_rank"]))
    role = lambda p, r: [(c["site"], c["count"]) for c in p["callsites"] if c["role"] == r]
    if role(g, "waits") != role(w, "waits"):
        bad.append("%s sites differ" % pid)
    # the set stands for its last call to enter: the built-in cause of barrier-like waits
    if pid in ("wait_at_barrier", "barrier_completion", "wait_at_nxn", "nxn_completion") and role(g, "cause") != role(w, "cause"):
        bad.append("%s causes differ" % pid)
print("; ".join(bad) if bad else "ok")
PY
for s in late_broadcast early_reduce late_fence imbalance_barrier lock_contention late_post; do
    check "trace of $s" $BIN/mpilens trace -o "$TMP/$s" -- $MPIRUN -np 4 "$S/$s" -d 20 \
        < /dev/null
done
for tr in "$TMP/redundant_barrier" "$TMP/unsafe_exchange" "$TMP/late_broadcast" \
          "$TMP/early_reduce" "$TMP/late_fence" "$TMP/imbalance_barrier" \
          "$TMP/lock_contention" "$TMP/late_post" \
          "$DATA/otf2/casita-4_mpi_ls_barr" "$DATA/otf2/pipit-ping-pong"; do
    $BIN/mpilens problems --rules "$TMP/builtin" --json "$tr" -o "$TMP/b.json" 2>/dev/null
    $BIN/mpilens problems --rules "$TMP/general" --json "$tr" -o "$TMP/g.json" 2>/dev/null
    check_eq "general collective shape = built-in on $(basename "$tr")" "$($PY "$TMP/same.py" "$TMP/b.json" "$TMP/g.json")" ok
    for lang in en ru; do
        $BIN/mpilens problems --rules "$TMP/kind" --lang $lang --json "$tr" -o "$TMP/k.json" 2>/dev/null
        $BIN/mpilens problems --lang $lang --json "$tr" -o "$TMP/s.json" 2>/dev/null
        check "shipped collective, p2p and rma.rules = built-in kinds, byte for byte, on $(basename "$tr") ($lang)" cmp "$TMP/k.json" "$TMP/s.json"
    done
    $BIN/mpilens problems --rules "$TMP/kind" "$tr" > "$TMP/k.txt" 2>/dev/null
    $BIN/mpilens problems "$tr" > "$TMP/s.txt" 2>/dev/null
    check "listing identical on $(basename "$tr")" cmp "$TMP/k.txt" "$TMP/s.txt"
done
# a set's aggregates in a text: the largest wait's instance, its last arrival after the rank
$BIN/mpilens problems --rules "$TMP/general" --json "$TMP/redundant_barrier" -o "$TMP/g.json" 2>/dev/null
txt=$(j "$TMP/g.json" wait_at_barrier "print(p['description'])")
check_match "set aggregates in a text" "$txt" "^4 calls, the last in at [0-9.]+ s, rank [0-3] in at [0-9.]+ s$"
# the wait is the last arrival minus the rank's arrival (the instance listed first)
check_close "largest wait from the aggregates" "$(echo "$txt" | awk '{ print $7 - $13 }')" \
    "$(j "$TMP/g.json" wait_at_barrier "print(p['instances'][0]['seconds'])")" 0.001
# the comparison is not vacuous: the samples' waits are there
for x in "late_broadcast late_broadcast" "early_reduce early_reduce" "redundant_barrier wait_at_barrier"; do
    set -- $x
    $BIN/mpilens problems --rules "$TMP/general" --json "$TMP/$1" -o "$TMP/g.json" 2>/dev/null
    check_eq "general $2 found on $1" "$(j "$TMP/g.json" "$2" "print(p['total_s'] > 0)")" True
done

# --- the plan is checked when the rules load (the trace does not exist)
plan() { # name, rules text, expected message
    mkdir -p "$TMP/bad"
    printf '%s\n' "$2" > "$TMP/bad/b.rules"
    check_exit "$1: refused" 1 $BIN/mpilens problems --rules "$TMP/bad" "$TMP/no-such-trace"
    check_match "$1: message" "$(cat "$TMP/err")" "$3"
}
plan "no key" 'declare composite event x member (call as a, call as b) when b.enter > a.leave and b.rank != a.rank;' \
    "b.rules:1:46: member 'b' of 'x' is tied to the members before it by no equality"
plan "only a constant" 'declare composite event x member (call as a, call as b) when b.function == "MPI_Send";' \
    "b.rules:1:46: member 'b' of 'x' is tied"
plan "nested before declared" 'declare composite event x member (call as a, y as b) when b.k == a.id; declare composite event y member (call as c) parameters (k = c.id);' \
    "b.rules:1:46: composite event 'y' is used before it is declared"
plan "built-in kind nested" 'declare composite event p member (send as s, recv as r) parameters (k = s.rank); declare composite event x member (call as a, p as b) when b.k == a.rank;' \
    "b.rules:1:[0-9]+: composite event 'p' is a built-in kind and cannot be nested"
plan "mixed with a pair type" 'declare composite event x member (call as a, send as s) when s.rank == a.rank;' \
    "b.rules:1:46: 'send' cannot be a member beside calls"
plan "unknown field of a nested" 'declare composite event y member (call as c) parameters (k = c.id); declare composite event x member (call as a, y as b) when b.nope == a.id;' \
    "event type 'y' has no field 'nope'"
plan "calls not shared" 'declare composite event x member (call as a, calls as b) when b.instance == a.instance;' \
    "b.rules:1:46: a 'calls' member is a set: declare it 'shared'"
plan "calls keyed by a non-key" 'declare composite event x member (call as a, shared calls as b) when b.count == a.rank;' \
    "b.rules:1:[0-9]+: only instance and comm key a 'calls' member"
# 'cause' is checked when the rules load too
C='declare composite event x member (call as c, shared calls as all) when all.instance == c.instance;'
P='declare problem for x parameters (id = "p", name = "n", description = "d", advice = "a", duration = 1, location = c,'
plan "cause not a member" "$C $P cause = nope);" "b.rules:1:[0-9]+: cause 'nope' is not a member of 'x'"
plan "cause no such field" "$C $P cause = all.nope);" "b.rules:1:[0-9]+: event type 'calls' has no field 'nope'"
plan "cause field picks no call" "$C $P cause = all.count);" "b.rules:1:[0-9]+: cause 'all.count' picks no call"
plan "cause field of a call" "$C $P cause = c.enter);" "b.rules:1:[0-9]+: cause 'c.enter' picks no call"
plan "cause field of a message end" 'declare composite event m member (send_msg as s, recv_msg as r) when r.id == s.id; declare problem for m parameters (id = "p", name = "n", description = "d", advice = "a", duration = 1, location = r, cause = s.tag);' \
    "b.rules:1:[0-9]+: cause 's.tag' picks no call"
plan "cause a number" "$C $P cause = 1);" "b.rules:1:[0-9]+: parameter 'cause' must name a member or member.field"
plan "cause on a built-in kind" 'declare composite event p member (send as s, recv as r); declare problem for p parameters (id = "p", name = "n", description = "d", advice = "a", duration = 1, location = r, cause = s);' \
    "b.rules:1:[0-9]+: 'cause' needs a composite of calls: the built-in kind 'p' names its cause itself"
finish test_composites
