"""This machine's cost factors, fitted on a benchmark of many runs (the cluster half of a profile).

Starfish and Ceesay et al. separate what a *cluster* costs (reading and writing local disk,
moving shuffle data, sorting and merging, compressing) from what a *job* costs (its map, reduce
and combine functions). A job profiled on one run at Hadoop's defaults cannot tell the first
kind apart: with one spill per map and no map-side merge, the merge, seek and codec factors
have nothing to be fitted on, and with equal-sized tasks per-byte and per-record costs are
collinear (``mrtune.calibration.cost_factors``). Those factors then keep documented defaults for an HDD
cluster, which can be off by a factor of ten on another machine.

A machine benchmark (``mrtune/harness/matrices/machine.yaml``: the generic benchmark job on its own
input, with spills, merges, reduce buffers, reducers and map-output codecs varied) identifies
them, because its runs vary what the default run keeps constant. :func:`fit_machine` stacks the
phase times of every attempt of every run into one non-negative least squares
(``mrtune.calibration.cost_factors._solve``); each codec gets a CPU scale on its documented prior.
:func:`profile_from_run(..., machine=...) <profiler.runrecord.profile_from_run>` then starts a
job's calibration from these factors and refits only :data:`JOB_FACTORS` on the job's run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mrtune.calibration.cost_factors import (
    codec_column,
    fit_costs_dict,
    segment_fits,
    solve_contention,
    solve_runs,
)
from mrtune.calibration.cost_units import separable_terms, with_byte_starts
from mrtune.calibration.machine_costs import CodecCpu, MachineCosts, SegmentQuality
from mrtune.calibration.run_profile import profile_from_run, run_config
from mrtune.calibration.unit_models import reuse_unit_models
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import CODEC_PRIORS, CostFactors, JobProfile
from mrtune.errors import InputError


def fit_machine(
    runs: Sequence[tuple[JobProfile, HadoopConfig]],
    source: str = "",
    spill_overlap: bool = False,
    per_byte: bool = False,
) -> MachineCosts:
    """Fit every cost factor on the observed attempts of ``runs`` jointly.

    Each pair is a run's profile (with its observed timings and measured dataflow, as
    :func:`mrtune.calibration.run_profile.profile_from_run` with ``calibrate=False`` builds it) and the
    configuration it ran with. Codecs used by any run get a CPU scale column.
    ``spill_overlap``: the runs' map spills overlapped the map function (local mode).
    ``per_byte``: also fit the per-byte CPU factors the runs' record widths separate from the
    per-record ones (:func:`~mrtune.calibration.cost_units.separable_terms`), jointly with
    them. Off by default: on this project's benchmark they did not improve the predictions
    of a record width left out of the fit (``benchmarks/per_byte_study.py``).
    """
    if not runs:
        raise InputError("no runs to fit machine costs on", field="runs")
    profiles = [p for p, _ in runs]
    codecs = sorted({cfg.map_output_codec for _, cfg in runs if cfg.map_output_compress})
    prior = with_byte_starts(CostFactors(), separable_terms(profiles) if per_byte else ())
    # the grid refits every run at a few shapes only: each run is modelled once per shape
    # (mrtune.calibration.unit_models)
    with reuse_unit_models():
        if spill_overlap:
            fit = solve_contention(runs, prior, None, "", codecs)
        else:
            fit = solve_runs(runs, prior, None, "", codecs, False, method="ridge")
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


def fit_machine_from_runs(
    records: Iterable, source: str = "", per_byte: bool = False
) -> MachineCosts:
    """:func:`fit_machine` on harness run records (``mrtune.readers.run_records.RunRecord``)."""
    runs = [(profile_from_run(r, calibrate=False), run_config(r)) for r in records if r.success]
    # local-mode runs: one task at a time, the spill thread has a core (ClusterSpec.local)
    return fit_machine(runs, source, spill_overlap=True, per_byte=per_byte)
