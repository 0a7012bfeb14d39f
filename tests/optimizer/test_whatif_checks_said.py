"""What a what-if says of its own changes: refused on a map-only job (``refuse_map_only``), an
upper bound on a saturated key law (``saturated_key_law_note``).

Found on a Hadoop Streaming grep with ``mapreduce.job.reduces=0``: ``--set
mapreduce.task.io.sort.mb=5`` and ``mapreduce.map.output.compress=true`` were both accepted
and answered as "no change"; the maps of such a job write straight to the output format.
"""

from __future__ import annotations

import pytest

from mrtune.costmodel import DataflowStats, HadoopConfig, JobProfile
from mrtune.errors import InputError
from mrtune.optimizer.whatif import apply_changes

PROFILE = JobProfile(
    job_id="grep", input_bytes=1e9, map_only=True, stats=DataflowStats(input_pair_width=80)
)
BASE = HadoopConfig(num_reducers=0)


@pytest.mark.parametrize(
    "key",
    [
        "mapreduce.task.io.sort.mb",
        "mapreduce.map.sort.spill.percent",
        "mapreduce.map.output.compress",
        "mapreduce.reduce.shuffle.input.buffer.percent",
        "mapreduce.job.reduce.slowstart.completedmaps",
    ],
)
def test_reduce_side_and_sort_settings_are_refused(key: str) -> None:
    value = {"mapreduce.map.output.compress": "true"}.get(key, "0.5")
    if key == "mapreduce.task.io.sort.mb":
        value = "5"
    with pytest.raises(InputError, match="no effect on a map-only job") as err:
        apply_changes(BASE, {key: value}, PROFILE)
    assert "\n" not in str(err.value)
    # reducers in the same what-if would give the job a reduce side its map-only run never
    # measured: refused too (it had been answered as "no change", the model keeping 0)
    with pytest.raises(InputError, match="map-only run"):
        apply_changes(BASE, {key: value, "mapreduce.job.reduces": "2"}, PROFILE)


def test_a_whatif_that_makes_a_job_map_only_is_answered() -> None:
    # a whole configuration replayed (Starfish's smart-RRS TeraSort: reduces 0 with a sort
    # buffer) asks about a different job shape; only a job that stays map-only refuses
    job = JobProfile(job_id="ts", input_bytes=1e9, stats=DataflowStats(input_pair_width=100))
    cfg = apply_changes(
        HadoopConfig(num_reducers=4),
        {"mapreduce.job.reduces": "0", "mapreduce.task.io.sort.mb": "117"},
        job,
    )
    assert cfg.num_reducers == 0


def test_map_side_settings_of_a_map_only_job_are_answered() -> None:
    cfg = apply_changes(BASE, {"mapreduce.input.fileinputformat.split.minsize": "268435456"})
    assert cfg.split_minsize == 268435456


def test_smaller_spills_on_a_saturated_key_law_are_an_upper_bound() -> None:
    from mrtune.optimizer.whatif_checks import saturated_key_law_note
    from mrtune.profiling.combine_fit import SATURATED_NOTE

    prof = JobProfile(
        job_id="wc",
        input_bytes=1e9,
        has_combiner=True,
        stats=DataflowStats(input_pair_width=80),
        provenance={"stats.key_zipf_exponent": f"defaulted: {SATURATED_NOTE} (2 samples)"},
    )
    big, small = {"records_per_spill": 1_499_330.0}, {"records_per_spill": 173_253.0}
    note = saturated_key_law_note(prof, big, small)
    assert note is not None and "upper bound" in note and "173,253" in note
    assert saturated_key_law_note(prof, small, big) is None  # larger spills hold every key
    fitted = prof.model_copy(update={"provenance": {"stats.key_zipf_exponent": "measured: 1.1"}})
    assert saturated_key_law_note(fitted, big, small) is None
