"""What the transcription tools share: a repository snapshot (a git directory, e.g. one
``fetch`` brought to /work/.mirror) and the commit they read, from the command line, and how
they write a measured set into experiments/reference/measured/."""

from __future__ import annotations

import argparse
import pathlib
import subprocess

import yaml

MEASURED = pathlib.Path(__file__).resolve().parents[1] / "experiments/reference/measured"


def git(gitdir: str, *args: str) -> str:
    """stdout of ``git --git-dir gitdir args...`` (raises on a git error)."""
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True,
                          text=True).stdout


def snapshot_args(description: str) -> tuple[str, str]:
    """(git directory, full commit hash) from the command line: ``gitdir [--commit REV]``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("gitdir", help="git directory of the source repository's snapshot")
    parser.add_argument("--commit", default="HEAD", help="revision to read (default: HEAD)")
    args = parser.parse_args()
    return args.gitdir, git(args.gitdir, "rev-parse", args.commit).strip()


def write_measured(name: str, header: str, data: dict) -> None:
    """experiments/reference/measured/``name``: the ``header`` comment lines, then ``data`` as
    YAML in the files' one layout (keys in their order, short lists inline)."""
    (MEASURED / name).write_text(header + yaml.safe_dump(data, sort_keys=False, width=100,
                                                         default_flow_style=None))
