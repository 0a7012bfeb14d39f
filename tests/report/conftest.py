"""Reports built once per session: a real multi-wave job, a failed job, and a batch catalog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mrtune.diagnose import diagnose_view, load_jobs
from mrtune.report import environment, job_context


def _job_report(
    path: Path, out: Path, job: int = 0, **options: Any
) -> tuple[str, dict[str, Any], Path]:
    view = load_jobs(path)[job]
    diag = diagnose_view(view, resamples=20)
    ctx = job_context(diag, trials=16, resamples=20, **options)
    html = environment().get_template("job.html.j2").render(**ctx)
    out.write_text(html, encoding="utf-8")
    return html, ctx, out


@pytest.fixture(scope="session")
def job_report(shared_data: Path, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    """The 131-map × 28-reduce job of the zombie Rumen trace: HTML, context, file."""
    out = tmp_path_factory.mktemp("report") / "job.html"
    return _job_report(shared_data / "rumen" / "zombie-input-trace.json", out, job=3)


@pytest.fixture(scope="session")
def job_report_low(shared_data: Path, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    """The same job with ``--include-low-confidence``: its withheld changes are written."""
    out = tmp_path_factory.mktemp("report") / "job-low.html"
    trace = shared_data / "rumen" / "zombie-input-trace.json"
    return _job_report(trace, out, job=3, include_low_confidence=True)


@pytest.fixture(scope="session")
def failed_report(shared_data: Path, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    out = tmp_path_factory.mktemp("report") / "failed.html"
    return _job_report(shared_data / "jhist" / "job_2.4.0-FAILED.jhist", out)


@pytest.fixture(scope="session")
def batch_dir(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``mrtune batch --report`` over the shared .jhist files and 40 SWIM jobs."""
    from mrtune.cli import app

    base = tmp_path_factory.mktemp("batch")
    swim = base / "swim40.tsv"
    lines = (shared_data / "swim" / "FB-2009_samples_24_times_1hr_0.tsv").read_text().splitlines()
    swim.write_text("\n".join(lines[:40]) + "\n")
    out = base / "out"
    result = CliRunner().invoke(
        app,
        ["batch", str(shared_data / "jhist"), str(swim), "-o", str(out), "--workers", "1",
         "--no-plots", "--report"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out
