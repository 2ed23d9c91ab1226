# MiniFloat-NN / ExSdotp (ARITH'22): one job per experiment id (outside the
# batches of batches.smk) of experiments/minifloat_nn/.


rule minifloat_nn:
    input:
        experiment_sources,
    output:
        **experiment_outputs("minifloat_nn"),
    benchmark:
        BENCHMARK
    priority: experiment_priority
    threads: JOB_THREADS
    wildcard_constraints:
        id=paper_ids("minifloat_nn"),
    params:
        config=experiment_params,
        formats=FIGURE_FORMATS,
        light_compile=experiment_light_compile,
    script:
        "../scripts/run_experiment.py"
