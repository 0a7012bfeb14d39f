"""Phase-time data in the long format of Ceesay et al.: one row per task phase.

Columns (the authors' ``ExtractDataFromLogs.java`` writes the first eight):

=====================  ===================================================================
``Operation``          the phase: read, collect, spill, merge, shuffle, sort, write
                       (case-insensitive; a suffix after ``_`` such as ``read_SC`` is ignored)
``Duration``           the phase's duration in one task, ms (>= 0)
``MapSelectivity``     map output as a percentage of map input (10 ... 100 in the benchmark)
``MapInputRec``        map input records of the job
``MapOutputRec``       map output records of the job
``Mappers``            map tasks of the job (M_t)
``DataSize``           input of the job, MB (D)
``BlockSize``          block (split) size, MB
``Reducers``           optional: reduce tasks (R_t); default 1
``ReduceSelectivity``  optional: reduce output as a % of its input; default 100 (the generic
                       benchmark's reducer writes everything it receives)
``RunId``              optional: which job run the row came from
``SplitMB`` ...        optional measured per-task sizes ``SplitMB``, ``MapOutputMB``,
                       ``ShuffleMB``, ``ReduceOutputMB`` (override eq. 3/7/10 where given)
=====================  ===================================================================

Other numeric columns are kept as extra drivers. Every problem is an
:class:`~mrtune.errors.InputError` naming the file (and line), the column and the value.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np

from costmodel.regression import PHASES, PhaseObservations, normalise_operation
from mrtune.errors import InputError

REQUIRED_COLUMNS: tuple[str, ...] = (
    "Operation",
    "Duration",
    "MapSelectivity",
    "MapInputRec",
    "MapOutputRec",
    "Mappers",
    "DataSize",
    "BlockSize",
)
OPTIONAL_COLUMNS: tuple[str, ...] = (
    "Reducers",
    "ReduceSelectivity",
    "RunId",
    "SplitMB",
    "MapOutputMB",
    "ShuffleMB",
    "ReduceOutputMB",
)

# column -> (PhaseRow attribute, lower bound, bound inclusive)
_NUMERIC: dict[str, tuple[str, float, bool]] = {
    "Duration": ("duration_ms", 0.0, True),
    "MapSelectivity": ("map_selectivity_pct", 0.0, True),
    "MapInputRec": ("map_input_records", 0.0, True),
    "MapOutputRec": ("map_output_records", 0.0, True),
    "Mappers": ("mappers", 1.0, True),
    "DataSize": ("data_size_mb", 0.0, False),
    "BlockSize": ("block_size_mb", 0.0, False),
    "Reducers": ("reducers", 0.0, True),
    "ReduceSelectivity": ("reduce_selectivity_pct", 0.0, True),
    "SplitMB": ("split_mb", 0.0, True),
    "MapOutputMB": ("map_output_mb", 0.0, True),
    "ShuffleMB": ("shuffle_mb", 0.0, True),
    "ReduceOutputMB": ("reduce_output_mb", 0.0, True),
}


@dataclass(frozen=True)
class PhaseRow:
    """One row of the long format (see the module docstring for the columns)."""

    operation: str
    duration_ms: float
    map_selectivity_pct: float
    map_input_records: float
    map_output_records: float
    mappers: float
    data_size_mb: float
    block_size_mb: float
    reducers: float = 1.0
    reduce_selectivity_pct: float = 100.0
    run_id: str = ""
    split_mb: float = math.nan
    map_output_mb: float = math.nan
    shuffle_mb: float = math.nan
    reduce_output_mb: float = math.nan
    extra: dict[str, float] = field(default_factory=dict)


_ATTR_TO_COLUMN = {attr: col for col, (attr, _, _) in _NUMERIC.items()}


def _number(raw: str, where: str, column: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise InputError("not a number", path=where, field=column, value=raw) from None
    if not math.isfinite(value):
        raise InputError("not a finite number", path=where, field=column, value=raw)
    return value


def _checked(value: float, where: str, column: str) -> float:
    _, low, inclusive = _NUMERIC[column]
    if value < low or (not inclusive and value == low):
        relation = ">=" if inclusive else ">"
        raise InputError(f"must be {relation} {low:g}", path=where, field=column, value=value)
    return value


def parse_phase_csv(text: str, source: str) -> list[PhaseRow]:
    """Parse long-format CSV text; ``source`` names the file in error messages."""
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in (reader.fieldnames or [])]
    if not header:
        raise InputError("empty file: no header row", path=source)
    reader.fieldnames = header
    for column in REQUIRED_COLUMNS:
        if column not in header:
            raise InputError(
                "missing column", path=source, field=column, allowed=", ".join(REQUIRED_COLUMNS)
            )
    raw_rows = []
    for raw in reader:
        if not any((v or "").strip() for k, v in raw.items() if k is not None):
            continue  # blank line
        raw_rows.append((reader.line_num, raw))
    if not raw_rows:
        raise InputError("no data rows", path=source)
    extras = [c for c in header if c and c not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS]
    numeric_extras = [c for c in extras if all(_is_number(r.get(c)) for _, r in raw_rows)]
    return [_row_from_raw(raw, f"{source}:{line}", numeric_extras) for line, raw in raw_rows]


def _number(raw: str, where: str, column: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise InputError("not a number", path=where, field=column, value=raw) from None
    if not math.isfinite(value):
        raise InputError("not a finite number", path=where, field=column, value=raw)
    return value


def _checked(value: float, where: str, column: str) -> float:
    _, low, inclusive = _NUMERIC[column]
    if value < low or (not inclusive and value == low):
        relation = ">=" if inclusive else ">"
        raise InputError(f"must be {relation} {low:g}", path=where, field=column, value=value)
    return value


def _is_number(raw: str | None) -> bool:
    if raw is None or raw.strip() == "":
        return False
    try:
        return math.isfinite(float(raw))
    except ValueError:
        return False


def _row_from_raw(raw: dict, where: str, numeric_extras: list[str]) -> PhaseRow:
    operation = (raw.get("Operation") or "").strip()
    phase = normalise_operation(operation)
    if phase is None:
        raise InputError(
            "unknown phase",
            path=where,
            field="Operation",
            value=operation,
            allowed=", ".join(PHASES),
        )
    values: dict[str, object] = {"operation": phase}
    for column, (attr, _, _) in _NUMERIC.items():
        cell = raw.get(column)
        if cell is None or cell.strip() == "":
            if column in REQUIRED_COLUMNS:
                raise InputError("empty value", path=where, field=column)
            continue
        values[attr] = _checked(_number(cell.strip(), where, column), where, column)
    if (raw.get("RunId") or "").strip():
        values["run_id"] = raw["RunId"].strip()
    values["extra"] = {c: float(raw[c]) for c in numeric_extras}
    return PhaseRow(**values)  # type: ignore[arg-type]


def rows_to_observations(rows: Sequence[PhaseRow]) -> PhaseObservations:
    """Column arrays for the fitting code (``costmodel.regression``)."""
    if not rows:
        raise InputError("no phase rows")

    def col(attr: str) -> np.ndarray:
        return np.array([getattr(r, attr) for r in rows], dtype=float)

    extra_names = tuple(dict.fromkeys(k for r in rows for k in r.extra))
    base = {
        "D": col("data_size_mb"),
        "M_t": col("mappers"),
        "M_sel": col("map_selectivity_pct"),
        "R_t": col("reducers"),
        "R_sel": col("reduce_selectivity_pct"),
        "d": col("split_mb"),
        "M_d": col("map_output_mb"),
        "S_d": col("shuffle_mb"),
        "R_d": col("reduce_output_mb"),
    }
    for name in extra_names:
        base[name] = np.array([r.extra.get(name, math.nan) for r in rows], dtype=float)
    return PhaseObservations(
        operation=np.array([r.operation for r in rows], dtype=object),
        duration_ms=col("duration_ms"),
        base=base,
        run_id=np.array([r.run_id for r in rows], dtype=object),
        extra_columns=extra_names,
    )


def rows_to_csv(rows: Iterable[PhaseRow]) -> str:
    """The long-format CSV text of ``rows`` (optional columns written only when used)."""
    rows = list(rows)
    optional_attrs = [
        f.name
        for f in fields(PhaseRow)
        if f.name in _ATTR_TO_COLUMN and _ATTR_TO_COLUMN[f.name] in OPTIONAL_COLUMNS
    ]
    used = [a for a in optional_attrs if any(not _is_default(r, a) for r in rows)]
    with_run = any(r.run_id for r in rows)
    extra_names = list(dict.fromkeys(k for r in rows for k in r.extra))
    header = list(REQUIRED_COLUMNS) + [_ATTR_TO_COLUMN[a] for a in used]
    header += ["RunId"] if with_run else []
    header += extra_names
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for r in rows:
        d = asdict(r)
        line = [r.operation] + [_fmt(d[_NUMERIC[c][0]]) for c in REQUIRED_COLUMNS[1:]]
        line += [_fmt(d[a]) for a in used]
        line += [r.run_id] if with_run else []
        line += [_fmt(r.extra.get(k, math.nan)) for k in extra_names]
        writer.writerow(line)
    return out.getvalue()


def _is_default(row: PhaseRow, attr: str) -> bool:
    value = getattr(row, attr)
    default = {f.name: f.default for f in fields(PhaseRow)}[attr]
    if isinstance(value, float) and math.isnan(value):
        return isinstance(default, float) and math.isnan(default)
    return value == default


def _fmt(value: float) -> str:
    if isinstance(value, float) and math.isnan(value):
        return ""
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


def read_phase_file(path: Path) -> list[PhaseRow]:
    """Rows of one file: a long-format ``.csv``, or harness run records (``.jsonl``/``.json``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=str(path)) from None
    if path.suffix.lower() in (".jsonl", ".json"):
        from profiler.run_record_phases import rows_from_run_records_text

        return rows_from_run_records_text(text, str(path))
    return parse_phase_csv(text, str(path))


def load_phase_data(paths: Sequence[Path]) -> tuple[list[PhaseRow], PhaseObservations]:
    """Rows of every file, and their column arrays for fitting."""
    if not paths:
        raise InputError("no data files given")
    rows: list[PhaseRow] = []
    for path in paths:
        rows.extend(read_phase_file(Path(path)))
    return rows, rows_to_observations(rows)
