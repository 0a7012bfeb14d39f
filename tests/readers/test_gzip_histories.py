"""Gzipped histories and configurations (how a round of YARN runs is archived) read the same
as the files they hold, and a gzip bomb stops at the input cap while streaming.

The gzipped copies are made here, in ``tmp_path``, from the real files in
``../shared/data/jhist``; nothing from there is committed.
"""

from __future__ import annotations

import dataclasses
import gzip
from pathlib import Path

import pytest

from mrtune.errors import InputError
from mrtune.readers import find_conf_for, load_conf, load_history, sniff_format
from tests.readers.test_jhist_binary import QMC1, to_binary

CONF = QMC1.with_name("job_1526555215992_0001_conf.xml")


def _gz(src: Path, dest_dir: Path) -> Path:
    dest = dest_dir / f"{src.name}.gz"
    dest.write_bytes(gzip.compress(src.read_bytes()))
    return dest


def _same(a, b) -> None:
    da, db = dataclasses.asdict(a), dataclasses.asdict(b)
    da.pop("source"), db.pop("source")
    assert da == db


def test_a_gzipped_json_history_reads_as_the_plain_one(tmp_path: Path) -> None:
    gz = _gz(QMC1, tmp_path)
    assert sniff_format(gz) == "jhist"
    _same(load_history(gz), load_history(QMC1))


def test_a_gzipped_binary_history_reads_as_the_plain_one(tmp_path: Path) -> None:
    binary = to_binary(QMC1, tmp_path)
    gz = _gz(binary, tmp_path)
    _same(load_history(gz), load_history(QMC1))


def test_a_gzipped_conf_reads_as_the_plain_one_and_is_found_beside_its_history(
    tmp_path: Path,
) -> None:
    gz_conf = _gz(CONF, tmp_path)
    assert load_conf(gz_conf).properties == load_conf(CONF).properties
    gz_hist = _gz(QMC1, tmp_path)
    assert find_conf_for(gz_hist, "job_1526555215992_0001") == gz_conf
    assert find_conf_for(gz_hist, None) == gz_conf


def test_a_gzip_bomb_stops_at_the_cap_while_streaming(tmp_path: Path, monkeypatch) -> None:
    """A small .gz that expands past the cap: one line naming the cap, never the whole
    expansion in memory."""
    head = b"\n".join(QMC1.read_bytes().split(b"\n")[:2]) + b"\n"
    bomb = tmp_path / "bomb.jhist.gz"
    bomb.write_bytes(gzip.compress(head + b" " * (3 << 20) + b"\n"))
    assert bomb.stat().st_size < 100_000
    monkeypatch.setenv("MRTUNE_MAX_INPUT_MB", "1")
    with pytest.raises(InputError, match="decompressed, the file is over"):
        load_history(bomb)


def test_damaged_gzip_is_one_error(tmp_path: Path) -> None:
    data = gzip.compress(QMC1.read_bytes())
    cut = tmp_path / "cut.jhist.gz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="gzip"):
        load_history(cut)
