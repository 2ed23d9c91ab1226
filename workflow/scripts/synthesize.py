r"""Bring the synthesis cache files of designs up to date (the synthesis rule's job).

Snakemake calls this as the ``script:`` of the rule in ``workflow/rules/synthesis.smk``: one
output per design and flow, ``<cache dir>/<design>.<flow>.json``. From a shell:

    python workflow/scripts/synthesize.py release_lut_dp4 fp16_add \
        --cache-dir experiments/synthesis_cache
    python workflow/scripts/synthesize.py        # every design

A design whose entry was written by other lutcore code is re-keyed without Yosys when its
Verilog, library files, script, parser and tools are unchanged (lutcore.ppa.synth._cache).

A design whose cache is current is not synthesized again; its files are rewritten with the same
bytes (so their modification time is newer than the sources').
"""

import argparse
import pathlib
import time

import isa  # same folder; pins the instruction set before numpy and JAX load (isa.py)

isa.pin()

from lutcore.ppa import synth  # noqa: E402


def bring_up_to_date(designs, flows, cache_dir: pathlib.Path) -> None:
    """Synthesize each of ``designs`` under each of ``flows`` into its cache file in
    ``cache_dir`` (only what is stale runs Yosys; a current file is rewritten unchanged)."""
    for design in designs:
        for flow_name in flows:
            start = time.perf_counter()
            result = synth.synthesize_cached(design, cache_dir, flow_name=flow_name)
            print(f"[lutcore] synthesis {design} ({flow_name}): {result.area:.1f} um^2, "
                  f"{result.critical_path_ps:.0f} ps ({time.perf_counter() - start:.1f} s)",
                  flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Synthesize lutcore designs into the cache.")
    parser.add_argument("designs", nargs="*", metavar="design",
                        help="design names (lutcore.ppa.synth.ALL_DESIGNS; none: all of them)")
    parser.add_argument("--cache-dir", type=pathlib.Path,
                        default=pathlib.Path("experiments/synthesis_cache"))
    args = parser.parse_args(argv)
    unknown = sorted(set(args.designs) - set(synth.ALL_DESIGNS))
    if unknown:  # not argparse's choices: Python 3.11 checks them against an empty list
        parser.error(f"unknown design(s) {', '.join(unknown)}; allowed values: "
                     f"{', '.join(synth.ALL_DESIGNS)}")
    bring_up_to_date(args.designs or list(synth.ALL_DESIGNS), synth.FLOWS, args.cache_dir)


if "snakemake" in globals():  # run as a Snakemake script: the rule names the files
    rule = snakemake  # noqa: F821
    (cache_dir,) = {pathlib.Path(path).parent for path in rule.output}
    bring_up_to_date(rule.params.designs, rule.params.flows, cache_dir)
elif __name__ == "__main__":
    main()
