"""The HTML reports without a browser: self-contained, the exact XML, every section present."""

from __future__ import annotations

import html as htmllib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.optimizer.outputs import parse_site_xml
from mrtune.report import recommendation_xml
from mrtune.report.job import knob_unit


class _Pre(HTMLParser):
    """Text of the element with id ``mapred-site`` (entities decoded, as a browser shows it)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.inside = False
        self.text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if dict(attrs).get("id") == "mapred-site":
            self.inside = True

    def handle_endtag(self, tag: str) -> None:
        if self.inside and tag == "pre":
            self.inside = False

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.text += data


def copy_block(page: str) -> str:
    p = _Pre()
    p.feed(page)
    return p.text


def assert_self_contained(page: str) -> None:
    """Nothing is fetched when the page opens: no src, no external link, no CSS url()."""
    assert not re.search(r"<(script|img|iframe|link)[^>]+\bsrc=", page, re.I)
    for href in re.findall(r"<link[^>]+href=\"([^\"]*)\"", page, re.I):
        assert href.startswith("data:"), href
    assert "@import" not in page and not re.search(r"url\((?!#)", page)  # only url(#local-id)
    # the only absolute URLs are XML namespaces of the inline SVGs (never loaded)
    for url in re.findall(r"https?://[^\"'\s<>]+", page):
        assert url.startswith("http://www.w3.org/"), url


def test_job_report_sections_and_exact_xml(job_report) -> None:  # noqa: ANN001
    page, ctx, _ = job_report
    assert_self_contained(page)
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))  # the inline SVGs' ids are made unique per plot
    for sid in (
        "recommendation",
        "breakdown",
        "diagnosis",
        "sweeps",
        "timeline",
        "profile",
        "mapred-site",
    ):
        assert f'id="{sid}"' in page
    rec = ctx["rec"]
    _, xml = recommendation_xml(rec, ctx["view"].config.hadoop_version)
    assert copy_block(page) == xml == ctx["xml"]
    assert parse_site_xml(xml) == ctx["properties"]
    # what optimize writes (the robust objective, the trust rule): on this job the optimum's
    # changes are low-confidence (47 -> 2 reducers, far outside the history; a gain within
    # the noise), so the file is empty and the page says what was withheld and why
    assert ctx["properties"] or ctx["withheld"]
    if ctx["withheld"]:
        assert 'id="withheld"' in page and "low confidence" in page
    # matplotlib writes each text element's string as a comment beside its paths
    for label in ("map task time (s)", "reduce task time (s)", "time from job start (s)", "phase"):
        assert f"<!-- {label} -->" in page, label
    assert page.count("<svg") == 2 + len(ctx["sweeps"]) and len(ctx["sweeps"]) == 3
    # a confidence label for what is written ("n/a": nothing is, see above)
    assert ctx["confidence"]["label"] in (
        {"high", "medium", "low"} if ctx["properties"] else {"n/a"}
    )
    assert "measured" in page and "defaulted" in page


def test_profile_rows_carry_units(job_report) -> None:  # noqa: ANN001
    _, ctx, _ = job_report
    rows = {r["name"]: r for r in ctx["profile_rows"]}
    assert rows["sort_cache_bytes"]["value"].endswith("iB")  # bytes, not ns/rec
    assert rows["map_cpu"]["value"].endswith("ns/record")
    assert rows["hdfs_read"]["value"].endswith("ns/byte")
    assert rows["task_overhead_ms"]["value"].endswith("ms")
    numeric = [r for r in ctx["profile_rows"] if re.fullmatch(r"[-0-9.,e+]+", r["value"])]
    assert not numeric, numeric  # every number has a unit
    assert knob_unit("mapreduce.task.io.sort.mb") == "MB"


def test_failed_job_report_is_partial(failed_report) -> None:  # noqa: ANN001
    page, ctx, _ = failed_report
    assert_self_contained(page)
    assert ctx["modelled"] is False and 'id="no-profile"' in page
    assert "no successful task attempt" in htmllib.unescape(page)
    assert 'id="mapred-site"' not in page


def test_batch_report_shows_catalog_and_the_written_xml(batch_dir: Path) -> None:
    page = (batch_dir / "report.html").read_text(encoding="utf-8")
    assert_self_contained(page)
    assert copy_block(page) == (batch_dir / "mapred-site.xml").read_text(encoding="utf-8")
    jobs = [json.loads(ln) for ln in (batch_dir / "jobs.jsonl").read_text().splitlines() if ln]
    assert page.count("<tr><td title=") == len(jobs)
    assert 'id="settings-table"' in page and "<!-- predicted gain in job time (%) -->" in page
    # what each gain rests on, and each job's calibration (the shared Sleep history misses its
    # maps' fixed sort/spill time; the QuasiMonteCarlo ones calibrate since the reduce's commit
    # has a term): one cell per job, as jobs.jsonl holds them
    failed = sum((j.get("calibration") or {}).get("status") == "failed" for j in jobs)
    assert failed == 1
    assert page.count('">failed</td>') == failed
    for basis in ("defaulted", "partly measured"):
        assert page.count(f"<td>{basis}</td>") == sum(j.get("basis") == basis for j in jobs)
    # a job that keeps its configuration by a trust rule shows what was withheld, and why
    held = [j for j in jobs if j.get("withheld_changes") and not j.get("changes")]
    assert held  # the calibration misses above, and small SWIM gains within the noise
    assert htmllib.unescape(page).count("withheld: ") == len(held)
    rules = {c["rule"] for j in held for c in j["withheld_changes"]}
    assert all(f"({rule})" in htmllib.unescape(page) for rule in rules)


def test_report_cli_writes_file_and_json(tmp_path: Path, shared_data: Path) -> None:
    out = tmp_path / "r.html"
    src = shared_data / "rumen" / "wordcount-rumen.json"
    result = CliRunner().invoke(
        app,
        [
            "report",
            str(src),
            "-o",
            str(out),
            "--trials",
            "8",
            "--resamples",
            "5",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["job_id"] == "job_201009241532_0001" and out.stat().st_size == data["bytes"]
    bad = CliRunner().invoke(app, ["report", str(shared_data / "jhist"), "-o", str(out)])
    assert bad.exit_code == 2 and "batch" in bad.stderr


@pytest.mark.parametrize("name", ["job.html.j2", "batch.html.j2", "base.html.j2"])
def test_templates_are_package_data(name: str) -> None:
    from importlib.resources import files

    assert (files("mrtune.report") / "templates" / name).is_file()


def test_the_report_copies_the_in_region_step_not_the_far_optimum(tmp_path: Path) -> None:
    """The report's mapred-site.xml is optimize's: on a job whose optimum is a far split
    move (tests/optimizer/test_trust_region.py) it holds the step inside the trust region,
    and the page names the far optimum as the low-confidence option."""
    from mrtune.costmodel import HadoopConfig
    from tests.optimizer.test_trust_region import BASE, MIB, REPROFILE, tiny_splits

    prof = tmp_path / "tiny.json"
    prof.write_text(tiny_splits().model_dump_json())
    out = tmp_path / "r.html"
    r = CliRunner().invoke(
        app, ["report", str(prof), "-o", str(out), "--nodes", "2", "--resamples", "8"]
    )
    assert r.exit_code == 0, r.output
    page = out.read_text(encoding="utf-8")
    written = parse_site_xml(copy_block(page))
    split = HadoopConfig.from_properties({**BASE.to_properties(), **written}).split_size
    assert 4 * MIB < split <= 16 * MIB
    assert REPROFILE in htmllib.unescape(page) and 'id="withheld"' in page
    assert re.search(r'id="confidence-label">(high|medium|low)<', page)
