"""Hadoop 2 runs a task without -Xmx at mapred.child.java.opts' default -Xmx200m, whatever its
container; Hadoop 3 derives the heap from the container (MAPREDUCE-5785). A YARN history is
"2 or later" to the readers: its configuration says which (found by an audit: io.sort.mb 410
was written for Hadoop 2 jobs whose maps had 200 MB heaps)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.costmodel import HadoopConfig
from mrtune.profiling.baseline import HADOOP3_ONLY_KEY, profiled_config

MB = 2**20


def test_hadoop2_heap_is_200_mb_whatever_the_container() -> None:
    cfg = HadoopConfig(hadoop_version=2, map_memory_mb=4096)
    assert cfg.map_heap_bytes == 200 * MB and cfg.map_container_mb == 4096
    assert HadoopConfig(hadoop_version=3, map_memory_mb=4096).map_heap_bytes == 3277 * MB
    with pytest.raises(ValueError, match="Hadoop 2's default -Xmx200m"):
        HadoopConfig(hadoop_version=2, io_sort_mb=300)


def test_a_hadoop3_configuration_is_read_as_hadoop3() -> None:
    props = {HADOOP3_ONLY_KEY: "0.8", "mapreduce.map.memory.mb": "2048"}
    assert profiled_config(props, 2).hadoop_version == 3
    assert profiled_config(props, 2).map_heap_bytes == 1639 * MB
    assert profiled_config({"mapreduce.map.memory.mb": "2048"}, 2).map_heap_bytes == 200 * MB


def test_a_hadoop2_history_is_never_given_a_sort_buffer_beyond_its_heap(
    shared_data: Path, tmp_path: Path
) -> None:
    jhist = next((shared_data / "jhist").glob("job_1526555215992_0001-*.jhist"))
    out = tmp_path / "q.xml"
    res = CliRunner().invoke(
        app,
        ["optimize", str(jhist), "--input-size", "100GB", "--include-low-confidence",
         "--trials", "40", "--samples", "8", "-o", str(out)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    site = out.read_text()
    m = re.search(r"<name>mapreduce\.task\.io\.sort\.mb</name>\s*<value>(\d+)</value>", site)
    assert m is None or int(m.group(1)) < 200
