"""A fidelity matrix on the YARN referee: many runs on ONE mini-cluster, real histories kept.

The local matrix (:mod:`mrtune.harness.matrix`) runs each entry in its own LocalJobRunner
JVM. On YARN the cluster's start (NameNode, DataNodes, ResourceManager, NodeManagers, the
JobHistory server: ~30–60 s and tens of CPU seconds on this machine) would dwarf a small job,
so here the whole matrix runs as the ``--jobs`` list of one launcher
(``java/mrtune/yarn/MiniClusterLauncher.java``): the jobs run one after another on the same
cluster, each leaving its own ``.jhist`` and ``_conf.xml``.

The YAML is the local matrix's format (``inputs``, ``runs``, ``grids``, ``repeats``) plus a
``cluster:`` block with :class:`~mrtune.harness.yarn_run.MiniCluster`'s fields. The order is
rounds-major (every entry once, then again), shuffled within a round with a fixed seed, so a
drift of the machine is spread over every setting instead of biasing one (real-hadoop.md).

The result is the ``runs.jsonl`` index ``mrtune hadoop-run --mode yarn`` writes, one line per
run with its ``job`` (the group it is calibrated within), so ``mrtune validate runs.jsonl``
reads it.
"""

from __future__ import annotations

import json
import os
import random
import resource
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ConfigDict, Field

from mrtune.errors import InputError
from mrtune.harness.any_job import append_index, project_job
from mrtune.harness.compile import DRIVER_CLASS, compile_jobs
from mrtune.harness.datagen import ensure_input
from mrtune.harness.jars import HadoopJars
from mrtune.harness.matrix import MatrixSpec, RunSpec
from mrtune.harness.minicluster import MiniClusterJars, find_minicluster
from mrtune.harness.yarn_run import MiniCluster, launcher_command, leftover_processes


class YarnMatrixSpec(MatrixSpec):
    """The local matrix's format plus the mini-cluster's shape."""

    model_config = ConfigDict(extra="forbid")
    cluster: dict[str, int] = Field(default_factory=dict)
    shuffle_seed: int = 0
    per_job_timeout_s: int = Field(default=600, ge=10)

    def mini_cluster(self) -> MiniCluster:
        try:
            return MiniCluster(**self.cluster)
        except TypeError as exc:
            raise InputError(f"bad cluster block ({exc})", field="cluster") from None


def load_yarn_matrix(path: Path) -> YarnMatrixSpec:
    """Read and validate a YARN matrix YAML file."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"cannot read matrix: {exc}", path=str(path)) from None
    spec = YarnMatrixSpec.model_validate(data)
    spec.entries()
    spec.mini_cluster()
    return spec


@dataclass(frozen=True)
class PlannedRun:
    """One line of the launcher's ``--jobs`` file."""

    entry: RunSpec
    repeat: int

    @property
    def run_label(self) -> str:
        return f"{self.entry.label}.r{self.repeat}"


def plan(spec: YarnMatrixSpec) -> list[PlannedRun]:
    """Rounds-major order, each round shuffled with ``spec.shuffle_seed`` (reproducible)."""
    rng = random.Random(spec.shuffle_seed)
    entries = spec.entries()
    out: list[PlannedRun] = []
    for rep in range(spec.repeats):
        round_ = [PlannedRun(e, rep) for e in entries]
        rng.shuffle(round_)
        out += round_
    return out


def job_group(label: str) -> str:
    """The calibration group of a label: its job's prefix (``sort-sortmb-5`` → ``sort``)."""
    return label.split("-", 1)[0]


def jobs_file_lines(runs: list[PlannedRun], jobs_jar: Path) -> list[str]:
    """``LABEL TAB CLASS TAB ARGS…`` per run; each run writes its own HDFS output folder."""
    lines = []
    for r in runs:
        args = project_job(
            jobs_jar, r.entry.job, r.entry.settings, f"/in/{r.entry.input}", f"/out/{r.run_label}"
        )
        if any("\t" in a or "\n" in a for a in args):
            raise InputError("a setting holds a tab or newline", field=r.entry.label)
        lines.append("\t".join([r.run_label, DRIVER_CLASS, *args]))
    return lines


def run_yarn_matrix(
    spec: YarnMatrixSpec,
    work: Path,
    index: Path,
    progress: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """Run the whole matrix on one mini-cluster; append one index line per run to ``index``."""
    mc = find_minicluster()
    jobs_jar = compile_jobs(HadoopJars("minicluster", mc.directory, tuple(mc.jars())))
    cluster = spec.mini_cluster()
    runs = plan(spec)
    puts: dict[Path, str] = {}
    for name, inp in spec.inputs.items():
        if any(r.entry.input == name for r in runs):
            folder, _ = ensure_input(inp.kind, inp.mib, inp.seed)
            puts[folder] = f"/in/{name}"
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    jobs_file = work / "jobs.tsv"
    jobs_file.write_text("\n".join(jobs_file_lines(runs, jobs_jar)) + "\n", encoding="utf-8")
    timeout = spec.per_job_timeout_s * len(runs)
    rc, wall, cpu = _launch(mc, cluster, work, jobs_jar, jobs_file, puts, timeout, runs, progress)
    entries = [_index_entry(r, work, cluster, jobs_jar) for r in runs]
    for e in entries:
        if e is not None:
            append_index(index, e)
    launcher = _read_json(work / "launcher.json")
    if rc != 0 and not any(e and e["success"] for e in entries):
        raise InputError(
            f"the mini-cluster launcher failed (exit {rc}): {launcher.get('error', '?')}",
            path=str(work / "launcher.log"),
        )
    summary = {
        "launcher": launcher,
        "wall_s": round(wall, 1),
        "children_cpu_s": round(cpu, 1),
        "runs": len(runs),
        "succeeded": sum(bool(e and e["success"]) for e in entries),
    }
    (work / "matrix.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return [e for e in entries if e is not None]


def _launch(
    mc: MiniClusterJars, cluster, work, jobs_jar, jobs_file, puts, timeout, runs, progress
):
    """Start the launcher in its own session; report each job as its ``job.json`` appears."""
    cmd = launcher_command(mc, cluster, work, jobs_jar, "", [], puts, timeout, jobs_file)
    (work / "command.json").write_text(json.dumps(cmd, indent=1), encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    reported: set[str] = set()
    with open(work / "launcher.log", "wb") as log:
        proc = subprocess.Popen(
            cmd, cwd=work, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            while proc.poll() is None:
                if time.monotonic() - t0 > timeout + 300:
                    os.killpg(proc.pid, signal.SIGKILL)
                    break
                _report_done(work, runs, reported, progress, t0)
                time.sleep(1.0)
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
        rc = proc.wait()
    _report_done(work, runs, reported, progress, t0)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    for pid in leftover_processes(work):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return rc, time.monotonic() - t0, cpu


def _report_done(work: Path, runs, reported: set[str], progress, t0: float) -> None:
    if progress is None:
        return
    for n, r in enumerate(runs, 1):
        if r.run_label in reported:
            continue
        info = _read_json(work / "jobs" / r.run_label / "job.json")
        if not info:
            continue
        reported.add(r.run_label)
        ok = "ok" if info.get("exit_code") == 0 and info.get("histories") else "FAILED"
        progress(
            f"[{n}/{len(runs)}] {r.run_label}: {ok}, client {info.get('client_s', 0):.1f} s "
            f"(elapsed {time.monotonic() - t0:.0f} s, load {info.get('load_avg_1m', 0):.2f})"
        )


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}


def _index_entry(r: PlannedRun, work: Path, cluster: MiniCluster, jobs_jar: Path):
    """The ``hadoop-run --mode yarn`` index line of one run (None if it never started)."""
    folder = work / "jobs" / r.run_label
    info = _read_json(folder / "job.json")
    if not info:
        return None
    hist = [Path(p) for p in info.get("histories", [])]
    jhist = next((p for p in hist if p.name.endswith(".jhist")), None)
    conf = next((p for p in hist if p.name.endswith("_conf.xml")), None)
    rc = int(info.get("exit_code", -1))
    return {
        "label": r.entry.label,
        "job": job_group(r.entry.label),
        "repeat": r.repeat,
        "settings": dict(r.entry.settings),
        "mode": "yarn",
        "jar": str(jobs_jar),
        "main_class": DRIVER_CLASS,
        "run_dir": str(folder),
        "exit_code": rc,
        "success": rc == 0 and jhist is not None and conf is not None,
        "started_at_ms": info.get("started_at_ms"),
        "wall_s": round(float(info.get("client_s", 0.0)), 2),
        "load_avg_1m": info.get("load_avg_1m"),
        "log": str(folder / "client.log"),
        "jhist": str(jhist) if jhist else None,
        "conf_xml": str(conf) if conf else None,
        "cluster": asdict(cluster),
    }
