"""Real Hadoop (local mode): the list-building-combiner job against the model (issue 20 item 7).

Selected by ``pytest -m hadoop`` (jars from ``python -m mrtune.harness.jars fetch``, ``java`` and
``javac`` on PATH). Postings lists over 6 MiB of Zipf text in two 3 MiB splits: calibrated on
one run, the model must give the held-out runs' dataflow (more reducers, no combiner, small
sort buffers whose spills merge fewer records per key) from the width law and the key law.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.calibration.run_profile import (
    flat_counters,
    local_cluster,
    profile_for_run,
    profile_from_run,
    run_config,
)
from mrtune.costmodel import ConfigBatch, predict_job
from mrtune.harness.assemble import build_record
from mrtune.harness.datagen import ensure_input
from mrtune.harness.jars import find_jars
from mrtune.harness.runner import cleanup_run_dir, run_job
from mrtune.readers.run_records import RunRecord

pytestmark = pytest.mark.hadoop

BASE = {"mapreduce.input.fileinputformat.split.maxsize": str(3 << 20)}


def _run(name: str, extra: dict[str, str], inp: tuple[Path, dict], tmp: Path) -> RunRecord:
    art = run_job("postings", {**BASE, **extra}, inp[0], tmp / name, find_jars(), 1024, inp[1])
    rec = build_record(art, label=name)
    cleanup_run_dir(tmp / name)
    assert rec.success, rec.error
    return rec


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunRecord]:
    cache = tmp_path_factory.mktemp("mrtune-cache")
    inp = ensure_input("text", 6, seed=3, cache_dir=cache)
    tmp = tmp_path_factory.mktemp("runs")
    cases = {
        "cal": {},
        "reduces-3": {"mapreduce.job.reduces": "3"},
        "nocombiner": {"mrtune.postings.combiner": "false"},
        "sortmb-2": {"mapreduce.task.io.sort.mb": "2", "mapreduce.map.combine.minspills": "999"},
    }
    return {k: _run(k, v, inp, tmp) for k, v in cases.items()}


@pytest.mark.parametrize("label", ["cal", "reduces-3", "nocombiner", "sortmb-2"])
def test_postings_dataflow_matches_hadoop(label: str, runs: dict[str, RunRecord]) -> None:
    cal = runs["cal"]
    J0 = flat_counters(cal.counters)
    assert J0["COMBINE_OUTPUT_RECORDS"] * 5 < J0["COMBINE_INPUT_RECORDS"]  # ~10× fewer records
    profile = profile_from_run(cal)
    assert profile.stats.combine_width_growth > 3.5  # 4-byte list elements
    rec = runs[label]
    p = profile_for_run(profile, cal, rec)
    pred = predict_job(p, ConfigBatch.from_configs([run_config(rec)]), local_cluster(rec))
    J = flat_counters(rec.counters)
    for name in ("MAP_OUTPUT_RECORDS", "REDUCE_INPUT_GROUPS", "REDUCE_OUTPUT_RECORDS"):
        assert round(float(pred.counters[name][0])) == J[name], name
    spill_exact = label != "sortmb-2"  # spill-sized combines come from the fitted key law
    rtol_rec, rtol_bytes = (0.0, 0.01) if spill_exact else (0.05, 0.03)
    for name in ("COMBINE_OUTPUT_RECORDS", "REDUCE_INPUT_RECORDS"):
        assert float(pred.counters[name][0]) == pytest.approx(J[name], rel=rtol_rec, abs=0.5)
    for name in ("MAP_OUTPUT_MATERIALIZED_BYTES", "REDUCE_SHUFFLE_BYTES"):
        assert float(pred.counters[name][0]) == pytest.approx(J[name], rel=rtol_bytes), name
    out = J.get("OUTPUT_FORMAT_BYTES_WRITTEN") or J["BYTES_WRITTEN"]
    assert float(pred.counters["HDFS_BYTES_WRITTEN"][0]) == pytest.approx(out, rel=0.01)
