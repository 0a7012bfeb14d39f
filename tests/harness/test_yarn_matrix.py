"""The YARN matrix without a cluster: planning, the launcher's --jobs file, the index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mrtune.harness.yarn_matrix as ym
from mrtune.errors import InputError
from mrtune.harness.yarn_fidelity import load_history_runs
from mrtune.harness.yarn_run import MiniCluster, launcher_command

MATRIX = Path(ym.__file__).parent / "matrices" / "yarn.yaml"


def test_shipped_matrix_loads_and_plans_rounds_major() -> None:
    spec = ym.load_yarn_matrix(MATRIX)
    runs = ym.plan(spec)
    n = len(spec.entries())
    assert len(runs) == n * spec.repeats
    # every entry once per round, shuffled within the round, the same way every time
    for rep in range(spec.repeats):
        chunk = runs[rep * n : (rep + 1) * n]
        assert {r.repeat for r in chunk} == {rep}
        assert sorted(r.entry.label for r in chunk) == sorted(e.label for e in spec.entries())
    assert [r.run_label for r in ym.plan(spec)] == [r.run_label for r in runs]
    assert [r.entry.label for r in runs[:n]] != [e.label for e in spec.entries()]
    # every job has its calibration run
    for group in {ym.job_group(e.label) for e in spec.entries()}:
        assert any(e.label == f"{group}-default" for e in spec.entries())


def test_bad_cluster_block_is_one_error(tmp_path: Path) -> None:
    bad = tmp_path / "m.yaml"
    bad.write_text(MATRIX.read_text().replace("nodemanagers: 2", "nodemanager: 2"))
    with pytest.raises(InputError, match="cluster"):
        ym.load_yarn_matrix(bad)


def test_jobs_file_gives_each_run_its_own_output(tmp_path: Path) -> None:
    spec = ym.load_yarn_matrix(MATRIX)
    lines = ym.jobs_file_lines(ym.plan(spec), tmp_path / "jobs.jar")
    outs = [line.split("\t")[-1] for line in lines]
    assert len(set(outs)) == len(outs)
    first = lines[0].split("\t")
    assert first[1] == "mrtune.jobs.Driver" and first[-2].startswith("/in/")


def test_launcher_command_jobs_mode(tmp_path: Path, monkeypatch) -> None:
    import mrtune.harness.yarn_run as yr

    monkeypatch.setattr(yr, "compile_launcher", lambda jars: tmp_path / "l.jar")

    class Jars:
        def classpath_string(self) -> str:
            return "cp"

    cmd = launcher_command(
        Jars(), MiniCluster(), tmp_path, tmp_path / "j.jar", "", [], {}, 60, tmp_path / "j.tsv"
    )
    assert cmd[-2:] == ["--jobs", str(tmp_path / "j.tsv")] and "--main" not in cmd


def test_index_entries_read_back_as_history_runs(tmp_path: Path, monkeypatch) -> None:
    """What the launcher leaves per job becomes `hadoop-run --mode yarn` index lines."""
    spec = ym.load_yarn_matrix(MATRIX)
    spec.runs = spec.runs[:2]
    runs = ym.plan(spec)
    for i, r in enumerate(runs):
        d = tmp_path / "jobs" / r.run_label
        d.mkdir(parents=True)
        hist = [str(d / f"job_{i}.jhist"), str(d / f"job_{i}_conf.xml")]
        for h in hist:
            Path(h).write_text("{}")
        info = {"exit_code": 0 if i else 1, "histories": hist if i else [], "client_s": 3.5}
        (d / "job.json").write_text(json.dumps(info | {"load_avg_1m": 1.0}))
    entries = [ym._index_entry(r, tmp_path, spec.mini_cluster(), tmp_path / "j.jar") for r in runs]
    assert [e["success"] for e in entries] == [False] + [True] * (len(runs) - 1)
    index = tmp_path / "runs.jsonl"
    with index.open("w") as fh:
        for e in entries:
            fh.write(json.dumps(e) + "\n")
    loaded = load_history_runs(index)
    assert len(loaded) == len(runs) - 1
    assert {h.group for h in loaded} == {"sort"}
    assert loaded[0].cluster == spec.mini_cluster()


def test_leftover_scan_spares_the_caller_and_its_ancestors(tmp_path: Path) -> None:
    """A driver started as `... --work-dir RUN_DIR` names the folder on its own command
    line; the scan for leftover containers must not take it (or its shell) for one."""
    import subprocess
    import sys

    code = (
        "import sys; from pathlib import Path; "
        "from mrtune.harness.yarn_run import leftover_processes; "
        "print(leftover_processes(Path(sys.argv[1])))"
    )
    out = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -c "{code}" "{tmp_path}"; true'],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[]"
