"""A codec change whose gain rests on the codec's documented ratio is low-confidence.

The fixture holds two real local runs of the examples' Sort (hadoop-mapreduce-examples 3.4.2,
``-r 1``) over RandomWriter's SequenceFiles of random bytes: the default, and the same with
lz4 map-output compression. ``optimize`` had written lz4 as "ok" for a shuffle of 27.7 →
13.3 MiB on lz4's prior ratio 0.48; the real shuffle grew 0.4%.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mrtune.cli import app
from tests.calibration.run_fixtures import by_label

FIXTURE = "examples-sort-random-bytes.jsonl.gz"
CODEC = "mapreduce.map.output.compress.codec"


def test_a_codec_on_its_prior_ratio_is_not_written(tmp_path: Path) -> None:
    recs = by_label(FIXTURE)
    # what Hadoop did: random bytes do not compress
    shuffle = {k: r.counter("REDUCE_SHUFFLE_BYTES") for k, r in recs.items()}
    assert shuffle["sortr-lz4"] > shuffle["sort-default"]
    runs = tmp_path / "runs.jsonl"
    runs.write_text(recs["sort-default"].to_json() + "\n")
    res = CliRunner().invoke(app, ["optimize", str(runs), "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    codec = [c for c in data["withheld_changes"] if c["name"] == CODEC]
    assert codec, data["withheld_changes"]
    reasons = " ".join(codec[0]["low_confidence_reasons"])
    assert "documented compression ratio" in reasons
    assert CODEC not in {c["name"] for c in data["changes"] if c.get("written")}


def test_settings_the_jobs_code_fixes_are_read_from_its_staged_job_xml() -> None:
    # Sort -r 1 calls setNumReduceTasks(1): a -D or site value of mapreduce.job.reduces is
    # overridden (a real run with -D mapreduce.job.reduces=3 launched 1), so it is not searched
    from mrtune.calibration.run_profile import profile_from_run
    from mrtune.profiling import profile_config
    from mrtune.search_spaces.space import SearchSpace

    rec = by_label(FIXTURE)["sort-default"]
    assert rec.fixed_by_job == ["mapreduce.job.reduces"]
    prof = profile_from_run(rec)
    assert prof.fixed_by_job == ["mapreduce.job.reduces"]
    space = SearchSpace.for_job(prof, profile_config(prof))
    assert "mapreduce.job.reduces" not in space.names
    assert any(
        w.startswith("mapreduce.job.reduces: the job's code sets it") for w in space.withheld
    )
