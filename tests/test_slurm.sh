# samples/slurm/mpilens-cube.sbatch run as a plain bash script: the SLURM_* variables of a 2-node
# job are faked and `srun` is a shim that starts the same program with mpirun (4 ranks at most).
# Checks the bash syntax, the results directory named by the job id, the parallel cube that
# `mpilens info` reads (one host line per rank, its schedule, its retests), the estimate in the
# cube's log, the bisection CSV, the p2p CSV, the job's own info and report, the archive, and
# that `mpilens report` works on a copy unpacked elsewhere, as a user does after bringing the
# files back. Also the errors.
. tests/lib.sh
S=samples/slurm/mpilens-cube.sbatch
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

check "sbatch script: bash syntax" bash -n "$S"
check_match "sbatch header: nodes and tasks per node" "$(grep '^#SBATCH' "$S" | tr '\n' ' ')" \
    "#SBATCH --nodes=[0-9]+ #SBATCH --ntasks-per-node=[0-9]+"
check_match "module load placeholders, commented" "$(grep 'module load' "$S" | head -1)" "^# module load"

# The srun shim: takes srun's --name=value options, runs the rest under mpirun.
mkdir -p "$TMP/shim"
cat >"$TMP/shim/srun" <<'SH'
#!/bin/bash
n=4
while [ $# -gt 0 ]; do
    case "$1" in
        --ntasks=*) n=${1#--ntasks=} ;;
        --*=*) ;;
        *) break ;;
    esac
    shift
done
echo "srun-shim: $n tasks: $*" >>"$SHIM_LOG"
[ "$n" -le 4 ] || { echo "srun-shim: $n tasks, want at most 4" >&2; exit 1; }
exec mpirun --allow-run-as-root --oversubscribe -np "$n" "$@"
SH
chmod +x "$TMP/shim/srun"

job=4242$RANDOM
(
    cd "$TMP" || exit 1
    export PATH="$TMP/shim:$PATH" SHIM_LOG="$TMP/shim.log"
    export SLURM_JOB_ID=$job SLURM_SUBMIT_DIR=$TMP SLURM_JOB_NUM_NODES=2 SLURM_NNODES=2
    export SLURM_NTASKS=4 SLURM_NTASKS_PER_NODE=2 SLURM_JOB_NODELIST="node[01-02]"
    export MPILENS_BIN=$OLDPWD/$BIN CUBE_ARGS="-t one_to_one -b 0 -e 1537 -s 512 -n 7"
    export P2P_ARGS="-n 30 -e 65537" BISECT_ARGS="-r 2 -s 64KiB"
    bash "$OLDPWD/$S" </dev/null >"$TMP/job.out" 2>"$TMP/job.err"
)
check_eq "job script exits 0" "$?" "0"
R=$TMP/results/$job
check_match "srun ran the cube on 4 tasks" "$(sed -n 1p "$TMP/shim.log")" "^srun-shim: 4 tasks: .*mpilens-bench -t one_to_one .* -f $R/cube/network"
check_match "srun ran the cube under the parallel schedule with its estimate" "$(sed -n 1p "$TMP/shim.log")" \
    "mpilens-bench -t one_to_one .* --schedule parallel --estimate --timing -f "
check_match "srun ran the bisection on every task" "$(sed -n 2p "$TMP/shim.log")" \
    "^srun-shim: 4 tasks: .*mpilens-bench -t bisection -r 2 -s 64KiB -f $R/bisection/run$"
check_match "srun ran p2p on 2 nodes x 2" "$(sed -n 3p "$TMP/shim.log")" "^srun-shim: 4 tasks: .*mpilens-bench -t p2p --pairs per-node"
for f in average median deviation min; do
    check "cube file $f" test -s "$R/cube/network_$f.nc"
done
check_eq "hosts file: one line per rank" "$(wc -l <"$R/cube/network_hosts.txt")" "4"
check_match "cube log: every length with its timing" "$(grep -c 'timing length' "$R/cube/log.txt")" "^4$"
check_eq "--timing: positive measure, non-negative gather and write, memory in kB" "$(awk '/timing length/ {
    ok = $8 + 0 > 0 && $11 + 0 >= 0 && $14 + 0 >= 0 && $20 + 0 > 1000 && $25 + 0 > 1000 && $7 == "measure"; bad += !ok } END { print bad + 0 }' "$R/cube/log.txt")" "0"
check_match "cube log: the estimate before the sweep" "$(grep -v "^\[hwloc" "$R/cube/log.txt" | sed -n 1p)" \
    "^mpilens-bench: estimate for one_to_one on 4 ranks, 4 lengths"
check_match "cube log: the measured run beside the estimate" "$(grep 'measured:' "$R/cube/log.txt")" \
    "for the run \(estimate .* s, [0-9.]+x\)$"
check_match "cube info (made by the job): parallel, 3 rounds" "$(cat "$R/cube/info.txt")" "schedule: +parallel, 3 rounds"
check_match "cube info: the retests" "$(cat "$R/cube/info.txt")" "retests: +[0-9]+ cells measured again alone"
check_eq "retest companion: its header" "$(head -1 "$R/cube/network_retest.csv")" \
    "length,sender,receiver,first,retest,z,retest_z,role"
check_eq "retest companion: one control per length" "$(grep -c ',control$' "$R/cube/network_retest.csv")" "4"
check_eq "bisection CSV: its header" "$(grep -v '^#' "$R/bisection/run_bisection.csv" | head -1)" \
    "round,pairs,bytes,seconds,bandwidth_Bps,slowest_pair_Bps,slowest_sender,slowest_receiver"
check_eq "bisection CSV: 2 rounds of 2 pairs" "$(grep -v '^#' "$R/bisection/run_bisection.csv" | tail -n +2 | cut -d, -f1,2 | tr '\n' ' ')" "0,2 1,2 "
check_match "bisection info (made by the job)" "$(cat "$R/bisection/info.txt")" "test: +bisection bandwidth, 2 pairs per round"
check_match "report made by the job is a PDF" "$(head -c 5 "$R/report.pdf" 2>/dev/null)" "^%PDF-"
check_match "job.txt: what ran where" "$(cat "$R/job.txt")" "job $job on 2 nodes, 4 tasks, launcher srun"
check_match "job.txt: the p2p sweep on 2 nodes" "$(sed -n 5p "$R/job.txt")" " on 2 nodes$"
check_match "job.txt: the bisection" "$(sed -n 6p "$R/job.txt")" "^bisection: mpilens-bench -t bisection -r 2 -s 64KiB$"
check_eq "p2p CSV: 18 sizes" "$(tail -n +2 "$R/p2p/pairs_p2p.csv" | wc -l)" "18"
check_match "output says how to bring the files back" "$(cat "$TMP/job.out")" "scp .*mpilens-$job.tar.gz"
check_match "output says how to make the report" "$(cat "$TMP/job.out")" "mpilens report $job/cube/network $job/p2p/pairs -o"

# Brought back: unpack elsewhere, then info and report as the job's message says.
mkdir -p "$TMP/home"
check "archive unpacks" tar -C "$TMP/home" -xzf "$TMP/results/mpilens-$job.tar.gz"
info=$("$BIN/mpilens" info "$TMP/home/$job/cube/network" 2>&1)
check_match "mpilens info on the copy: its retests beside it" "$info" "retests: .*$job/cube/network_retest.csv"
check_match "mpilens info on the copied bisection" "$("$BIN/mpilens" info "$TMP/home/$job/bisection/run" 2>&1)" "rounds: +2"
check_match "mpilens info reads the copy" "$info" "processes: +4"
check_match "mpilens info: the 4 lengths" "$info" "lengths: +4, from 0 to 1536 bytes step 512"
check "mpilens p2p reads the copy" "$BIN/mpilens" p2p "$TMP/home/$job/p2p/pairs"
check "mpilens report on the copy: cube and p2p" "$BIN/mpilens" report "$TMP/home/$job/cube/network" \
    "$TMP/home/$job/p2p/pairs" -o "$TMP/home/report.pdf"
check_match "report is a PDF" "$(head -c 5 "$TMP/home/report.pdf" 2>/dev/null)" "^%PDF-"

# Errors: outside a job, and without the program.
check_exit "outside a Slurm job" 1 env -u SLURM_JOB_ID bash "$S"
check_match "outside a job: message" "$(cat "$TMP/err")" "not inside a Slurm job"
check_exit "no mpilens-bench" 1 env SLURM_JOB_ID=1 MPILENS_BIN="$TMP/none" RESULTS="$TMP/none/results" bash "$S"
check_match "no program: message" "$(cat "$TMP/err")" "$TMP/none/mpilens-bench not found: set MPILENS_BIN"
check "no program: nothing written" test ! -e "$TMP/none"

# A cube run that fails (a bad mode): the job goes on to the p2p sweep and the archive, and
# exits 1 saying where the log is.
job2=77$RANDOM
(
    cd "$TMP" || exit 1
    export PATH="$TMP/shim:$PATH" SHIM_LOG="$TMP/shim2.log"
    export SLURM_JOB_ID=$job2 SLURM_SUBMIT_DIR=$TMP SLURM_JOB_NUM_NODES=1 SLURM_NTASKS=2
    export MPILENS_BIN=$OLDPWD/$BIN CUBE_ARGS="-t one_to_none" P2P_ARGS="-n 20 -e 1025" BISECT_ARGS="-r 1 -s 4KiB"
    bash "$OLDPWD/$S" </dev/null >"$TMP/job2.out" 2>"$TMP/job2.err"
)
check_eq "failed cube: job exits 1" "$?" "1"
check_match "failed cube: says where the log is" "$(cat "$TMP/job2.err")" "the cube run failed; see .*/$job2/cube/log.txt"
check_match "failed cube: the reason in the log" "$(cat "$TMP/results/$job2/cube/log.txt")" "unknown mode 'one_to_none'"
check "failed cube: the p2p sweep still ran" test -s "$TMP/results/$job2/p2p/pairs_p2p.csv"
check "failed cube: archive made" test -s "$TMP/results/mpilens-$job2.tar.gz"
check "failed cube: the bisection still ran" test -s "$TMP/results/$job2/bisection/run_bisection.csv"
check_match "failed cube: the report's failure is named too" "$(cat "$TMP/job2.err")" "mpilens report failed; see .*/$job2/report.log"
check_match "1-node job: job.txt says the p2p sweep ran on 1 node, not P2P_NODES" \
    "$(sed -n 5p "$TMP/results/$job2/job.txt")" " on 1 nodes$"

# SCHEDULE other than serial or parallel: refused before anything runs
check_exit "SCHEDULE=both refused" 1 env SLURM_JOB_ID=2 SCHEDULE=both MPILENS_BIN="$BIN" RESULTS="$TMP/sched" bash "$S"
check_match "SCHEDULE=both: message" "$(cat "$TMP/err")" "SCHEDULE=both: serial or parallel"
check "SCHEDULE=both: nothing written" test ! -e "$TMP/sched"

finish test_slurm
