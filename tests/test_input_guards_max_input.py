"""``MRTUNE_MAX_INPUT_MB`` has the bounds of ``--max-input-mb`` (which sets it): [1, 2^30] MiB.

0.2 had been accepted from the variable, though the flag refuses it, and reported as "more
than the 0 MiB input limit".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.errors import InputError
from mrtune.readers import safe_io

ENV = "MRTUNE_MAX_INPUT_MB"


@pytest.mark.parametrize("raw", ["0.2", "0.999", "0", "-1", "nan", "inf", "x", "1073741825"])
def test_the_variable_is_refused_outside_the_flags_range(
    monkeypatch: pytest.MonkeyPatch, raw: str
) -> None:
    monkeypatch.setenv(ENV, raw)
    with pytest.raises(InputError) as info:
        safe_io.max_input_bytes()
    msg = str(info.value)
    assert msg.startswith(f"{ENV}: ") and f"(got {raw!r})" in msg and "[1, 2^30]" in msg


@pytest.mark.parametrize(("raw", "mib"), [("1", 1.0), ("1.5", 1.5), ("1073741824", 2.0**30)])
def test_the_variable_within_the_range_sets_the_cap(
    monkeypatch: pytest.MonkeyPatch, raw: str, mib: float
) -> None:
    monkeypatch.setenv(ENV, raw)
    assert safe_io.max_input_bytes() == int(mib * safe_io.MIB)


def test_the_cli_refuses_it_in_one_line(tmp_path: Path) -> None:
    f = tmp_path / "small.json"
    f.write_text("{}", encoding="utf-8")
    res = CliRunner().invoke(app, ["profile", str(f)], env={ENV: "0.2"})
    err = res.stderr.strip()
    assert res.exit_code == 2 and "\n" not in err, err
    assert ENV in err and "'0.2'" in err and "0 MiB input limit" not in err


def test_a_fractional_cap_is_shown_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "big.json"
    f.write_bytes(b" " * (2 << 20))
    monkeypatch.setenv(ENV, "1.5")
    with pytest.raises(InputError, match=r"more than the 1\.5 MiB input limit"):
        safe_io.check_size(f)
