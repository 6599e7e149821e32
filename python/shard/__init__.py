"""shard's analysis package: load runs and campaigns into pandas (shard.io), run
cases and campaigns through the CLI (shard.cli), fit power laws and compute
intervals and distances (shard.fit, shard.stats), and draw the figures of
docs/figures (shard.figures; `python3 -m shard.figures --list`).

Needs numpy, pandas, matplotlib and PyYAML (Debian: python3-numpy,
python3-pandas, python3-matplotlib, python3-yaml).
"""
from .io import Campaign, Run, ShardDataError, load_campaign, load_run
from .cli import ShardError
from . import fit, stats

__all__ = ["Campaign", "Run", "ShardDataError", "ShardError", "load_campaign", "load_run", "fit", "stats"]
