"""The job's record totals add up: no rounding per file or per map where Hadoop has none.

Two roundings had made record counters inexact, on the calibration run itself:

- each of a job's equal files held ``rint(records / files)`` records, so AggregateWordCount
  over 20 files of 264,571 lines in all was modelled with 264,580 (every map-side and
  combiner counter of the run then missed by a few records);
- each map emitted ``floor(n·p)`` records, which is right for the selectivity job (its
  mapper emits the first floor(n·p/100) records of a split) but drops up to one record a
  map for a tokeniser: AggregateWordCount at 4 MiB splits had 2,646,240 map outputs against
  Hadoop's 2,646,242, WordStandardDeviation 7,938,725 combine inputs against 7,938,726.

The fixture holds real local runs of the examples' AggregateWordCount and
WordStandardDeviation (Hadoop 3.4.2 examples on the 3.5 client jars): the 20-file default,
and a default and a 4 MiB-split run of each over one 20 MB text.
"""

from __future__ import annotations

import pytest

from mrtune.calibration._fidelity_figures import measured_figures, predicted_figures
from mrtune.calibration.run_profile import profile_from_run
from mrtune.calibration.run_record import run_config
from mrtune.costmodel import ClusterSpec, ConfigBatch, predict_job
from mrtune.profiling.map_output_share import emits_share
from tests.calibration.run_fixtures import by_label

FIXTURE = "examples-aggregatewordcount-rounding.jsonl.gz"
COUNTERS = (
    "MAP_INPUT_RECORDS",
    "MAP_OUTPUT_RECORDS",
    "COMBINE_INPUT_RECORDS",
    "COMBINE_OUTPUT_RECORDS",
    "MAP_SPILLED_RECORDS",
    "REDUCE_SPILLED_RECORDS",
    "REDUCE_INPUT_RECORDS",
)


def _compare(cal: str, held: str, names: tuple[str, ...]) -> dict[str, tuple[float, float]]:
    runs = by_label(FIXTURE)
    profile = profile_from_run(runs[cal])
    rec = runs[held]
    pred = predict_job(
        profile, ConfigBatch.from_configs([run_config(rec)]), ClusterSpec(local_mode=True)
    )
    got, real = predicted_figures(pred), measured_figures(rec)
    return {n: (float(got[n]), float(real[n])) for n in names}


def test_twenty_files_add_up_to_the_runs_records() -> None:
    """The calibration run over 20 files: every record counter as Hadoop's, once rounded."""
    for name, (pred, real) in _compare("awc20-default", "awc20-default", COUNTERS).items():
        assert round(pred) == real, name


@pytest.mark.parametrize(
    ("cal", "held", "names"),
    [
        ("awc-default", "awc-split4m", ("MAP_OUTPUT_RECORDS", "COMBINE_INPUT_RECORDS")),
        ("wsd-default", "wsd-split4m", ("MAP_OUTPUT_RECORDS", "COMBINE_INPUT_RECORDS")),
    ],
)
def test_a_tokenisers_output_is_not_floored_per_map(
    cal: str, held: str, names: tuple[str, ...]
) -> None:
    """Five maps of 4 MiB: the maps' outputs add up to the job's, none loses a record."""
    for name, (pred, real) in _compare(cal, held, names).items():
        assert round(pred) == real, name


def test_a_share_is_told_from_a_tokeniser() -> None:
    """A share leaves each map within one record of n·p; lines of varying words do not; a
    whole number a record (12 words a line, an identity mapper) and one map are no share."""
    assert emits_share([(167_772, 134_217), (167_773, 134_218), (100_000, 80_000)])
    assert not emits_share([(13_000, 131_410), (13_500, 134_210)])
    assert not emits_share([(20_740, 248_880), (20_743, 248_916)])
    assert not emits_share([(167_772, 134_217)])
    assert not emits_share([(100_000, 0), (100_000, 1), (100_000, 1), (100_000, 0)])  # grep
    assert not emits_share([(3_601, 26_425)] * 20)  # maps alike (a 2009 Rumen trace's job)
    runs = by_label(FIXTURE)
    assert not profile_from_run(runs["awc-split4m"]).map_output_floor
