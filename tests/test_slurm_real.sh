# samples/slurm/mpilens-cube.sbatch under a real Slurm: munged, slurmctld and slurmd (Debian's
# slurm-wlm) are started here on this one host with a generated slurm.conf, the sample is
# submitted with sbatch, waited for, and its results checked: the parallel cube with its
# estimate and retests, the bisection test, the p2p sweep, the job's own `mpilens info` and
# `report`, and the archive read back by `mpilens info`, `p2p` and `report`.
# Everything lives in $TMP (key, sockets, state, spool, logs); ports and cluster name are picked
# per run so that runs side by side do not meet; only the daemons started here are stopped.
# A missing package or a daemon that does not start is a FAILURE with the reason, never a skip.
# The caller's TMPDIR: the jobs get one inside the test's directory, the nested run below not.
TMPDIR0=${TMPDIR:-/tmp}
. tests/lib.sh
S=samples/slurm/mpilens-cube.sbatch
NAME=test_slurm_real
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# Bounds: a daemon has START_S to answer, each job JOB_S to finish (the test takes ~25 s).
START_S=${START_S:-30}
JOB_S=${JOB_S:-180}

# bail REASON: the test cannot go on; counts a failure and ends with the summary line.
bail() { fail "$1"; finish "$NAME"; exit 1; }

# Prerequisites: a fresh machine gets them from scripts/install-deps.sh --test (make check).
for p in munged mungekey munge unmunge slurmctld slurmd sbatch scontrol sinfo scancel mpirun python3; do
    command -v "$p" >/dev/null ||
        bail "$p not found: install slurm-wlm and munge (scripts/install-deps.sh --test)"
done
[ "$(id -u)" = 0 ] || bail "must run as root: the daemons run with SlurmUser=root and SlurmdUser=root"
{ [ -x "$BIN/mpilens-bench" ] && [ -x "$BIN/mpilens" ]; } || bail "$BIN/mpilens-bench or $BIN/mpilens missing: build first"

# Absolute paths: the job runs in its own directory and the daemons chdir.
ROOT=$PWD
ABIN=$(cd "$BIN" && pwd)
T=$TMP/slurm
mkdir -p "$T/munge" "$T/key" "$T/state" "$T/spool" "$T/submit" "$T/tmp"
# munged wants its socket reachable by every user (execute on each directory above it) and its
# key in a directory no one else can write: mktemp's 0700 is opened to 0711 (no listing).
chmod 711 "$TMP"
chmod 755 "$T" "$T/munge"
chmod 700 "$T/key"
# Run inside a Slurm job or with a user's SBATCH_ACCOUNT set, the clients would take those for
# this cluster's: only our SLURM_CONF and what the test sets below reach them.
for v in $(compgen -e | grep -E '^(SLURM|SBATCH|SRUN|SALLOC|SQUEUE|SINFO)_'); do unset "$v"; done
export SLURM_CONF=$T/slurm.conf
# The clients find munged through AuthInfo in slurm.conf; munge/unmunge take -S.
MSOCK=$T/munge/munge.socket

# ---- stopping: exactly what this run started, whatever happened --------------------------------
PIDS=""
job=""
# stop_pid PID: TERM, up to 10 s to go, then KILL.
stop_pid() {
    local pid=$1
    kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null
}
# A job's slurmstepd and its processes are not our children (slurmd daemonizes them), and
# slurmstepd works in slurmd's directory: they are found by a working directory or an open file
# inside $T (the job's directory, slurmd's log, the spool). ours_running: their pids.
ours_running() {
    find /proc/[0-9]*/cwd /proc/[0-9]*/fd -maxdepth 1 \( -lname "$T" -o -lname "$T/*" \) 2>/dev/null |
        cut -d/ -f3 | sort -u | grep -vx -e $$ -e "$BASHPID"
}
# stop_strays: a finished job's processes get 5 s to end on their own (slurmstepd lingers a
# moment after the job); what is left then is killed and named in STRAYS.
STRAYS=""
stop_strays() {
    local left
    for _ in $(seq 1 25); do
        left=$(ours_running)
        [ -z "$left" ] && return 0
        sleep 0.2
    done
    STRAYS=$(for p in $left; do echo "$p: $(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")"; done)
    # shellcheck disable=SC2086  # a list of pids
    kill -KILL $left 2>/dev/null
}
stop_all() {
    local p
    # Cancel first, while slurmctld still answers, so slurmd ends the job's processes itself.
    if [ -n "$job" ] && [ -n "$PIDS" ]; then scancel "$job" >/dev/null 2>&1; sleep 1; fi
    # Reverse order of start: slurmd, slurmctld, then munged that both need to the end.
    for p in $PIDS; do stop_pid "$p"; done
    PIDS=""
    stop_strays
}
trap 'stop_all; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM HUP

# show_logs: what the daemons said, for a failure's reader.
show_logs() {
    local f
    for f in "$T"/munged.log "$T"/slurmctld.log "$T"/slurmd.log "$T"/*.out "$T"/submit/*.out; do
        [ -s "$f" ] || continue
        echo "---- $f (last 25 lines)" >&2
        tail -n 25 "$f" >&2
    done
}

# ---- munged with its own key and socket ---------------------------------------------------------
mungekey --create --keyfile="$T/key/munge.key" 2>"$T/mungekey.err" ||
    bail "mungekey: $(cat "$T/mungekey.err")"
munged --foreground --socket="$MSOCK" --key-file="$T/key/munge.key" \
    --pid-file="$T/munge/munged.pid" --log-file="$T/munged.log" --seed-file="$T/munge/seed" \
    </dev/null >"$T/munged.out" 2>&1 &
PIDS="$! $PIDS"
# munged is ready when a credential made through its socket decodes.
ok_munge=0
for _ in $(seq 1 $((START_S * 5))); do
    if munge -n -S "$MSOCK" 2>/dev/null | unmunge -S "$MSOCK" >/dev/null 2>&1; then ok_munge=1; break; fi
    kill -0 "${PIDS%% *}" 2>/dev/null || break
    sleep 0.2
done
if [ "$ok_munge" != 1 ]; then
    show_logs
    bail "munged did not start: $(grep -hE 'Error|Alert' "$T/munged.out" "$T/munged.log" 2>/dev/null | tail -n 2 | tr '\n' ' ')"
fi
ok

# ---- slurm.conf ---------------------------------------------------------------------------------
# Two free ports below the usual ephemeral range (32768-), so no outgoing connection takes them
# between this pick and the daemons' bind; a bind that still loses the race fails loudly below.
read -r CTLD_PORT SLURMD_PORT < <(python3 - <<'PY'
import random, socket
got = []
while len(got) < 2:
    p = random.randrange(20000, 32000)
    s = socket.socket()
    try:
        s.bind(("", p)); got.append(p)
    except OSError:
        pass
    finally:
        s.close()
print(*got)
PY
)
HOST=$(hostname -s)
# The job wants 4 tasks on the one node: Slurm refuses more tasks per node than CPUs, even with
# --overcommit, so a smaller host is declared with 4 CPUs and config_overrides keeps slurmd
# from draining it for having fewer; Open MPI then runs the ranks oversubscribed.
CPUS=$(nproc)
[ "$CPUS" -ge 4 ] || CPUS=4
CLUSTER=mpilens$$x$RANDOM
# Job ids of their own too: PMIx and Open MPI name their rendezvous files and shared memory after
# the job and step ids, so two runs side by side, each with its job 1, would share them.
FIRST_JOB=$((1000 + RANDOM * 1000 + $$ % 1000))
# Every path is ours; the plugins are the ones that need no cgroup, no database and no systemd
# (proctrack/pgid, task/none, no accounting), as in a bare chroot. The node is this host on
# loopback; RealMemory is small so that slurmd never finds less.
cat >"$SLURM_CONF" <<CONF
ClusterName=$CLUSTER
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MSOCK
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
TmpFS=$T/tmp
FirstJobId=$FIRST_JOB
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
MinJobAge=600
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=256 State=UNKNOWN
PartitionName=mpilens Nodes=$HOST Default=YES MaxTime=10 State=UP
${MPILENS_SLURM_CONF_EXTRA:-}
CONF
# slurmd 22.05 loads a cgroup plugin whatever the proctrack and task plugins are, and the
# default (autodetect) fails where /sys/fs/cgroup is not mounted, as in a bare chroot. The v1
# plugin pointed at an empty folder of ours loads there and here alike; nothing uses it.
mkdir -p "$T/cgroup"
cat >"$(dirname "$SLURM_CONF")/cgroup.conf" <<CONF
CgroupPlugin=cgroup/v1
CgroupMountpoint=$T/cgroup
CgroupAutomount=no
CONF

# ---- slurmctld and slurmd -----------------------------------------------------------------------
# start_daemon NAME CHECK ARGS...: start NAME in the foreground (-D) in the background and wait
# until CHECK succeeds; if NAME exits or CHECK never succeeds, fail with its last log lines.
start_daemon() {
    local name=$1 check=$2 pid
    shift 2
    "$name" -D "$@" </dev/null >"$T/$name.out" 2>&1 &
    pid=$!
    PIDS="$pid $PIDS"
    for _ in $(seq 1 $((START_S * 2))); do
        if ! kill -0 "$pid" 2>/dev/null; then
            show_logs
            bail "$name exited at start: $(why "$name")"
        fi
        $check && return 0
        sleep 0.5
    done
    show_logs
    bail "$name did not answer within ${START_S} s: $(why "$name")"
}
# why NAME: the daemon's last errors, from its log file, or from its stdout when it died before
# opening the log (a bad slurm.conf path).
why() {
    local f=$T/$1.log
    [ -s "$f" ] || f=$T/$1.out
    grep -hE 'error|fatal' "$f" 2>/dev/null | tail -n 3 | tr '\n' ' '
}
ctld_up() { scontrol ping 2>/dev/null | grep -q 'is UP'; }
node_idle() { [ "$(sinfo -h -n "$HOST" -o %T 2>/dev/null)" = idle ]; }
start_daemon slurmctld ctld_up -f "$SLURM_CONF"
ok
start_daemon slurmd node_idle -f "$SLURM_CONF"
ok
check_match "sinfo: the partition with this host" "$(sinfo -h -o '%P %D %N %c' 2>&1)" "^mpilens\* 1 $HOST $CPUS$"

# ---- the jobs -----------------------------------------------------------------------------------
# As a user would: the sample unchanged, its #SBATCH lines overridden on the command line (one
# node, 4 tasks, 5 minutes; --exclusive stays, the node is ours), the settings through the
# environment (--export=ALL is sbatch's default). Twice, once per launcher the sample knows:
# srun, its default, with PMIx (SLURM_MPI_TYPE, as `srun --mpi=pmix`: Debian's Open MPI and
# Slurm both speak it), and Open MPI's mpirun, which finds the allocation from SLURM_* itself.
export MPILENS_BIN=$ABIN RESULTS=$T/results
# The job's scratch in ours as well: Open MPI's session directory (TMPDIR) and its shared-memory
# segments (/dev/shm otherwise, where a job killed at the time limit would leave them).
export TMPDIR=$T/tmp OMPI_MCA_btl_vader_backing_directory=$T/tmp
export CUBE_ARGS="-t one_to_one -b 0 -e 1537 -s 512 -n 7" P2P_ARGS="-n 30 -e 65537" BISECT_ARGS="-r 2 -s 64KiB"
H=$TMP/home
mkdir -p "$H"

# run_sample LAUNCH: submit, wait, check what the job left and what mpilens makes of it.
run_sample() {
    local L=$1 state deadline info R out
    job=$(cd "$T/submit" && LAUNCH=$L sbatch --parsable --partition=mpilens --nodes=1 \
        --ntasks-per-node=4 --time=5 --output="$T/submit/mpilens-cube-%j.out" "$ROOT/$S" 2>"$T/sbatch.err")
    job=${job%%;*}
    check_match "$L: sbatch accepts the sample" "$job" "^[0-9]+$"
    [ -n "$job" ] || { show_logs; bail "sbatch: $(cat "$T/sbatch.err")"; }

    # Bounded wait for a final state; scontrol keeps finished jobs for MinJobAge seconds.
    state=""
    deadline=$((SECONDS + JOB_S))
    while [ $SECONDS -lt $deadline ]; do
        state=$(scontrol show job "$job" -o 2>/dev/null | grep -oE 'JobState=[A-Z_]+' | cut -d= -f2)
        case "$state" in
            PENDING | CONFIGURING | RUNNING | COMPLETING | "") sleep 1 ;;
            *) break ;;
        esac
    done
    if [ "$state" != COMPLETED ]; then
        echo "job $job: $(scontrol show job "$job" 2>&1)" >&2
        show_logs
        case "$state" in
            PENDING | CONFIGURING | RUNNING | COMPLETING | "")
                bail "$L: job $job did not end within $JOB_S s (state ${state:-unknown})" ;;
            *) bail "$L: job $job ended $state" ;;
        esac
    fi
    ok
    info=$(scontrol show job "$job" -o)
    check_match "$L: job exit code 0" "$info" "ExitCode=0:0"
    check_match "$L: job ran on this host with 4 tasks" "$info" "NodeList=$HOST .*NumTasks=4 "

    R=$T/results/$job
    out=$T/submit/mpilens-cube-$job.out
    check_match "$L: job output: done, archive named by job id" "$(cat "$out" 2>&1)" \
        "mpilens-cube: done; results in $R .* archive $T/results/mpilens-$job.tar.gz"
    # job.txt is written from Slurm's own variables: the real ones, not the script's defaults.
    check_eq "$L: job.txt: Slurm's job id, 1 node, 4 tasks" "$(sed -n 1p "$R/job.txt" 2>&1)" \
        "job $job on 1 nodes, 4 tasks, launcher $L"
    check_eq "$L: job.txt: Slurm's node list" "$(sed -n 2p "$R/job.txt" 2>&1)" "nodes: $HOST"
    check_match "$L: job.txt: the p2p sweep on the one node there is" "$(sed -n 5p "$R/job.txt" 2>&1)" " on 1 nodes$"
    for f in average median deviation min; do
        check "$L: cube file $f" test -s "$R/cube/network_$f.nc"
    done
    # One MPI job of 4 ranks, not 4 jobs of 1: each rank wrote its host once.
    check_eq "$L: hosts file: 4 ranks, all on this host" \
        "$(sort "$R/cube/network_hosts.txt" 2>&1 | uniq -c | awk '{print $1, $2}')" "4 $HOST"
    check_eq "$L: cube log: the 4 lengths timed" "$(grep -c 'timing length' "$R/cube/log.txt" 2>&1)" "4"
    check_eq "$L: p2p CSV: 18 sizes" "$(tail -n +2 "$R/p2p/pairs_p2p.csv" 2>/dev/null | wc -l)" "18"
    # The sample's defaults: the parallel schedule with its estimate and retests, the bisection.
    check_match "$L: cube log: the estimate first" "$(grep -v "^\[hwloc" "$R/cube/log.txt" 2>&1 | sed -n 1p)" \
        "^mpilens-bench: estimate for one_to_one on 4 ranks, 4 lengths"
    check_match "$L: cube log: measured beside the estimate" "$(grep 'measured:' "$R/cube/log.txt" 2>&1)" \
        "for the run \(estimate .* s, [0-9.]+x\)$"
    check_match "$L: the job's cube info: parallel, 3 rounds" "$(cat "$R/cube/info.txt" 2>&1)" "schedule: +parallel, 3 rounds"
    check_match "$L: the job's cube info: the retests" "$(cat "$R/cube/info.txt" 2>&1)" \
        "retests: +[0-9]+ cells measured again alone"
    check_eq "$L: retest companion: its header" "$(head -1 "$R/cube/network_retest.csv" 2>&1)" \
        "length,sender,receiver,first,retest,z,retest_z,role"
    check_eq "$L: retest companion: one control per length" "$(grep -c ',control$' "$R/cube/network_retest.csv" 2>&1)" "4"
    # the provenance comments ("# key: value") come first, then the header
    check_eq "$L: bisection CSV: its header" "$(grep -v '^#' "$R/bisection/run_bisection.csv" 2>&1 | head -1)" \
        "round,pairs,bytes,seconds,bandwidth_Bps,slowest_pair_Bps,slowest_sender,slowest_receiver"
    check_match "$L: bisection CSV: the launcher is Slurm's" "$(grep '^# launcher: ' "$R/bisection/run_bisection.csv" 2>&1)" \
        "Slurm job [0-9]+"
    check_eq "$L: bisection CSV: 2 rounds of 2 pairs" \
        "$(grep -v '^#' "$R/bisection/run_bisection.csv" 2>/dev/null | tail -n +2 | cut -d, -f1,2 | tr '\n' ' ')" "0,2 1,2 "
    check_match "$L: the job's bisection info" "$(cat "$R/bisection/info.txt" 2>&1)" \
        "test: +bisection bandwidth, 2 pairs per round"
    check_match "$L: the job's report is a PDF" "$(head -c 5 "$R/report.pdf" 2>/dev/null)" "^%PDF-"

    # Brought back as the job's message says: unpack elsewhere, then info, p2p and report.
    mkdir -p "$H/$L"
    check "$L: archive unpacks" tar -C "$H/$L" -xzf "$T/results/mpilens-$job.tar.gz"
    info=$("$BIN/mpilens" info "$H/$L/$job/cube/network" 2>&1)
    check_match "$L: mpilens info: 4 processes" "$info" "processes: +4"
    check_match "$L: mpilens info: the 4 lengths" "$info" "lengths: +4, from 0 to 1536 bytes step 512"
    check_match "$L: mpilens info on the copy: the retests beside it" "$info" "retests: .*/$job/cube/network_retest.csv"
    check_match "$L: mpilens info on the copied bisection" "$("$BIN/mpilens" info "$H/$L/$job/bisection/run" 2>&1)" "rounds: +2"
    check "$L: mpilens p2p reads the sweep" "$BIN/mpilens" p2p "$H/$L/$job/p2p/pairs"
    check "$L: mpilens report: cube and p2p" "$BIN/mpilens" report "$H/$L/$job/cube/network" \
        "$H/$L/$job/p2p/pairs" -o "$H/$L/report.pdf" --figures "$H/$L/figures"
    check_match "$L: report is a PDF" "$(head -c 5 "$H/$L/report.pdf" 2>/dev/null)" "^%PDF-"
}
SLURM_MPI_TYPE=pmix run_sample srun
MPIRUN_ARGS="--allow-run-as-root --oversubscribe" run_sample mpirun

# ---- the daemons go, and only ours --------------------------------------------------------------
started=$PIDS
stop_all
alive=""
for p in $started; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
check_eq "munged, slurmctld and slurmd stopped" "$alive" ""
check_eq "no process of the jobs outlived the daemons" "$STRAYS" ""

# ---- a slurmctld that cannot start is a failure that says why -----------------------------------
# This same test with a select plugin that does not exist: it must fail, naming the fatal line,
# and leave no daemon behind. MPILENS_SLURM_CONF_EXTRA (lines added to slurm.conf) is set only
# here; it is no SLURM_* name, which the test clears.
if [ -z "${MPILENS_SLURM_CONF_EXTRA:-}" ]; then
    MPILENS_SLURM_CONF_EXTRA="SelectType=select/none_such" TMPDIR=$TMPDIR0 bash "$0" >"$TMP/broken.out" 2>&1
    check_eq "broken slurm.conf: the test fails" "$?" "1"
    check_match "broken slurm.conf: the reason" "$(grep '^FAIL' "$TMP/broken.out")" \
        "^FAIL: slurmctld exited at start: .*fatal: Can't find plugin for select/none_such"
    # Its daemons would be found by their command lines, which name its own directory.
    bt=$(sed -n 's|^---- \(/.*/slurm\)/[^/]* (last .*|\1|p' "$TMP/broken.out" | head -n 1)
    check_match "broken slurm.conf: its logs shown" "$bt" "/slurm$"
    left=""
    [ -n "$bt" ] && for d in /proc/[0-9]*; do
        c=$(tr '\0' ' ' 2>/dev/null <"$d/cmdline") || continue
        case "$c" in *"$bt/"*) left="$left ${d#/proc/}: $c" ;; esac
    done
    check_eq "broken slurm.conf: no daemon left" "$left" ""
    check_match "broken slurm.conf: summary line" "$(tail -n 1 "$TMP/broken.out")" "^$NAME: [0-9]+ passed, 1 failed$"
fi

finish "$NAME"
