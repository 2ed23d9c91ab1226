r"""Bring the synthesis cache files of designs up to date (the synthesis rule's job).

Snakemake calls this as the ``script:`` of the rule in ``workflow/rules/synthesis.smk``: one
output per design and flow, ``<cache dir>/<design>.<flow>.json``. From a shell:

    python workflow/scripts/synthesize.py release_lut_dp4 fp16_add \
        --cache-dir experiments/synthesis_cache

A design whose cache is current is not synthesized again; its files are rewritten with the same
bytes (so their modification time is newer than the sources').
"""

import argparse
import pathlib
import time

from lutcore.ppa import synth


def bring_up_to_date(design: str, outputs: dict[str, pathlib.Path]) -> None:
    """Synthesize ``design`` under each flow of ``outputs`` (flow name -> its cache file)."""
    for flow_name, path in outputs.items():
        expected = synth.cache_file(design, flow_name, path.parent)
        if expected != path:
            raise ValueError(f"output {path} is not the cache file of {design!r}, flow "
                             f"{flow_name!r}: {expected}")
        start = time.perf_counter()
        result = synth.synthesize_cached(design, path.parent, flow_name=flow_name)
        print(f"[lutcore] synthesis {design} ({flow_name}): {result.area:.1f} um^2, "
              f"{result.critical_path_ps:.0f} ps ({time.perf_counter() - start:.1f} s)",
              flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Synthesize lutcore designs into the cache.")
    parser.add_argument("designs", nargs="+", choices=sorted(synth.ALL_DESIGNS),
                        metavar="design", help="design names (lutcore.ppa.synth.ALL_DESIGNS)")
    parser.add_argument("--cache-dir", type=pathlib.Path,
                        default=pathlib.Path("experiments/synthesis_cache"))
    args = parser.parse_args(argv)
    for design in args.designs:
        bring_up_to_date(design, {flow: synth.cache_file(design, flow, args.cache_dir)
                                  for flow in synth.FLOWS})


def by_design(designs: list[str], flows: list[str], paths: list[str]) -> dict:
    """The synthesis rule's outputs, listed design by design and flow by flow within each, as
    design -> flow -> path."""
    if len(paths) != len(designs) * len(flows):
        raise ValueError(f"{len(paths)} outputs for {len(designs)} designs x {len(flows)} flows")
    files = iter(map(pathlib.Path, paths))
    return {design: {flow: next(files) for flow in flows} for design in designs}


if "snakemake" in globals():  # run as a Snakemake script: the rule names the files
    rule = snakemake  # noqa: F821
    for design, outputs in by_design(rule.params.designs, rule.params.flows, rule.output).items():
        bring_up_to_date(design, outputs)
elif __name__ == "__main__":
    main()
