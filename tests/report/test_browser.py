"""The reports in a real browser (headless Chromium): they render without console errors, their
tables sort on click, the copy block holds exactly the emitted XML; a screenshot of each page
is saved in the test's temporary folder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.report.browser import chromium, console_errors, full_screenshot

pytestmark = pytest.mark.browser


def _column(driver, table_id: str, col: int) -> list[str]:  # noqa: ANN001
    return driver.execute_script(
        "return Array.from(document.getElementById(arguments[0]).tBodies[0].rows)"
        ".map(r => r.cells[arguments[1]].getAttribute('data-sort') ?? r.cells[arguments[1]].textContent.trim());",
        table_id,
        col,
    )


def _click_header(driver, table_id: str, col: int) -> str:  # noqa: ANN001
    th = driver.execute_script(
        "return document.getElementById(arguments[0]).tHead.rows[0].cells[arguments[1]];",
        table_id,
        col,
    )
    th.click()
    return th.get_attribute("aria-sort")


def _check_sorts(driver, table_id: str, col: int) -> None:  # noqa: ANN001
    before = _column(driver, table_id, col)
    assert _click_header(driver, table_id, col) == "ascending"
    asc = [float(v) for v in _column(driver, table_id, col)]
    assert asc == sorted(float(v) for v in before)
    assert _click_header(driver, table_id, col) == "descending"
    desc = [float(v) for v in _column(driver, table_id, col)]
    assert desc == sorted(asc, reverse=True)


def test_job_report_in_chromium(job_report, tmp_path: Path) -> None:  # noqa: ANN001
    _, ctx, page = job_report
    with chromium(tmp_path / "chromium-profile") as driver:
        driver.get(page.as_uri())
        assert driver.title.startswith("mrtune report")
        assert console_errors(driver) == []
        assert (
            driver.execute_script("return document.getElementById('mapred-site').textContent;")
            == ctx["xml"]
        )
        # the findings table sorts by severity (data-sort = level), then by price
        _check_sorts(driver, "findings", 0)
        _check_sorts(driver, "findings", 3)
        # the breakdown and the recommendation are on the page, drawn; on this job what
        # optimize writes is nothing (47 -> 2 reducers is far outside the history, the merge
        # buffer's gain within the noise): the page says so and names what it withheld
        for sid in ("breakdown", "recommendation", "no-change", "withheld"):
            assert driver.find_element("id", sid).is_displayed()
        assert ctx["changes"] == [] and ctx["withheld"]
        withheld = driver.find_element("id", "withheld").text
        for c in ctx["withheld"]:
            assert f"{c.name} → {c.recommended}" in withheld
        width = driver.execute_script(
            "return document.querySelector('#breakdown + .plot svg').getBoundingClientRect().width;"
        )
        assert width > 400
        assert console_errors(driver) == []
        shot = full_screenshot(driver, tmp_path / "job-report.png")
        driver.set_window_size(1280, 1500)
        driver.execute_script("window.scrollTo(0, 0);")
        driver.save_screenshot(str(tmp_path / "job-report-top.png"))
    assert shot.stat().st_size > 50_000
    if os.environ.get("MRTUNE_KEEP_SCREENSHOTS"):  # a folder to look at them after the run
        keep = Path(os.environ["MRTUNE_KEEP_SCREENSHOTS"])
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp_path / "job-report-top.png", keep / "job-report-top.png")
        shutil.copy(shot, keep / "job-report.png")


def test_low_confidence_report_in_chromium(job_report_low, tmp_path: Path) -> None:  # noqa: ANN001
    """``--include-low-confidence``: the withheld changes are written, listed in a table
    that sorts by gain, and the copy block holds exactly their XML."""
    _, ctx, page = job_report_low
    assert ctx["changes"] and not ctx["withheld"]
    with chromium(tmp_path / "chromium-profile") as driver:
        driver.get(page.as_uri())
        assert console_errors(driver) == []
        assert driver.find_element("id", "changes").is_displayed()
        names = [c.name for c in ctx["changes"]]
        assert sorted(_column(driver, "changes", 0)) == sorted(names)
        _check_sorts(driver, "changes", 3)
        xml = driver.execute_script("return document.getElementById('mapred-site').textContent;")
        assert xml == ctx["xml"]
        for c in ctx["changes"]:
            assert c.name in xml
        assert console_errors(driver) == []


def test_failed_job_report_in_chromium(failed_report, tmp_path: Path) -> None:  # noqa: ANN001
    _, _, page = failed_report
    with chromium(tmp_path / "chromium-profile") as driver:
        driver.get(page.as_uri())
        assert console_errors(driver) == []
        assert "Partial diagnosis" in driver.find_element("id", "no-profile").text
        full_screenshot(driver, tmp_path / "failed-report.png")


def test_batch_report_in_chromium(batch_dir: Path, tmp_path: Path) -> None:
    page = batch_dir / "report.html"
    xml = (batch_dir / "mapred-site.xml").read_text(encoding="utf-8")
    with chromium(tmp_path / "chromium-profile") as driver:
        driver.get(page.as_uri())
        assert console_errors(driver) == []
        assert (
            driver.execute_script("return document.getElementById('mapred-site').textContent;")
            == xml
        )
        _check_sorts(driver, "jobs-table", 5)  # gain
        _check_sorts(driver, "jobs-table", 2)  # input bytes
        names = _column(driver, "jobs-table", 0)
        _click_header(driver, "jobs-table", 0)
        assert _column(driver, "jobs-table", 0) == sorted(names, key=str.lower)
        assert console_errors(driver) == []
        shot = full_screenshot(driver, tmp_path / "batch-report.png")
    assert shot.stat().st_size > 20_000
