#!/usr/bin/env bash
# The README's "Running on a SLURM cluster", step by step, on a single-node SLURM started here;
# then the quick preset run locally and both result trees compared byte for byte. CI (.ci/run)
# runs it as root on a fresh Debian machine with lutcore installed; by hand:
#   sudo tools/slurm_check.sh
# It installs SLURM from Debian's packages, writes /etc/slurm/slurm.conf (never over one it did not
# write), starts munged, slurmctld and slurmd by hand and, on exit, stops what it started and
# removes the configuration. The jobs' processes see this checkout as a cluster's nodes would
# see a shared filesystem.
set -euo pipefail
cd "$(dirname "$0")/.."
export MPLBACKEND=Agg
work=$(mktemp -d /tmp/lutcore-slurm.XXXXXX)
conf=/etc/slurm/slurm.conf
marker="# written by lutcore's tools/slurm_check.sh"
started=()

# Run a daemon (it forks) and keep its process id from its pid file, to stop it on exit.
daemon() {
    local pidfile=$1 && shift
    "$@"
    for _ in $(seq 100); do [[ -s $pidfile ]] && break; sleep 0.1; done
    started=("$(cat "$pidfile")" "${started[@]}")
}

stop_cluster() {
    for pid in "${started[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [[ -f $conf ]] && head -n 1 "$conf" | grep -qxF "$marker"; then rm -f "$conf"; fi
    rm -rf "$work"
}
trap stop_cluster EXIT

# --- A single-node SLURM (a user's site has one: skip to the README's steps) -------------------
start=$SECONDS
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    slurmctld slurmd slurm-client munge >/dev/null
install_s=$((SECONDS - start))

if [[ -f $conf ]] && ! head -n 1 "$conf" | grep -qxF "$marker"; then
    echo "slurm_check: $conf exists and is not ours; this script starts its own cluster" >&2
    exit 1
fi
if ! munge -n >/dev/null 2>&1; then
    mkdir -p /run/munge && chown munge:munge /run/munge
    [[ -f /etc/munge/munge.key ]] || runuser -u munge -- mungekey --create
    daemon /run/munge/munged.pid runuser -u munge -- /usr/sbin/munged
fi
# The machine's own CPUs and memory (slurmd -C), reached at 127.0.0.1 (whatever its name
# resolves to); one partition, no default partition (a job must name it, as at many sites), no
# accounting database (slurmdbd).
cat > "$conf" <<EOF
$marker
ClusterName=lutcore
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ReturnToService=2
$(slurmd -C | head -n 1) NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=lutcore Nodes=ALL MaxTime=INFINITE State=UP
EOF
mkdir -p "$work/state" "$work/spool"
daemon "$work/slurmctld.pid" slurmctld
daemon "$work/slurmd.pid" slurmd
for _ in $(seq 60); do
    [[ $(sinfo --noheader --format=%t 2>/dev/null) == idle ]] && break
    sleep 1
done
sinfo --format="%P %a %D %t %c %m"

# --- The README's steps ----------------------------------------------------------------------
profile=$work/lutcore-slurm quick=$work/lutcore-quick
python3 -m pip install -c constraints.txt snakemake-executor-plugin-slurm==2.8.0 snakemake-executor-plugin-slurm-jobstep==0.6.1
cp -r workflow/profiles/slurm "$profile"

# A request SLURM refuses stops the run before any job is submitted, and the results already
# there stay as they are: an unedited profile (no partition, and this cluster has no default)
# and a job asking for more CPUs than a node has.
refused() {
    local why=$1 dir=$work/refused && shift
    # the committed results only: with a run's data/ beside them, nothing would be out of date
    rm -rf "$dir" && mkdir -p "$dir/results" && git ls-files -z results \
        | xargs -0 cp --parents -t "$dir"
    if snakemake --profile "$profile" --config preset=quick --directory "$dir" "$@" \
        > "$dir.log" 2>&1; then
        echo "slurm_check: the run did not stop: $*" >&2 && exit 1
    fi
    grep "SLURM refuses.*$why" "$dir.log" || { cat "$dir.log" >&2; exit 1; }
    git ls-files -z results | xargs -0 -I{} cmp {} "$dir/{}"
    [[ -z $(squeue --noheader) ]]
}
refused "No partition specified"

# The site's partition, as a user sets it in the copy
sed -i 's|# slurm_partition: "your-partition"|slurm_partition: "lutcore"|' "$profile/config.yaml"
grep -q '^  slurm_partition: "lutcore"$' "$profile/config.yaml"
refused "Requested node configuration is not available" --set-threads batch_numerics=64

start=$SECONDS
timeout 1200 snakemake --profile "$profile" --config preset=quick --directory "$quick"
slurm_s=$((SECONDS - start))

# --- The same preset locally, and the two result trees byte for byte --------------------------
start=$SECONDS
snakemake --cores all --config preset=quick --directory "$work/local"
local_s=$((SECONDS - start))
files() { (cd "$1/results" && find . -type f -not -path './benchmarks/*' -not -path './.cache/*' | sort); }
[[ $(files "$quick") == "$(files "$work/local")" ]]
compared=0 differ=0
while read -r name; do
    compared=$((compared + 1))
    cmp -s "$quick/results/$name" "$work/local/results/$name" || { differ=$((differ + 1)); echo "differs: $name"; }
done < <(files "$quick")
longest() { tail -q -n 1 "$1"/results/benchmarks/*.tsv | cut -f 1 | sort -g | tail -n 1; }
echo "slurm_check: SLURM packages installed in ${install_s} s; quick preset through SLURM" \
     "${slurm_s} s (its longest job $(longest "$quick") s), locally ${local_s} s (its longest" \
     "job $(longest "$work/local") s); ${compared} files compared (results/ but the job" \
     "timings and caches): ${differ} differ"
[[ $differ == 0 ]]
