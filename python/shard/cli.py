"""A thin, typed wrapper around the `shard` command: run a case or a campaign and
get the loaded outputs back.

The executable is the `exe` argument, else $SHARD_EXE, else `shard` on the PATH.
A command that fails raises ShardError carrying the exit code (2: bad input,
nothing run; 3: numerical failure, outputs kept; 1: anything else) and the
command's stderr.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterable, List, Mapping, Optional, Sequence, Union

from .io import Campaign, Run, load_campaign, load_run

__all__ = ["ShardError", "find_executable", "run", "campaign"]

PathLike = Union[str, os.PathLike]
Settings = Union[Mapping[str, object], Sequence[str], None]


class ShardError(Exception):
    """`shard` exited with a non-zero status; `returncode`, `stderr`, `command` and
    `out` (the output directory, which may hold partial outputs) say how."""

    def __init__(self, command: List[str], returncode: int, stderr: str, out: Optional[Path]):
        self.command, self.returncode, self.stderr, self.out = command, returncode, stderr, out
        kind = {2: "bad input, nothing run", 3: "numerical failure"}.get(returncode, "failed")
        tail = stderr.strip() or "(no message on stderr)"
        super().__init__(f"{' '.join(command)}: exit {returncode} ({kind}): {tail}")


def find_executable(exe: Optional[PathLike] = None) -> str:
    """The shard executable: `exe`, else $SHARD_EXE, else `shard` on the PATH."""
    for candidate, origin in ((exe, "the exe argument"), (os.environ.get("SHARD_EXE"), "$SHARD_EXE")):
        if candidate:
            p = shutil.which(str(candidate))
            if p is None:
                raise FileNotFoundError(f"shard executable '{candidate}' (from {origin}) not found or not executable")
            return p
    p = shutil.which("shard")
    if p is None:
        raise FileNotFoundError("no shard executable: pass exe=, set $SHARD_EXE, or put `shard` on the PATH "
                                "(scripts/setup.sh installs it)")
    return p


def _set_args(settings: Settings) -> List[str]:
    if settings is None:
        return []
    if isinstance(settings, Mapping):
        items: Iterable[str] = (f"{k}={_yaml_scalar(v)}" for k, v in settings.items())
    else:
        items = settings
    args: List[str] = []
    for s in items:
        if "=" not in s:
            raise ValueError(f"setting '{s}' is not key.path=value")
        args += ["--set", s]
    return args


def _yaml_scalar(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _call(command: List[str], out: Optional[Path], timeout: Optional[float]) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        raise ShardError(command, -1, f"timed out after {timeout} s. {err}", out) from e
    if proc.returncode != 0:
        raise ShardError(command, proc.returncode, proc.stderr, out)
    return proc


def run(case: PathLike, out: PathLike, settings: Settings = None, exe: Optional[PathLike] = None,
        resume: bool = False, timeout: Optional[float] = None) -> Run:
    """`shard run CASE -o OUT [--set k=v ...]`, then the loaded run directory.
    `settings` is a mapping {'time.dt': 1e-4} or a list of 'key=value' strings."""
    out = Path(out)
    command = [find_executable(exe), "run", str(case), "-o", str(out), "--no-progress"] + _set_args(settings)
    if resume:
        command.append("--resume")
    _call(command, out, timeout)
    return load_run(out)


def campaign(file: PathLike, out: PathLike, jobs: int = 1, exe: Optional[PathLike] = None,
             runs: Optional[str] = None, resume: bool = False, timeout: Optional[float] = None,
             run_timeout: Optional[float] = None) -> Campaign:
    """`shard campaign FILE -o OUT -j JOBS [--runs A-B] [--resume]`, then the loaded
    campaign. A campaign whose runs failed exits non-zero: ShardError, with the table
    written so far in OUT."""
    out = Path(out)
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    command = [find_executable(exe), "campaign", str(file), "-o", str(out), "-j", str(jobs), "--no-progress"]
    if runs:
        command += ["--runs", runs]
    if resume:
        command.append("--resume")
    if run_timeout:
        command += ["--timeout", str(run_timeout)]
    _call(command, out, timeout)
    return load_campaign(out)
