# Open logic synthesis (lutcore.ppa.synth): one job for every design that an experiment of the
# preset synthesizes (its config says synthesize: true); its outputs are their cache files
# experiments/synthesis_cache/<design>.<flow>.json (committed), which those experiments list as
# inputs (experiment_sources). Without such an experiment the committed files are plain inputs
# and nothing is synthesized. A design whose cache is current gets the same bytes rewritten
# without running Yosys; one written by other code is re-keyed without Yosys when its Verilog,
# liberty, genlib, script, parser and tools are the same (lutcore/ppa/synth/_cache.py).
# One job rather than one per design: when the caches are current (a fresh clone), Python's
# start-up and imports are paid once instead of 21 times (38 of the 65 s the per-design jobs
# took in the full preset); stale designs are synthesized one after another.


if SYNTHESIZED:

    rule synthesis:
        input:
            SYNTHESIS_SOURCES,
        output:
            [update(f"{SYNTHESIS_CACHE}/{design}.{flow}.json")
             for design in SYNTHESIZED for flow in SYNTH_FLOWS],
        threads: JOB_THREADS
        params:
            designs=SYNTHESIZED,
            flows=SYNTH_FLOWS,
        script:
            "../scripts/synthesize.py"
