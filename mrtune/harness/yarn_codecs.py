"""Codec ratios for YARN predictions, measured on OTHER runs of the same job and data.

A calibration run at the cluster's defaults writes its map output uncompressed, so it cannot
say how far LZ4 or Snappy shrink this job's IFile segments; without help the model falls back
on :data:`~mrtune.costmodel.CODEC_PRIORS` (sort-codec-lz4 came out 52% short in YARN round 2).
The ratio is a property of the bytes the codec sees (SequenceFile records of the sort job's
generator, WordCount's combined (word, count) pairs), not of the referee, so a run of the same
job on the same record generator -- local mode or another YARN run -- measures it
(``MAP_OUTPUT_MATERIALIZED_BYTES`` over the IFile stream's uncompressed length,
:func:`mrtune.calibration.run_profile.codec_ratios_from`).

As the local report's ``--measure-codecs`` (:mod:`mrtune.calibration.fidelity`), the run being
predicted never supplies its own ratio: every run with its label is left out, in any round.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mrtune.calibration.fidelity import JOB_PREFIX
from mrtune.calibration.run_profile import codec_ratios_from, flat_counters
from mrtune.costmodel import JobProfile
from mrtune.costmodel.combiner import combined_width_factor
from mrtune.errors import InputError
from mrtune.readers.run_records import RunRecord

#: Two runs' map output records are the same kind of data when their mean map output pair
#: width (MAP_OUTPUT_BYTES / MAP_OUTPUT_RECORDS) agrees this closely: the sort job's 100-byte
#: records agree exactly; two Zipf texts of one vocabulary agree to a few 0.1%.
SAME_WIDTH_TOLERANCE = 0.01


def load_codec_runs(paths: Sequence[Path]) -> list[RunRecord]:
    """The successful run records of ``paths`` (``hadoop-run``/``hadoop-matrix`` JSONL)."""
    from mrtune.readers.run_records import read_jsonl

    out: list[RunRecord] = []
    for p in paths:
        try:
            out += [r for r in read_jsonl(p) if r.success]
        except (ValueError, OSError) as exc:
            msg = f"not a file of run records: {exc}".splitlines()[0]
            raise InputError(msg, path=str(p), field="--codec-runs") from None
    return out


def _pair_width(counters: dict[str, float]) -> float:
    mor = float(counters.get("MAP_OUTPUT_RECORDS") or 0.0)
    return float(counters.get("MAP_OUTPUT_BYTES") or 0.0) / mor if mor > 0 else 0.0


def same_data_runs(
    group: str, width: float, records: Sequence[RunRecord], exclude_label: str
) -> list[RunRecord]:
    """The records of job ``group`` (a YARN group name such as ``wc``, or the job's own name)
    whose map output pair width matches ``width``, without any run labelled
    ``exclude_label``."""
    out = []
    for r in records:
        if group not in (r.job, JOB_PREFIX.get(r.job, r.job)):
            continue
        if (r.label or r.run_id) == exclude_label:
            continue
        w = _pair_width(flat_counters(r.counters))
        if width > 0 and abs(w - width) <= SAME_WIDTH_TOLERANCE * width:
            out.append(r)
    return out


def with_codecs_from(
    profile: JobProfile,
    group: str,
    map_output_width: float,
    records: Sequence[RunRecord],
    label: str,
) -> tuple[JobProfile, list[str]]:
    """``profile`` with the codec ratios measured by ``records`` of the same job and data
    (leaving out every run labelled ``label``), and the run ids they came from."""
    same = same_data_runs(group, map_output_width, records, label)
    width = profile.stats.map_output_pair_width
    if profile.has_combiner:
        width *= combined_width_factor(profile.stats)
    measured = codec_ratios_from(same, has_combiner=profile.has_combiner, width=width)
    if not measured:
        return profile, []
    sources = [c.source for c in measured.values()]
    return profile.model_copy(update={"codecs": {**profile.codecs, **measured}}), sources
