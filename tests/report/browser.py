"""Headless Chromium for the report tests: Debian's ``chromium`` and ``chromium-driver`` driven
by Selenium (its ``Service`` points at the system chromedriver, so nothing is downloaded)."""

from __future__ import annotations

import base64
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,900",
)


@contextmanager
def chromium(profile_dir: Path) -> Iterator[object]:
    """A Selenium driver of the system's headless Chromium, console logs enabled."""
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        why = (
            "headless Chromium is needed: apt-get install -y chromium chromium-driver "
            "(.ci/run installs them)"
        )
        # CI installs the browser and sets MRTUNE_REQUIRE_BROWSER, so there a missing browser
        # fails; on a developer's fresh machine the README's `pytest` still passes, saying why
        # these tests did not run.
        if os.environ.get("MRTUNE_REQUIRE_BROWSER"):
            pytest.fail(why)
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={profile_dir}"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: object) -> list[str]:
    """Console messages of level SEVERE (errors, uncaught exceptions, failed loads)."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]  # type: ignore[attr-defined]


def full_screenshot(driver: object, path: Path) -> Path:
    """A PNG of the whole page (DevTools ``Page.captureScreenshot`` beyond the viewport)."""
    shot = driver.execute_cdp_cmd(  # type: ignore[attr-defined]
        "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}
    )
    path.write_bytes(base64.b64decode(shot["data"]))
    return path
