"""Experiments: one module per paper figure/table, run by id (see ``_framework`` for the contract)."""

from experiments._framework import (VERDICTS, Claim, ConfigError, collect_claims, get,
                                    make_config, markdown_table, paper_claim, reference, registry)

__all__ = ["VERDICTS", "Claim", "ConfigError", "collect_claims", "get", "make_config",
           "markdown_table", "paper_claim", "reference", "registry"]
