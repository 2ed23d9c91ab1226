# Open logic synthesis (lutcore.ppa.synth): one job per design, whose outputs are its cache files
# experiments/synthesis_cache/<design>.<flow>.json (committed). The experiments that read them
# list them as inputs (experiment_sources). Only the designs an experiment of the preset
# synthesizes (its config says synthesize: true) get this rule; otherwise the committed files
# are plain inputs and nothing is synthesized. A job whose cache is current (same hash of
# Verilog, liberty, genlib and script) rewrites the same bytes without running Yosys.


if SYNTHESIZED:

    rule synthesis:
        input:
            SYNTHESIS_SOURCES,
        output:
            **{flow: update(f"{SYNTHESIS_CACHE}/{{design}}.{flow}.json") for flow in SYNTH_FLOWS},
        wildcard_constraints:
            design="|".join(re.escape(d) for d in SYNTHESIZED),
        script:
            "../scripts/synthesize.py"
