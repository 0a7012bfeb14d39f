"""Warnings on stderr wrap at the terminal's width like the rest of the output (an error stays
one line): the calibration-failed warning of the bundled WordCount profile had been printed as
one line of about 200 characters at COLUMNS=80."""

from __future__ import annotations

import os
import subprocess
import sys

from mrtune.cli.example import examples


def test_warnings_fit_80_columns() -> None:
    profile = str(examples()["wordcount-rumen"][1])
    env = {**os.environ, "COLUMNS": "80"}
    args = ["whatif", profile, "--set", "mapreduce.task.io.sort.mb=50", "--samples", "0"]
    res = subprocess.run(
        [sys.executable, "-m", "mrtune", *args], capture_output=True, text=True, env=env
    )
    assert res.returncode == 0, res.stderr
    assert "calibration failed" in res.stderr
    assert max(len(line) for line in res.stderr.splitlines()) <= 80
