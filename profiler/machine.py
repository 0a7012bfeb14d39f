"""This machine's cost factors, fitted on a benchmark of many runs (the cluster half of a profile).

Starfish and Ceesay et al. separate what a *cluster* costs (reading and writing local disk,
moving shuffle data, sorting and merging, compressing) from what a *job* costs (its map, reduce
and combine functions). A job profiled on one run at Hadoop's defaults cannot tell the first
kind apart: with one spill per map and no map-side merge, the merge, seek and codec factors
have nothing to be fitted on, and with equal-sized tasks per-byte and per-record costs are
collinear (``profiler.calibrate``). Those factors then keep documented defaults for an HDD
cluster, which can be off by a factor of ten on another machine.

A machine benchmark (``benchmarks/hadoop/machine.yaml``: the generic benchmark job on its own
input, with spills, merges, reduce buffers, reducers and map-output codecs varied) identifies
them, because its runs vary what the default run keeps constant. :func:`fit_machine` stacks the
phase times of every attempt of every run into one non-negative least squares
(``profiler.calibrate._solve``); each codec gets a CPU scale on its documented prior.
:func:`profile_from_run(..., machine=...) <profiler.runrecord.profile_from_run>` then starts a
job's calibration from these factors and refits only :data:`JOB_FACTORS` on the job's run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from costmodel.config import HadoopConfig
from costmodel.profile import CODEC_PRIORS, CodecStats, CostFactors, JobProfile
from mrtune.errors import InputError
from profiler.calibrate import (
    codec_column,
    fit_costs_dict,
    segment_fits,
    solve_contention,
    solve_runs,
)

#: Costs of the job's own code: refitted on the job's calibration run (its map, reduce and
#: combine functions, and its key comparator, which the sort's comparisons call). Everything
#: else (disk, shuffle, merge, framework per-record work, per-task time, codecs) belongs to
#: the machine.
JOB_FACTORS: tuple[str, ...] = ("map_cpu", "reduce_cpu", "combine_cpu", "sort_cpu")


class CodecCpu(BaseModel):
    """A codec's CPU cost on this machine (ns per uncompressed / compressed byte)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    compress_ns_per_byte: float = Field(ge=0)
    uncompress_ns_per_byte: float = Field(ge=0)
    source: str = ""


class SegmentQuality(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    segment: str
    n: int
    observed_mean_ms: float
    model_mean_ms: float


class MachineCosts(BaseModel):
    """Cost factors of one machine (or cluster), with where each came from."""

    model_config = ConfigDict(extra="forbid")
    schema_version: int = 1
    source: str = Field("", description="what the factors were fitted on")
    runs: int = Field(0, ge=0)
    costs: CostFactors = Field(default_factory=CostFactors)
    codecs: dict[str, CodecCpu] = Field(default_factory=dict)
    provenance: dict[str, str] = Field(default_factory=dict)
    segments: list[SegmentQuality] = Field(default_factory=list)
    warmup_ms: dict[str, float] = Field(
        default_factory=dict,
        description="local mode: extra time of the first map's and first reduce's segments in "
        "the shared JVM (JIT compilation), per segment, ms",
    )

    def apply_codecs(self, profile: JobProfile) -> JobProfile:
        """``profile`` with this machine's codec CPU costs (ratios stay the job's or the prior)."""
        codecs = dict(profile.codecs)
        for name, cpu in self.codecs.items():
            base = profile.codec(name)
            codecs[name] = CodecStats(
                ratio=base.ratio,
                compress_ns_per_byte=cpu.compress_ns_per_byte,
                uncompress_ns_per_byte=cpu.uncompress_ns_per_byte,
                source=f"{base.source}; CPU: {cpu.source}",
            )
        return profile.model_copy(update={"codecs": codecs})

    def save(self, path: Path) -> None:
        path.write_text(self.model_dump_json(indent=1) + "\n")

    @classmethod
    def load(cls, path: Path) -> MachineCosts:
        try:
            return cls.model_validate(json.loads(Path(path).read_text()))
        except FileNotFoundError as exc:
            raise InputError("machine cost file not found", path=str(path)) from exc
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON: {exc.msg} (line {exc.lineno})", path=str(path)) from exc
        except ValidationError as exc:
            err = exc.errors()[0]
            raise InputError(
                f"not a machine cost file: {err['msg']}",
                path=str(path),
                field=".".join(str(x) for x in err["loc"]),
            ) from exc


def fit_machine(
    runs: Sequence[tuple[JobProfile, HadoopConfig]], source: str = "", spill_overlap: bool = False
) -> MachineCosts:
    """Fit every cost factor on the observed attempts of ``runs`` jointly.

    Each pair is a run's profile (with its observed timings and measured dataflow, as
    :func:`profiler.runrecord.profile_from_run` with ``calibrate=False`` builds it) and the
    configuration it ran with. Codecs used by any run get a CPU scale column.
    ``spill_overlap``: the runs' map spills overlapped the map function (local mode).
    """
    if not runs:
        raise InputError("no runs to fit machine costs on", field="runs")
    profiles = [p for p, _ in runs]
    codecs = sorted({cfg.map_output_codec for _, cfg in runs if cfg.map_output_compress})
    if spill_overlap:
        fit = solve_contention(runs, CostFactors(), None, "", codecs)
    else:
        fit = solve_runs(runs, CostFactors(), None, "", codecs, False, method="ridge")
    costs, prov = fit_costs_dict(fit)
    label = source or f"{len(profiles)} runs"
    prov = {
        k: v.replace("measured:", f"measured on the machine benchmark ({label}):", 1)
        for k, v in prov.items()
    }
    cpu: dict[str, CodecCpu] = {}
    for name in codecs:
        i = fit.columns.index(codec_column(name))
        scale = float(fit.theta[i])
        prior = CODEC_PRIORS[name]
        cpu[name] = CodecCpu(
            compress_ns_per_byte=prior.compress_ns_per_byte * scale,
            uncompress_ns_per_byte=prior.uncompress_ns_per_byte * scale,
            source=f"machine benchmark ({label}): {scale:.3g} × the prior's CPU "
            f"({prov.get(f'costs.{codec_column(name)}', '')})",
        )
    return MachineCosts(
        source=label,
        runs=len(profiles),
        costs=CostFactors(**costs),
        codecs=cpu,
        provenance={k: v for k, v in prov.items() if not k.startswith("costs.codec:")},
        warmup_ms=dict(fit.warmup_ms),
        segments=[
            SegmentQuality(
                segment=s.name,
                n=s.n,
                observed_mean_ms=s.observed_mean_ms,
                model_mean_ms=s.model_mean_ms,
            )
            for s in segment_fits(fit)
        ],
    )


def fit_machine_from_runs(records: Iterable, source: str = "") -> MachineCosts:
    """:func:`fit_machine` on harness run records (``validation.records.RunRecord``)."""
    from profiler.runrecord import profile_from_run, run_config

    runs = [(profile_from_run(r, calibrate=False), run_config(r)) for r in records if r.success]
    # local-mode runs: one task at a time, the spill thread has a core (ClusterSpec.local)
    return fit_machine(runs, source, spill_overlap=True)
