# LUT Tensor Core (ISCA'25): one job per experiment id (outside the
# batches of batches.smk) of experiments/lut_tensor_core/.


rule lut_tensor_core:
    input:
        experiment_sources,
    output:
        **experiment_outputs("lut_tensor_core"),
    benchmark:
        BENCHMARK
    priority: experiment_priority
    threads: JOB_THREADS
    wildcard_constraints:
        id=paper_ids("lut_tensor_core"),
    params:
        config=experiment_params,
        formats=FIGURE_FORMATS,
        light_compile=experiment_light_compile,
    script:
        "../scripts/run_experiment.py"
