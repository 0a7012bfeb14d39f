"""A combiner that emits several records a key, and a job that drops its ``-D`` settings.

Real local runs of two examples the project had not run (hadoop-mapreduce-examples 3.4.2 on
the 3.5 client jars, over 6 MB of Zipf text):

- AggregateWordHistogram: ``ValueAggregatorCombiner`` emits one record per histogram entry
  under the single key ``WORD_HISTOGRAM``, so a map's 757,160 records combine into 37,426
  records of ONE key (REDUCE_INPUT_GROUPS 1). The key law had been fitted through the groups
  as a distinct-key count and capped the combine at them: 2 records predicted for 37,426,
  MAP_OUTPUT_MATERIALIZED_BYTES −100%, on the calibration run itself.
- WordMedian: its driver calls ``setConf(new Configuration())``, which drops every ``-D``:
  the run labelled ``io.sort.mb=5`` ran at 100, and ``validate`` says so.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from typer.testing import CliRunner

from mrtune.calibration._fidelity_figures import measured_figures, predicted_figures
from mrtune.calibration.run_profile import profile_from_run
from mrtune.calibration.run_record import run_config
from mrtune.costmodel import ClusterSpec, ConfigBatch, predict_job
from mrtune.profiling.combine_units import several_per_key
from tests.calibration.run_fixtures import FIXTURES, by_label

FIXTURE = "examples-aggregatewordhistogram-wordmedian.jsonl.gz"
RECORDS = (
    "MAP_SPILLED_RECORDS",
    "REDUCE_SPILLED_RECORDS",
    "COMBINE_INPUT_RECORDS",
    "COMBINE_OUTPUT_RECORDS",
    "REDUCE_INPUT_RECORDS",
)


def test_a_combiner_emitting_records_of_one_key_is_not_capped_at_the_groups() -> None:
    runs = by_label(FIXTURE)
    profile = profile_from_run(runs["awh-default"])
    assert "several records a key" in profile.provenance["stats.key_vocabulary"]
    for label in ("awh-default", "awh-r3"):
        rec = runs[label]
        pred = predict_job(
            profile, ConfigBatch.from_configs([run_config(rec)]), ClusterSpec(local_mode=True)
        )
        got, real = predicted_figures(pred), measured_figures(rec)
        assert real["COMBINE_OUTPUT_RECORDS"] == 37_426
        for name in RECORDS:
            assert round(got[name]) == real[name], (label, name)
        bytes_ = got["MAP_OUTPUT_MATERIALIZED_BYTES"] / real["MAP_OUTPUT_MATERIALIZED_BYTES"]
        assert abs(bytes_ - 1) < 0.01, label


def test_only_more_records_than_keys_shows_it() -> None:
    assert several_per_key([([757_160.0], 37_426.0)], 1.0) is not None
    assert several_per_key([([100.0, 100.0], 150.0)], 80.0) is None  # ≤ 80 a spill
    assert several_per_key([([100.0, 100.0], 170.0)], 80.0) is not None


def test_validate_names_the_runs_that_dropped_their_settings(tmp_path: Path) -> None:
    from mrtune.cli import app

    runs = tmp_path / "runs.jsonl"
    runs.write_bytes(gzip.decompress((FIXTURES / FIXTURE).read_bytes()))
    out = tmp_path / "report.json"
    args = ["validate", str(runs), "--calibrate", "wmed-default", "--calibrate", "awh-default"]
    r = CliRunner().invoke(app, [*args, "--format", "json", "-o", str(out)])
    assert r.exit_code == 0, r.output
    report = json.loads(out.read_text())
    sort5 = next(x for x in report["runs"] if x["label"] == "wmed-sort5")
    assert sort5["settings_not_applied"] == {"mapreduce.task.io.sort.mb": "100"}
    assert all(x["settings_not_applied"] == {} for x in report["runs"] if x["job"] != "wordmedian")
    line = next(n for n in report["summary"]["notes"] if "did not run with" in n)
    assert line.startswith("wmed-sort5: ") and "mapreduce.task.io.sort.mb=5 asked" in line
