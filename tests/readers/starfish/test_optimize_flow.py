"""Starfish inputs end to end: profile → optimize in Hadoop 1 mode with Hadoop 0.20 names."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.optimizer.outputs import parse_site_xml

FIX = Path(__file__).parent / "fixtures"


def test_starfish_profile_optimizes_with_hadoop1_names(tmp_path: Path) -> None:
    runner = CliRunner()
    prof = tmp_path / "sf.json"
    r = runner.invoke(
        app,
        [
            "profile",
            "--from",
            "starfish",
            str(FIX / "terasort_profile.xml"),
            "--input",
            str(FIX / "terasort_input.xml"),
            "--cluster",
            str(FIX / "terasort_cluster.xml"),
            "--conf",
            str(FIX / "terasort_conf.xml"),
            "-o",
            str(prof),
            "--format",
            "json",
        ],
    )
    assert r.exit_code == 0, r.output
    site = tmp_path / "mapred-site.xml"
    r = runner.invoke(
        app,
        [
            "optimize",
            str(prof),
            "--names",
            "hadoop1",
            "--storage",
            "none",
            "-o",
            str(site),
            "--format",
            "json",
        ],
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    props = parse_site_xml(site.read_text())
    assert props == out["properties"]
    assert props, "the Starfish terasort profile has settings worth changing"
    # Hadoop 0.20 names only, and no codec a Hadoop 1 cluster lacks
    assert not any(k.startswith("mapreduce.") for k in props), props
    assert not any(v.endswith(("Lz4Codec", "ZStandardCodec")) for v in props.values())
    # the cluster is the one the Starfish cluster file described (4 task trackers, slots)
    r = runner.invoke(app, ["optimize", str(prof), "--storage", "none", "--trials", "5"])
    assert "4 nodes as the profile describes them" in r.output
