# MiniFloat-NN / ExSdotp (ARITH'22): one job per experiment id of experiments/minifloat_nn/.


rule minifloat_nn:
    input:
        experiment_sources,
    output:
        **experiment_outputs("MiniFloat-NN (ARITH'22)"),
    benchmark:
        BENCHMARK
    priority: experiment_priority
    wildcard_constraints:
        id=paper_ids("minifloat_nn"),
    params:
        config=experiment_params,
        title=experiment_title,
    script:
        "../scripts/run_experiment.py"
