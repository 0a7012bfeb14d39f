"""Finding and fetching the Hadoop jars, without the network: a fake pyspark archive."""

from __future__ import annotations

import io
import tarfile
import time
from pathlib import Path

import pytest

from mrtune.errors import InputError
from mrtune.harness.jars import ARTIFACTS, REQUIRED_ARTIFACTS, fetch_jars, find_jars

JAR_NAMES = [
    "hadoop-client-api-3.5.0.jar",
    "hadoop-client-runtime-3.5.0.jar",
    "jcl-over-slf4j-2.0.17.jar",
    "slf4j-api-2.0.17.jar",
    "log4j-slf4j2-impl-2.25.4.jar",
    "log4j-api-2.25.4.jar",
    "log4j-core-2.25.4.jar",
    "log4j-1.2-api-2.25.4.jar",
    "snappy-java-1.1.10.8.jar",
    "lz4-java-1.11.0.jar",
]
UNWANTED = [
    "spark-core_2.13-4.3.0.jar",
    "log4j-layout-template-json-2.25.4.jar",
    "parquet-hadoop-1.17.0.jar",
]


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in ("HADOOP_HOME", "MRTUNE_HADOOP_JARS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MRTUNE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("mrtune.harness.jars._pyspark_jars_dir", lambda: None)


def _fake_sdist(path: Path, names: list[str]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name in [*names, *UNWANTED, "README.md"]:
            data = name.encode()
            info = tarfile.TarInfo(
                f"pyspark-4.3.0/deps/jars/{name}"
                if name.endswith(".jar")
                else f"pyspark-4.3.0/{name}"
            )
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_fetch_extracts_only_the_needed_jars_and_is_idempotent(tmp_path: Path) -> None:
    archive = _fake_sdist(tmp_path / "pyspark-4.3.0.tar.gz", JAR_NAMES)
    jars = fetch_jars(archive=archive)
    assert jars.hadoop_version == "3.5.0"
    assert sorted(p.name for p in jars.directory.iterdir()) == sorted(JAR_NAMES)
    assert [p.name for p in jars.classpath][:3] == JAR_NAMES[:3]  # required jars first
    archive.unlink()  # a second call must not need the archive (nor the network)
    t0 = time.perf_counter()
    again = fetch_jars()
    assert time.perf_counter() - t0 < 1.0
    assert again.classpath == jars.classpath
    assert find_jars().source == "cache"


def test_archive_without_hadoop_is_rejected(tmp_path: Path) -> None:
    archive = _fake_sdist(tmp_path / "pyspark-4.3.0.tar.gz", JAR_NAMES[3:])
    with pytest.raises(InputError, match="lacks required Hadoop jars"):
        fetch_jars(archive=archive)


def test_explicit_folder_and_missing_jars(tmp_path: Path) -> None:
    folder = tmp_path / "jars"
    folder.mkdir()
    for name in JAR_NAMES[:3] + UNWANTED:
        (folder / name).write_bytes(b"x")
    jars = find_jars(folder)
    assert jars.source == "explicit"
    assert {p.name for p in jars.classpath} == set(JAR_NAMES[:3])
    (folder / JAR_NAMES[0]).unlink()
    with pytest.raises(InputError, match="does not hold the Hadoop client jars"):
        find_jars(folder)


def test_nothing_found_says_how_to_fetch() -> None:
    with pytest.raises(InputError, match="python -m mrtune.harness.jars fetch"):
        find_jars()


def test_hadoop_home_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "hadoop-3.3.6"
    for sub, name in [
        ("common", "hadoop-common-3.3.6.jar"),
        ("common/lib", "guava-27.0-jre.jar"),
        ("mapreduce", "hadoop-mapreduce-client-common-3.3.6.jar"),
        ("mapreduce", "hadoop-mapreduce-client-core-3.3.6.jar"),
    ]:
        d = home / "share" / "hadoop" / sub
        d.mkdir(parents=True, exist_ok=True)
        (d / name).write_bytes(b"x")
    monkeypatch.setenv("HADOOP_HOME", str(home))
    jars = find_jars()
    assert jars.source == "HADOOP_HOME" and jars.hadoop_version == "3.3.6"
    assert len(jars.classpath) == 4


def test_artifact_lists_are_consistent() -> None:
    assert set(REQUIRED_ARTIFACTS) <= set(ARTIFACTS)
    assert len(ARTIFACTS) == len(JAR_NAMES)
