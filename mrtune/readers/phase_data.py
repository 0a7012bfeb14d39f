"""Phase-time data in the long format of Ceesay et al.: one row per task phase.

Columns (the authors' ``ExtractDataFromLogs.java`` writes the first eight):

=====================  ===================================================================
``Operation``          the phase: read, map, collect, spill, merge, shuffle, sort, write
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

Other numeric columns are kept as extra drivers. The real-Hadoop harness's JSONL run records
(``mrtune.readers.run_records.RunRecord``) are turned into the same rows by
:func:`rows_from_run_record`, whose docstring states how each duration is measured. Every
problem is an :class:`~mrtune.errors.InputError` naming the file (and line), the column and the
value.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from mrtune.costmodel.regression import (
    PHASES,
    JobInputs,
    PhaseObservations,
    RunTimes,
    measured_run_times,
    normalise_operation,
)
from mrtune.errors import InputError

if TYPE_CHECKING:
    from mrtune.readers.run_records import RunRecord

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
    try:
        return _parse_phase_csv(text, source)
    except csv.Error as exc:  # a field above csv's 128 KiB limit, a NUL byte, …
        raise InputError(f"not a CSV file: {exc}", path=source) from None


def _parse_phase_csv(text: str, source: str) -> list[PhaseRow]:
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
    """Column arrays for the fitting code (``mrtune.costmodel.regression``)."""
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
    from mrtune.readers import safe_io

    if not path.is_file():
        raise InputError("cannot read: no such file", path=str(path))
    text = safe_io.read_text(path)
    if path.suffix.lower() in (".jsonl", ".json"):
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


# ------------------------------------------------------------------ harness run records → rows

MIB = 1048576.0
"""Bytes in the MB of the long format (the authors' scripts divide by 1048576)."""


def _ratio_pct(num: int | None, den: int | None) -> float | None:
    if num is None or not den:
        return None
    return 100.0 * num / den


def _mb(value: int | None) -> float:
    return math.nan if value is None else value / MIB


def _job_columns(record: RunRecord) -> dict[str, object]:
    """The job-level columns of every row of one run (see :func:`rows_from_run_record`)."""
    map_in = record.counter("MAP_INPUT_RECORDS")
    map_out = record.counter("MAP_OUTPUT_RECORDS")
    selectivity = _ratio_pct(map_out, map_in)
    if selectivity is None:
        selectivity = float(record.settings.get("mrtune.selectivity.percent", "nan"))
    reduce_sel = _ratio_pct(
        record.counter("REDUCE_OUTPUT_RECORDS"), record.counter("REDUCE_INPUT_RECORDS")
    )
    splits = [a.split_length for a in record.map_attempts if a.split_length is not None]
    if splits:
        block = max(splits) / MIB
    else:
        conf = record.effective_conf
        raw = conf.get("mapreduce.input.fileinputformat.split.maxsize") or conf.get(
            "fs.local.block.size", "nan"
        )
        block = float(raw) / MIB
    return {
        "map_selectivity_pct": selectivity,
        "map_input_records": float(map_in or 0),
        "map_output_records": float(map_out or 0),
        "mappers": float(record.num_maps or len(record.map_attempts)),
        "data_size_mb": record.input.bytes / MIB,
        "block_size_mb": block,
        "reducers": float(record.num_reduces),
        "reduce_selectivity_pct": 100.0 if reduce_sel is None else reduce_sel,
        "run_id": record.run_id,
    }


def _interval(start: int | None, end: int | None, where: str, what: str) -> float | None:
    if start is None or end is None:
        return None
    if end < start:
        raise InputError(
            f"{what} ends before it starts ({end} < {start} epoch ms)", path=where, field=what
        )
    return float(end - start)


def rows_from_run_record(record: RunRecord, where: str = "") -> list[PhaseRow]:
    """Long-format rows of one successful run of the real-Hadoop harness.

    Every row is one task attempt's phase; the task's wall time is cut at the boundaries the
    run log gives, so a task's phases add up to its duration (start → "Task … done."):

    * ``map``: attempt start → "Starting flush of map output" -- reading the split, the user's
      map() and collect into the sort buffer (interleaved per record by the map thread; spills
      of a full buffer run meanwhile in the background SpillThread and are inside it);
    * ``spill``: flush → end of the last spill ("Finished spill N" of the final flush spill),
      i.e. the spill on the task's critical path after map() returned;
    * ``merge``: end of the last spill → "Task … done.": ``MapTask.mergeParts`` (all spills
      merged into one file, or just renamed when there is one spill) and the task commit;
    * ``shuffle``: reduce attempt start → "finalMerge called with …": copying map outputs,
      including in-memory and on-disk merges made during the copy;
    * ``sort``: "finalMerge called" → the status update that ends the sort phase: the final
      merge of the reduce side;
    * ``write``: end of the sort phase → "Task … done.": the user's reduce() and writing its
      output (and the commit).

    Job-level columns: ``DataSize`` = input bytes / 2^20; ``Mappers``/``Reducers`` = task
    counts; ``MapSelectivity`` = 100 × MAP_OUTPUT_RECORDS / MAP_INPUT_RECORDS (the measured
    value; the ``mrtune.selectivity.percent`` setting only if the counters are missing);
    ``ReduceSelectivity`` = 100 × REDUCE_OUTPUT_RECORDS / REDUCE_INPUT_RECORDS; ``BlockSize``
    = the largest split. Measured per-task sizes: ``SplitMB`` (the attempt's split length),
    ``MapOutputMB`` (its MAP_OUTPUT_BYTES), ``ShuffleMB`` (the reduce attempt's
    REDUCE_SHUFFLE_BYTES) and ``ReduceOutputMB`` (its BYTES_WRITTEN, when counted).
    A phase whose boundary is missing from the log gives no row; a failed run gives none.

    Extra column ``FirstTask``: 1 on the rows of the map task that started first, else 0. All
    tasks of a local-mode job share one JVM, so the first map task runs cold (class loading,
    JIT compilation: about 900 ms for its ``map`` phase against 200-400 ms for later tasks in the
    generic benchmark here), unlike YARN, where every task has a JVM of its own. Offer it as a
    driver (``--form map=d+M_d+FirstTask``) to keep that one-off cost out of the other
    coefficients.
    """
    if not record.success:
        return []
    job = _job_columns(record)
    rows: list[PhaseRow] = []

    def add(phase: str, duration: float | None, **sizes: object) -> None:
        if duration is not None:
            rows.append(PhaseRow(operation=phase, duration_ms=duration, **job, **sizes))  # type: ignore[arg-type]

    starts = [a.start_ms for a in record.map_attempts if a.start_ms is not None]
    first_start = min(starts) if starts else None
    for a in record.map_attempts:
        at = f"{where} {a.attempt_id}".strip()
        first = 1.0 if a.start_ms is not None and a.start_ms == first_start else 0.0
        sizes = {
            "split_mb": _mb(a.split_length),
            "map_output_mb": _mb(a.counter("MAP_OUTPUT_BYTES")),
            "extra": {"FirstTask": first},
        }
        spill_ends = [s.end_ms for s in a.spills if s.end_ms is not None]
        last_spill = max(spill_ends) if spill_ends else None
        add("map", _interval(a.start_ms, a.flush_ms, at, "map"), **sizes)
        add("spill", _interval(a.flush_ms, last_spill, at, "spill"), **sizes)
        add("merge", _interval(last_spill, a.done_ms, at, "merge"), **sizes)
    for r in record.reduce_attempts:
        at = f"{where} {r.attempt_id}".strip()
        sizes = {
            "shuffle_mb": _mb(r.counter("REDUCE_SHUFFLE_BYTES")),
            "reduce_output_mb": _mb(r.counter("BYTES_WRITTEN")),
            "extra": {"FirstTask": 0.0},
        }
        add("shuffle", _interval(r.start_ms, r.shuffle_end_ms, at, "shuffle"), **sizes)
        add("sort", _interval(r.shuffle_end_ms, r.merge_end_ms, at, "sort"), **sizes)
        add("write", _interval(r.merge_end_ms, r.done_ms, at, "write"), **sizes)
    return rows


def parse_run_records(text: str, source: str) -> list[RunRecord]:
    """Run records from JSONL text (or a JSON list / one JSON object for ``.json``)."""
    from pydantic import ValidationError

    from mrtune.readers.run_records import RunRecord

    def one(payload: str | dict, where: str) -> RunRecord:
        try:
            if isinstance(payload, str):
                from mrtune.readers import safe_io

                payload = safe_io.json_loads(payload, where)
            return RunRecord.model_validate(payload)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err.get("loc", ())) or "record"
            raise InputError(
                f"not a run record: {err.get('msg')}", path=where, field=loc
            ) from None

    stripped = text.lstrip()
    if stripped.startswith("["):
        from mrtune.readers import safe_io

        items = safe_io.json_loads(text, source)
        return [one(item, f"{source}[{i}]") for i, item in enumerate(items)]
    if source.endswith(".json"):
        return [one(text, source)]
    return [
        one(line, f"{source}:{n}")
        for n, line in enumerate(text.splitlines(), start=1)
        if line.strip()
    ]


def rows_from_run_records_text(text: str, source: str) -> list[PhaseRow]:
    """Long-format rows of every successful run in a harness records file."""
    rows: list[PhaseRow] = []
    records = parse_run_records(text, source)
    for i, record in enumerate(records):
        rows.extend(rows_from_run_record(record, f"{source} record {i + 1} ({record.run_id})"))
    if not rows:
        raise InputError(
            f"no phase rows: {len(records)} record(s), none successful with phase boundaries",
            path=source,
        )
    return rows


def job_inputs_from_run_record(record: RunRecord) -> JobInputs:
    """The Table II inputs of one run, measured (the paper reads them from YARN logs, V-H).

    Local mode runs one map and one reduce at a time (``mapreduce.local.*.tasks.maximum``,
    default 1), so that is the number of containers. Sizes are the means over the run's tasks
    of the measured per-task values; the user's map() and reduce() times are 0 because the
    ``map`` and ``write`` phases of :func:`rows_from_run_record` already contain them.
    ``FirstTask`` is 1/M_t, its mean over the map tasks.
    """
    job = _job_columns(record)
    rows = rows_from_run_record(record)

    def mean(attr: str) -> float | None:
        values = [getattr(r, attr) for r in rows if not math.isnan(getattr(r, attr))]
        return float(np.mean(values)) if values else None

    containers = int(record.effective_conf.get("mapreduce.local.map.tasks.maximum", "1"))
    n_maps = max(1, int(job["mappers"]))  # type: ignore[call-overload]
    return JobInputs(
        data_size_mb=job["data_size_mb"],
        mappers=n_maps,
        map_selectivity_pct=job["map_selectivity_pct"],
        reducers=int(job["reducers"]),  # type: ignore[call-overload]
        containers=max(1, containers),
        reduce_selectivity_pct=job["reduce_selectivity_pct"],
        split_mb=mean("split_mb"),
        map_output_mb=mean("map_output_mb"),
        shuffle_mb=mean("shuffle_mb"),
        reduce_output_mb=mean("reduce_output_mb"),
        # the mean over the map tasks: one cold task out of M_t (see rows_from_run_record)
        extra_drivers={"FirstTask": 1.0 / n_maps},
    )


def measured_runs_from_records(records: Sequence[RunRecord]) -> list[RunTimes]:
    """Measured per-task phase times (mean over a run's tasks) and job time of each run.

    This is the ``measured`` side of :func:`mrtune.costmodel.regression.compare_predictors`: any
    predictor (the regression models, the white-box cost model) that returns
    :class:`~mrtune.costmodel.regression.RunTimes` with the same ``run_id`` and phase names
    (``map``, ``spill``, ``merge``, ``shuffle``, ``sort``, ``write``; see
    :func:`rows_from_run_record` for what each covers) is scored against it. The job time is
    the driver's ``job_time_ms`` (submit → complete, so it includes the job's own set-up and
    clean-up, which no per-phase model has).
    """
    rows = [row for record in records for row in rows_from_run_record(record)]
    if not rows:
        return []
    job_ms = {r.run_id: float(r.job_time_ms) for r in records if r.job_time_ms is not None}
    return measured_run_times(rows_to_observations(rows), job_ms)
