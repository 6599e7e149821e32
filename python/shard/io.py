"""Loading shard's outputs into pandas: a run directory, a campaign directory and
the stored campaigns under results/.

- A run directory holds history.csv (or history.csv.gz in a stored campaign),
  other CSV tables (fragments.csv, fragment_sizes.csv, ...), summary.yaml and
  case.resolved.yaml; `load_run` reads them into a `Run`.
- A campaign directory holds campaign.csv (one row per run), statistics.csv and
  fragment_sizes.csv when the campaign asked for statistics, and runs/NNNN/;
  `load_campaign` reads it into a `Campaign`, whose `histories()` stacks the
  histories of many runs into one long DataFrame keyed by the run index.

Units come from the datapackage.json beside the CSV files (docs/outputs.md) when
there is one: each DataFrame carries them in `df.attrs["units"]` (column ->
unit, "" for counts and ids, "1" for ratios). Missing values (empty CSV
fields, `~` in YAML) are NaN / None, never a number.
"""
from __future__ import annotations

import gzip
import json
import math
import os
import re
import struct
import zlib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

import numpy as np
import pandas as pd
import yaml

__all__ = ["ShardDataError", "Run", "Campaign", "load_run", "load_campaign", "read_yaml", "read_csv",
           "read_datapackage_units", "flatten", "read_vtu", "read_tri2d_vtu"]

PathLike = Union[str, os.PathLike]

_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


class ShardDataError(Exception):
    """A run or campaign directory that cannot be read: the message names the file
    and why."""


def _numbers(node: Any) -> Any:
    # YAML 1.1 (PyYAML) reads 370e9 or 1e-3 as strings: shard's YAML is 1.2, where
    # they are numbers. Expressions ("0.99 * dt_c") stay strings.
    if isinstance(node, dict):
        return {k: _numbers(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_numbers(v) for v in node]
    if isinstance(node, str) and _NUMBER.match(node.strip()):
        s = node.strip()
        return int(s) if re.fullmatch(r"[-+]?\d+", s) else float(s)
    if isinstance(node, str) and node.strip() in (".nan", ".NaN", "nan"):
        return math.nan
    return node


def read_yaml(path: PathLike) -> Dict[str, Any]:
    """A summary.yaml, case.resolved.yaml, result.yaml or provenance.yaml as a dict
    (nested sections as nested dicts, `~` as None, numbers as int/float)."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except OSError as e:
        raise ShardDataError(f"{path}: cannot read: {e.strerror}") from e
    except yaml.YAMLError as e:
        raise ShardDataError(f"{path}: not YAML: {e}") from e
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ShardDataError(f"{path}: expected a mapping at the top, found {type(data).__name__}")
    return _numbers(data)


def flatten(d: Dict[str, Any], prefix: str = "") -> Dict[str, Any]:
    """{'energy': {'initial': 1}} -> {'energy.initial': 1}: the dotted keys of a
    campaign.csv's columns."""
    out: Dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def read_datapackage_units(directory: PathLike) -> Dict[str, Dict[str, str]]:
    """{csv file name: {column: unit}} from directory/datapackage.json; {} when there
    is none (stored campaigns keep only some files)."""
    path = Path(directory) / "datapackage.json"
    if not path.exists():
        return {}
    try:
        pkg = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ShardDataError(f"{path}: not a readable data package: {e}") from e
    units: Dict[str, Dict[str, str]] = {}
    for res in pkg.get("resources", []):
        fields = res.get("schema", {}).get("fields", [])
        units[res.get("path", "")] = {f["name"]: f.get("unit", "") for f in fields if "name" in f}
        units[res.get("path", "") + ".types"] = {f["name"]: f.get("type", "") for f in fields if "name" in f}
    return units


_DTYPE = {"integer": "Int64", "number": "float64", "string": "string", "boolean": "boolean"}


def read_csv(path: PathLike, units: Optional[Dict[str, str]] = None,
             types: Optional[Dict[str, str]] = None, usecols: Optional[Sequence[str]] = None) -> pd.DataFrame:
    """A shard CSV (plain or .gz) with empty fields as NaN; `types` (from the data
    package) fix the column types, `units` go to df.attrs["units"]."""
    path = Path(path)
    try:
        dtype = None
        if types:
            dtype = {k: _DTYPE[t] for k, t in types.items() if t in _DTYPE and t != "boolean"}
            if usecols is not None:
                dtype = {k: v for k, v in dtype.items() if k in usecols}
        df = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype=dtype,
                         usecols=(lambda c: c in usecols) if usecols is not None else None)
    except FileNotFoundError as e:
        raise ShardDataError(f"{path}: no such file") from e
    except (ValueError, pd.errors.ParserError, EOFError, OSError) as e:
        raise ShardDataError(f"{path}: not a readable CSV table: {e}") from e
    if usecols is not None:
        missing = [c for c in usecols if c not in df.columns]
        if missing:
            raise ShardDataError(f"{path}: no column {', '.join(missing)}")
    df.attrs["units"] = dict(units or {})
    df.attrs["source"] = str(path)
    return df


@dataclass
class Run:
    """One run directory, its tables loaded on demand."""
    path: Path
    summary: Dict[str, Any]
    case: Dict[str, Any]
    _units: Dict[str, Dict[str, str]] = field(default_factory=dict, repr=False)
    _tables: Dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)

    @property
    def status(self) -> str:
        return str(self.summary.get("status", ""))

    def table_names(self) -> List[str]:
        """The CSV tables of the run, by name without extension (history, fragments, ...)."""
        names = set()
        for p in self.path.iterdir():
            for ext in (".csv", ".csv.gz"):
                if p.name.endswith(ext) and not p.name.startswith("partial"):
                    names.add(p.name[: -len(ext)])
        return sorted(names)

    def table(self, name: str, usecols: Optional[Sequence[str]] = None) -> pd.DataFrame:
        """The run's NAME.csv (or NAME.csv.gz) as a DataFrame with its units."""
        key = (name, tuple(usecols) if usecols else None)
        if key in self._tables:
            return self._tables[key]
        for p in (self.path / f"{name}.csv", self.path / f"{name}.csv.gz"):
            if p.exists():
                df = read_csv(p, self._units.get(f"{name}.csv"), self._units.get(f"{name}.csv.types"), usecols)
                self._tables[key] = df
                return df
        raise ShardDataError(f"{self.path}: no {name}.csv (tables: {', '.join(self.table_names()) or 'none'})")

    @property
    def history(self) -> pd.DataFrame:
        return self.table("history")

    def value(self, dotted: str, default: Any = None) -> Any:
        """A summary value by its dotted key ('fracture.fragments'); `default` when absent."""
        return _dotted(self.summary, dotted, default)

    def case_value(self, dotted: str, default: Any = None) -> Any:
        """A resolved-case value by its dotted key ('fracture.g_c')."""
        return _dotted(self.case, dotted, default)


def _dotted(d: Dict[str, Any], dotted: str, default: Any) -> Any:
    node: Any = d
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def load_run(path: PathLike) -> Run:
    """Load a run directory: summary.yaml (when the run finished), case.resolved.yaml,
    the units of its data package; tables load when first asked for."""
    path = Path(path)
    if not path.is_dir():
        raise ShardDataError(f"{path}: not a directory")
    if not (path / "case.resolved.yaml").exists() and not (path / "summary.yaml").exists():
        raise ShardDataError(f"{path}: not a run directory (no case.resolved.yaml, no summary.yaml)")
    summary = read_yaml(path / "summary.yaml") if (path / "summary.yaml").exists() else {}
    case = read_yaml(path / "case.resolved.yaml") if (path / "case.resolved.yaml").exists() else {}
    return Run(path, summary, case, read_datapackage_units(path))


@dataclass
class Campaign:
    """A campaign directory (or a stored campaign under results/)."""
    path: Path
    table: pd.DataFrame                      # campaign.csv: one row per run
    statistics: Optional[pd.DataFrame]       # statistics.csv, when written
    fragment_sizes: Optional[pd.DataFrame]   # the pooled fragment_sizes.csv, when written

    @property
    def ok(self) -> pd.DataFrame:
        """The rows of the runs whose status is ok."""
        return self.table[self.table["status"] == "ok"]

    def run_path(self, index: int) -> Path:
        rows = self.table[self.table["index"] == index] if "index" in self.table else self.table.iloc[0:0]
        if len(rows) and "run_dir" in rows and isinstance(rows["run_dir"].iloc[0], str):
            return self.path / rows["run_dir"].iloc[0]
        return self.path / "runs" / f"{int(index):04d}"

    def run(self, index: int) -> Run:
        """The run of campaign index `index`."""
        return load_run(self.run_path(index))

    def runs(self, indices: Optional[Iterable[int]] = None) -> List[Run]:
        idx = list(indices) if indices is not None else [int(i) for i in self.table["index"]]
        return [self.run(i) for i in idx if self.run_path(i).is_dir()]

    def histories(self, columns: Optional[Sequence[str]] = None, indices: Optional[Iterable[int]] = None,
                  params: Sequence[str] = ()) -> pd.DataFrame:
        """The history of every run (or of `indices`) stacked into one long DataFrame
        with a leading column `run` (the campaign index), then `params` (columns of
        campaign.csv copied to every row of their run, e.g. the seed), then the
        history `columns` (all when None). Runs without a history are skipped."""
        idx = list(indices) if indices is not None else [int(i) for i in self.table["index"]]
        parts = []
        units: Dict[str, str] = {}
        for i in idx:
            p = self.run_path(i)
            if not ((p / "history.csv").exists() or (p / "history.csv.gz").exists()):
                continue
            h = load_run(p).table("history", usecols=columns)
            units.update(h.attrs.get("units", {}))
            h = h.copy()
            row = self.table[self.table["index"] == i]
            for k, prm in enumerate(params):
                h.insert(k, prm, row[prm].iloc[0] if len(row) else math.nan)
            h.insert(0, "run", i)
            parts.append(h)
        if not parts:
            raise ShardDataError(f"{self.path}: no run history among runs {idx[:5]}{'...' if len(idx) > 5 else ''}")
        df = pd.concat(parts, ignore_index=True)
        df.attrs["units"] = units
        return df


def load_campaign(path: PathLike, extra_tables: Sequence[PathLike] = ()) -> Campaign:
    """Load a campaign directory: campaign.csv, statistics.csv and fragment_sizes.csv
    when present, with the units of its data package. `extra_tables` are further
    campaign.csv-like files pooled into the table (split campaigns, the recorded
    runs of results/confined_length)."""
    path = Path(path)
    table_path = path / "campaign.csv"
    if not table_path.exists():
        raise ShardDataError(f"{path}: not a campaign directory (no campaign.csv)")
    units = read_datapackage_units(path)

    def load(name: str) -> Optional[pd.DataFrame]:
        p = path / name
        return read_csv(p, units.get(name), units.get(name + ".types")) if p.exists() else None

    table = load("campaign.csv")
    assert table is not None
    if extra_tables:
        parts = [table] + [read_csv(p) for p in extra_tables]
        pooled = pd.concat(parts, ignore_index=True, sort=False)
        pooled.attrs = table.attrs
        table = pooled
    if "status" not in table.columns:
        raise ShardDataError(f"{table_path}: no column status (not a campaign table)")
    return Campaign(path, table, load("statistics.csv"), load("fragment_sizes.csv"))


_VTU_TYPES = {"Float64": "<f8", "Float32": "<f4", "Int64": "<i8", "Int32": "<i4", "UInt8": "u1"}
_VTU_ARRAY = re.compile(r'<DataArray type="(\w+)" Name="(\w+)"(?: NumberOfComponents="(\d+)")? '
                        r'format="appended" offset="(\d+)"')


def read_vtu(path: PathLike) -> tuple:
    """One field snapshot of a bar run (fields/fields_NNNNNN.vtu, written with
    `output.fields_interval`): (time in s, {name: numpy array}) with the point
    arrays u, v, X (one value per node copy: a crack's two faces are two points),
    the cell arrays stress, strain, damage, fragment, and connectivity (two point
    indices per element, left then right). Reads the raw zlib-compressed appended
    format shard writes (UInt64 block headers)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ShardDataError(f"{path}: cannot read ({e.strerror})") from None
    head, sep, data = raw.partition(b'<AppendedData encoding="raw">')
    if not sep or b"_" not in data:
        raise ShardDataError(f"{path}: not a VTU file with raw appended data")
    data = data[data.index(b"_") + 1:]
    text = head.decode("utf-8", "replace")
    if 'header_type="UInt64"' not in text or "vtkZLibDataCompressor" not in text:
        raise ShardDataError(f"{path}: expected UInt64 headers and zlib compression")
    m = re.search(r'Name="TimeValue"[^>]*>\s*([^<\s]+)\s*<', text)
    if not m:
        raise ShardDataError(f"{path}: no TimeValue")
    arrays: Dict[str, Any] = {}
    for m2 in _VTU_ARRAY.finditer(text):
        typ, name, off = m2.group(1), m2.group(2), int(m2.group(4))
        if typ not in _VTU_TYPES:
            raise ShardDataError(f"{path}: array {name}: unsupported type {typ}")
        try:
            nblocks = struct.unpack_from("<Q", data, off)[0]
            sizes = struct.unpack_from(f"<{nblocks}Q", data, off + 24)
            p = off + 24 + 8 * nblocks
            parts = []
            for size in sizes:
                parts.append(zlib.decompress(data[p:p + size]))
                p += size
        except (struct.error, zlib.error) as e:
            raise ShardDataError(f"{path}: array {name}: truncated or corrupt ({e})") from None
        arrays[name] = np.frombuffer(b"".join(parts), dtype=_VTU_TYPES[typ])
    if "connectivity" in arrays:
        arrays["connectivity"] = arrays["connectivity"].reshape(-1, 2)
    return float(m.group(1)), arrays


def read_tri2d_vtu(path: PathLike) -> tuple:
    """One field snapshot of a tri2d run (fields/fields_NNNNNN.vtu, ASCII VTK XML,
    written with `output.fields_interval`; a .gz file is read through gzip):
    (time in s, {name: numpy array}) with `points` (current positions, n x 2),
    `triangles` (ne x 3 point indices, counter-clockwise), the point arrays u, v,
    X (n x 2) and the cell arrays `stress` (ne x 3: sxx, syy, sxy) and, from the
    builds that write it, `fragment` (ne, the numbers of fragments.csv)."""
    path = Path(path)
    try:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        root = ET.fromstring(raw)
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        raise ShardDataError(f"{path}: cannot read ({getattr(e, 'strerror', None) or e})") from None
    except ET.ParseError as e:
        raise ShardDataError(f"{path}: not XML ({e})") from None
    piece = root.find("./UnstructuredGrid/Piece")
    tv = root.find("./UnstructuredGrid/FieldData/DataArray[@Name='TimeValue']")
    if piece is None or tv is None:
        raise ShardDataError(f"{path}: not a VTK UnstructuredGrid with a TimeValue")
    n, ne = int(piece.get("NumberOfPoints", "0")), int(piece.get("NumberOfCells", "0"))

    def values(node, what: str, dtype, width: int) -> np.ndarray:
        if node is None or node.get("format") != "ascii":
            raise ShardDataError(f"{path}: no ASCII array {what}")
        a = np.array((node.text or "").split(), dtype=dtype)
        rows = n if width and node in point_nodes else ne
        if a.size != rows * max(width, 1):
            raise ShardDataError(f"{path}: array {what} has {a.size} values, expected {rows * max(width, 1)}")
        return a.reshape(rows, width) if width else a

    point_nodes = list(piece.findall("./Points/DataArray")) + list(piece.findall("./PointData/DataArray"))
    out: Dict[str, Any] = {}
    out["points"] = values(piece.find("./Points/DataArray"), "Points", float, 3)[:, :2]
    out["triangles"] = values(piece.find("./Cells/DataArray[@Name='connectivity']"), "connectivity", np.int64, 3)
    types = values(piece.find("./Cells/DataArray[@Name='types']"), "types", np.int64, 0)
    if ne and not np.all(types == 5):
        raise ShardDataError(f"{path}: cells other than triangles (VTK type 5)")
    for node in piece.findall("./PointData/DataArray"):
        out[node.get("Name")] = values(node, node.get("Name"), float, 3)[:, :2]
    for node in piece.findall("./CellData/DataArray"):
        k = int(node.get("NumberOfComponents", "0") or 0)
        dtype = np.int64 if node.get("type", "").startswith(("Int", "UInt")) else float
        out[node.get("Name")] = values(node, node.get("Name"), dtype, k if k > 1 else 0)
    if ne and (out["triangles"].min() < 0 or out["triangles"].max() >= n):
        raise ShardDataError(f"{path}: a triangle names a point outside 0..{n - 1}")
    return float((tv.text or "nan").strip()), out
