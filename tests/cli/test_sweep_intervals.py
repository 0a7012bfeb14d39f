"""``mrtune sweep`` says how sure each point is: a p10–p90 of its job time from the profile's
evidence (the bar: every prediction says how sure it is), in text and JSON."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.cli.example import examples


def _sweep(*extra: str):  # -> click Result
    prof = str(examples()["wordcount-rumen"][1])
    args = ["sweep", prof, "--param", "mapreduce.job.reduces", "--range", "1:6", "--steps", "4"]
    return CliRunner().invoke(app, [*args, *extra])


def test_every_point_has_an_interval_around_it() -> None:
    r = _sweep("--format", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert "bootstrap" in doc["interval_method"] and "run's noise" in doc["interval_method"]
    for p in doc["points"]:
        assert 0 < p["job_ms_p10"] <= p["job_ms"] <= p["job_ms_p90"]
    # more reducers on a one-node cluster: the intervals move with the points
    assert doc["points"][-1]["job_ms_p90"] > doc["points"][0]["job_ms_p90"]


def test_the_table_shows_the_interval_in_80_columns() -> None:
    r = _sweep()
    assert r.exit_code == 0, r.output
    assert "p10–p90" in r.stdout
    assert all(len(line) <= 80 for line in r.stdout.splitlines())
