# Batches (config `schedule.<preset>.batches`): experiments that run one after another in one
# job, so they pay Python's imports (JAX, xarray, matplotlib: about 3 s a process) and the
# compilation of the models they share once. Each still writes its own files; its log lines
# name it. A batch reruns whole when any member's code or parameters change.


for batch, members in BATCHES.items():

    rule:
        name:
            f"batch_{batch.replace('-', '_')}"
        input:
            sorted({path for i in members for path in sources_of(i)}),
        output:
            *(path for i in members
              for path in experiment_outputs(EXPERIMENTS[i]["paper"], i).values()),
        benchmark:
            f"results/benchmarks/batch-{batch}.tsv"
        threads: JOB_THREADS
        params:
            config={i: PARAMS[i] for i in members},
            formats=FIGURE_FORMATS,
            light_compile=isa.light_job(SCHEDULE, batch),
        script:
            "../scripts/run_experiment.py"
