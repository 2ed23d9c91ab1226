# A SLURM run (--executor slurm, workflow/profiles/slurm) asks SLURM, before any job is
# submitted, whether it would accept every job's request: `sbatch --test-only` with the very
# options the executor will pass (partition, account, time, memory, CPUs, GRES, slurm_extra).
# Snakemake removes a job's existing outputs before submitting it, so a request SLURM refuses
# (a wrong partition) would otherwise cost the committed results, and one no node can satisfy
# (more CPUs than a node has) would pend for ever without a word.

import shlex
import subprocess

from snakemake.logging import logger


# The resources of a request that a SLURM profile may set (with threads: the CPUs)
SLURM_KEYS = ("slurm_partition", "slurm_account", "runtime", "mem_mb", "mem_mb_per_cpu",
              "cpus_per_task", "gres", "constraint", "qos", "slurm_extra")


def slurm_request(job):
    """The sbatch command line the SLURM executor will submit ``job`` with, as a test."""
    from snakemake_executor_plugin_slurm.submit_string import get_submit_command
    from snakemake_executor_plugin_slurm.utils import set_gres_string

    quoted = {key: shlex.quote(str(job.resources.get(key))) if job.resources.get(key) else None
              for key in ("slurm_account", "slurm_partition")}
    params = {"run_uuid": "lutcore-test", "slurm_logfile": "/dev/null", "comment_str": job.name,
              "account": f" -A {quoted['slurm_account']}" if quoted["slurm_account"] else "",
              "partition": f" -p {quoted['slurm_partition']}" if quoted["slurm_partition"] else "",
              "workdir": os.getcwd()}
    call = get_submit_command(job, params, settings=workflow.executor_settings)
    return call.replace("sbatch ", "sbatch --test-only ", 1) + set_gres_string(job) + " --wrap true"


def slurm_partitions():
    """What `sinfo` says of each partition: CPUs and memory (MB) per node; * marks the default."""
    done = subprocess.run(["sinfo", "--noheader", "--format=%P %c %m"], capture_output=True,
                          text=True)
    rows = sorted(set(done.stdout.split("\n")) - {""})
    return "; ".join(f"{p} ({c} CPUs, {m} MB per node)" for p, c, m in map(str.split, rows))


def check_slurm_requests(jobs):
    """One line and exit 1, before any job is submitted, for the first request SLURM refuses."""
    from snakemake_executor_plugin_slurm.accounts import validate_account
    from snakemake_executor_plugin_slurm.validation import validate_slurm_extra

    # What the executor itself checks when it submits a job, after its outputs are gone
    checks = [*((f"rule {job.name}: slurm_extra", validate_slurm_extra, job) for job in jobs),
              *((f"slurm_account {account}", validate_account, account, logger)
                for account in {str(job.resources.slurm_account) for job in jobs
                                if job.resources.get("slurm_account")})]
    for what, check, *args in checks:
        try:
            check(*args)
        except WorkflowError as err:
            config_error(f"SLURM: {what}: {' '.join(str(err).split())}")
    calls = {slurm_request(job): job for job in jobs}
    for call, job in calls.items():
        done = subprocess.run(call, shell=True, capture_output=True, text=True)
        if done.returncode != 0:
            asked = ", ".join(f"{key} {job.resources.get(key)}" for key in SLURM_KEYS
                              if job.resources.get(key) is not None)
            config_error(
                f"SLURM refuses rule {job.name}'s request ({asked}, threads {job.threads}): "
                f"{' '.join(done.stderr.split())}; set these in your SLURM profile's "
                "default-resources or set-resources; this cluster's partitions: "
                f"{slurm_partitions()}")
    print(f"lutcore: SLURM accepts the requests of all {len(jobs)} jobs", file=sys.stderr)


onstart:
    if workflow.executor_plugin is not None and workflow.executor_plugin.name == "slurm":
        check_slurm_requests([job for job in workflow.dag.needrun_jobs() if not job.is_local])
