"""Where the cluster comes from: ``profile`` shows the self-check first, ``whatif`` and
``optimize`` print one line naming the cluster's origin (inferred, --nodes, --cluster)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.costmodel import JobProfile

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
TERAGEN = DATA / "rumen" / "2jobs2min-rumen-jh.json"
WORDCOUNT = DATA / "rumen" / "wordcount-rumen.json"
runner = CliRunner()
WIDE = {"COLUMNS": "200"}


def _cluster_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if "cluster:" in ln]


def test_profile_prints_the_self_check_before_anything_else_about_trust(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    result = runner.invoke(app, ["profile", str(WORDCOUNT), "-o", str(out)], env=WIDE)
    assert result.exit_code == 0, result.output
    text = result.stdout
    i = text.index("Self-check")
    for later in (
        "Cluster the job ran on",
        "Tasks and phase times",
        "Dataflow statistics",
        "Cost factors",
        "Observed vs the calibrated model",
    ):
        assert i < text.index(later), later
    assert "map waves" in text and "task span" in text
    data = json.loads(out.read_text())
    assert data["cluster_facts"]["self_check.map_waves.observed"] == 2.0
    assert data["cluster_facts"]["self_check.map_waves.model"] == 2.0
    assert data["cluster"]["num_nodes"]["provenance"] == "inferred"
    assert "fit.map.total.model_ms" in data["cluster_facts"]  # beside the per-phase check


def test_whatif_uses_the_inferred_cluster_and_says_so_once() -> None:
    result = runner.invoke(app, ["whatif", str(TERAGEN)], env=WIDE)
    assert result.exit_code == 0, result.output
    lines = _cluster_lines(result.stdout)
    assert lines == [
        "cluster: 4 nodes × 8192 MB × 8 vcores (history: 4 hosts; node size: job conf)"
    ]
    js = runner.invoke(app, ["whatif", str(TERAGEN), "--format", "json"])
    data = json.loads(js.stdout)
    assert data["cluster"]["num_nodes"] == 4 and data["current"]["map_waves"] == 4


def test_whatif_nodes_is_the_what_if_cluster(tmp_path: Path) -> None:
    result = runner.invoke(app, ["whatif", str(TERAGEN), "--nodes", "8"], env=WIDE)
    assert result.exit_code == 0, result.output
    (line,) = _cluster_lines(result.stdout)
    assert line.startswith("cluster: 4 nodes") and line.endswith("→ 8 nodes")


def test_yarn_site_given_with_cluster_sets_node_capacity(tmp_path: Path) -> None:
    site = tmp_path / "yarn-site.xml"
    site.write_text(
        "<configuration><property><name>yarn.nodemanager.resource.memory-mb</name>"
        "<value>16384</value></property><property><name>yarn.nodemanager.resource.cpu-vcores"
        "</name><value>16</value></property></configuration>"
    )
    result = runner.invoke(
        app, ["whatif", str(TERAGEN), "--cluster", str(site), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    c = json.loads(result.stdout)["cluster"]
    assert (c["num_nodes"], c["node_memory_mb"], c["node_vcores"]) == (4, 16384, 16)
    assert "node size: yarn-site.xml" in c["origin"]
    # 16 GB nodes hold 16 maps of 1 GB each: 4 × 16 − 2 (the AM's 1.5 GB) = 62 slots, 2 waves
    result = runner.invoke(
        app, ["whatif", str(TERAGEN), "--cluster", str(site), "--format", "json"]
    )
    assert json.loads(result.stdout)["current"]["map_waves"] == 2


def test_bad_yarn_site_is_one_line(tmp_path: Path) -> None:
    site = tmp_path / "yarn-site.xml"
    site.write_text(
        "<configuration><property><name>yarn.scheduler.minimum-allocation-mb</name>"
        "<value>1.5g</value></property></configuration>"
    )
    result = runner.invoke(app, ["whatif", str(TERAGEN), "--cluster", str(site)])
    assert result.exit_code == 2
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "yarn.scheduler.minimum-allocation-mb" in lines[0]
    assert "Traceback" not in result.output


def test_profile_json_without_a_cluster_keeps_the_default(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    runner.invoke(app, ["profile", str(WORDCOUNT), "-o", str(out)])
    data = json.loads(out.read_text())
    del data["cluster"]
    JobProfile.model_validate(data)
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    result = runner.invoke(app, ["whatif", str(old)], env=WIDE)
    assert result.exit_code == 0, result.output
    (line,) = _cluster_lines(result.stdout)
    assert "10 nodes" in line and "default" in line


def test_optimize_prints_the_inferred_cluster_and_nodes_overrides_it() -> None:
    args = [
        "optimize",
        str(TERAGEN),
        "--strategy",
        "rrs",
        "--trials",
        "20",
        "--storage",
        "none",
    ]
    result = runner.invoke(app, args, env=WIDE)
    assert result.exit_code == 0, result.output
    (line,) = _cluster_lines(result.stdout)
    assert "4 nodes × 8192 MB" in line and "history: 4 hosts" in line
    result = runner.invoke(app, [*args, "--nodes", "12"], env=WIDE)
    (line,) = _cluster_lines(result.stdout)
    assert "12 nodes" in line and "--nodes" in line
