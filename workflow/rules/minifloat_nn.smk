# MiniFloat-NN / ExSdotp (ARITH'22): one job per experiment id of experiments/minifloat_nn/.


rule minifloat_nn:
    input:
        experiment_sources,
    output:
        data="results/data/{id}.nc",
        figure=report("results/figures/{id}.png", caption="../report/figure.rst",
                      category="MiniFloat-NN (ARITH'22)", subcategory="{id}"),
        pdf="results/figures/{id}.pdf",
        table=report("results/tables/{id}.md", caption="../report/table.rst",
                     category="MiniFloat-NN (ARITH'22)", subcategory="{id}"),
        claims="results/claims/{id}.json",
    wildcard_constraints:
        id=paper_ids("minifloat_nn"),
    params:
        config=experiment_params,
        title=experiment_title,
    script:
        "../scripts/run_experiment.py"
