"""Run a matrix of real-Hadoop runs described in YAML, one JSON record per run (JSONL).

Format (see ``mrtune/harness/matrices/*.yaml``)::

    name: fidelity-matrix
    repeats: 3                # every entry is run this many times
    xmx_mb: 2048              # default heap, an entry may override it
    nice: -10                 # optional: JVM niceness (negative needs root)
    inputs:                   # generated, cached inputs (validation.datagen)
      rec128: {kind: records, mib: 128, seed: 0}
    runs:                     # explicit entries
      - {label: sort-default, job: sort, input: rec128}
      - {label: sort-iosortmb-5, job: sort, input: rec128,
         settings: {mapreduce.task.io.sort.mb: 5}}
    grids:                    # cartesian products, one entry per combination
      - job: selectivity
        label: gen            # prefix; the label gets each varied value appended
        inputs: [rec32, rec64]
        settings:
          mrtune.selectivity.percent: [10, 50, 100]
          mapreduce.input.fileinputformat.split.maxsize: [16777216, 33554432]

Runs are executed in rounds (every entry once, then every entry again, …) so that slow drift
of the machine spreads over all entries instead of biasing one; compare medians over repeats
(real-hadoop.md: repeats vary 0.5–5 %, batches ±10 %). Records are appended as soon as a run
ends, and a rerun skips (label, repeat) pairs already in the output, so an interrupted matrix
resumes where it stopped.
"""

from __future__ import annotations

import gzip
import itertools
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from mrtune.errors import InputError
from mrtune.harness.assemble import build_record
from mrtune.harness.datagen import ensure_input
from mrtune.harness.jars import HadoopJars, default_cache_dir
from mrtune.harness.runner import JOBS, check_settings, cleanup_run_dir, run_job
from mrtune.readers.run_records import RunRecord, read_jsonl, write_jsonl


def _str_settings(v: dict) -> dict[str, str]:
    out = {}
    for k, val in (v or {}).items():
        if isinstance(val, bool):
            out[str(k)] = "true" if val else "false"
        else:
            out[str(k)] = str(val)
    return out


class InputSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["text", "records"]
    mib: float = Field(gt=0)
    seed: int = 0


class RunSpec(BaseModel):
    """One matrix entry: a job, an input and its -D settings."""

    model_config = ConfigDict(extra="forbid")
    label: str
    job: Literal["wordcount", "sort", "selectivity", "postings"]
    input: str
    settings: dict[str, str] = Field(default_factory=dict)
    xmx_mb: int | None = Field(default=None, ge=64)
    note: str | None = None

    _norm = field_validator("settings", mode="before")(_str_settings)


class GridSpec(BaseModel):
    """A cartesian product of settings over inputs."""

    model_config = ConfigDict(extra="forbid")
    job: Literal["wordcount", "sort", "selectivity", "postings"]
    label: str
    inputs: list[str]
    settings: dict[str, list[str | int | float | bool]] = Field(default_factory=dict)
    fixed: dict[str, str] = Field(default_factory=dict)
    xmx_mb: int | None = Field(default=None, ge=64)

    _norm = field_validator("fixed", mode="before")(_str_settings)


class MatrixSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    repeats: int = Field(default=3, ge=1)
    xmx_mb: int = Field(default=2048, ge=64)
    nice: int | None = Field(default=None, ge=-20, le=19)
    """Niceness of every run's JVM (negative: raised priority, needs root)."""
    inputs: dict[str, InputSpec]
    runs: list[RunSpec] = Field(default_factory=list)
    grids: list[GridSpec] = Field(default_factory=list)

    def entries(self) -> list[RunSpec]:
        """Explicit runs followed by every grid combination; labels are checked unique."""
        out = list(self.runs)
        for g in self.grids:
            keys = list(g.settings)
            for inp in g.inputs:
                for combo in itertools.product(*(g.settings[k] for k in keys)):
                    settings = dict(g.fixed)
                    settings.update(_str_settings(dict(zip(keys, combo, strict=True))))
                    tag = "-".join(
                        f"{k.rsplit('.', 1)[-1]}={v}" for k, v in zip(keys, combo, strict=True)
                    )
                    out.append(
                        RunSpec(
                            label=f"{g.label}-{inp}-{tag}" if tag else f"{g.label}-{inp}",
                            job=g.job,
                            input=inp,
                            settings=settings,
                            xmx_mb=g.xmx_mb,
                        )
                    )
        seen: set[str] = set()
        for e in out:
            if e.label in seen:
                raise InputError("duplicate label in matrix", field="label", value=e.label)
            seen.add(e.label)
            if e.input not in self.inputs:
                raise InputError(
                    "unknown input",
                    field=f"{e.label}.input",
                    value=e.input,
                    allowed=", ".join(self.inputs),
                )
            check_settings(e.settings)
        return out


def load_matrix(path: Path) -> MatrixSpec:
    """Read and validate a matrix YAML file."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"cannot read matrix: {exc}", path=str(path)) from None
    spec = MatrixSpec.model_validate(data)
    spec.entries()
    return spec


def _done_pairs(out: Path) -> set[tuple[str, int]]:
    if not out.is_file():
        return set()
    return {(r.label or "", r.repeat) for r in read_jsonl(out) if r.success}


def run_matrix(
    spec: MatrixSpec,
    out: Path,
    jars: HadoopJars,
    work_dir: Path | None = None,
    keep_logs: bool = True,
    only: Callable[[RunSpec], bool] | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[RunRecord]:
    """Run every entry ``spec.repeats`` times (rounds-major), appending records to ``out``.

    Raw run folders go to ``work_dir/<run_id>`` (default ``<cache>/runs/<matrix name>``); with
    ``keep_logs`` their ``job.log`` is kept gzipped so records can be rebuilt later, and the
    bulky output and map-output files are always deleted.
    """
    if spec.name and any(c in spec.name for c in "/\\"):
        raise InputError("matrix name must not contain a path separator", value=spec.name)
    work = work_dir or default_cache_dir() / "runs" / spec.name
    work.mkdir(parents=True, exist_ok=True)
    entries = [e for e in spec.entries() if only is None or only(e)]
    done = _done_pairs(out)
    inputs = {}
    for name, inp in spec.inputs.items():
        if any(e.input == name for e in entries):
            inputs[name] = ensure_input(inp.kind, inp.mib, inp.seed)
    records: list[RunRecord] = []
    total = len(entries) * spec.repeats
    n = 0
    t_start = time.perf_counter()
    for rep in range(spec.repeats):
        for e in entries:
            n += 1
            if (e.label, rep) in done:
                continue
            input_dir, meta = inputs[e.input]
            run_dir = work / f"{e.label}-r{rep}"
            art = run_job(
                e.job,
                e.settings,
                input_dir,
                run_dir,
                jars,
                xmx_mb=e.xmx_mb or spec.xmx_mb,
                input_meta=meta,
                nice=spec.nice,
            )
            rec = build_record(art, label=e.label, repeat=rep)
            write_jsonl([rec], out, append=True)
            records.append(rec)
            cleanup_run_dir(run_dir)
            if keep_logs and art.log_path.is_file():
                with (
                    open(art.log_path, "rb") as src,
                    gzip.open(str(art.log_path) + ".gz", "wb") as dst,
                ):
                    shutil.copyfileobj(src, dst)
                art.log_path.unlink()
            if progress is not None:
                elapsed = time.perf_counter() - t_start
                status = "ok" if rec.success else f"FAILED ({(rec.error or '').splitlines()[-1:]})"
                progress(
                    f"[{n}/{total}] {e.label} r{rep}: {status} job {rec.job_time_ms} ms "
                    f"(elapsed {elapsed:.0f} s)"
                )
    return records


def jobs_in(spec: MatrixSpec) -> set[str]:
    return {e.job for e in spec.entries()} & set(JOBS)
