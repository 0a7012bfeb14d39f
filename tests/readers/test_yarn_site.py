"""``mrtune.readers.yarn_site``: node capacity and allocations from a yarn-site.xml."""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.errors import InputError
from mrtune.readers.yarn_site import load_yarn_site, yarn_site_from_properties

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


def _site(tmp_path: Path, **props: str) -> Path:
    body = "".join(
        f"<property><name>{k}</name><value>{v}</value></property>" for k, v in props.items()
    )
    p = tmp_path / "yarn-site.xml"
    p.write_text(f"<?xml version='1.0'?><configuration>{body}</configuration>")
    return p


def test_reads_node_capacity_and_allocations(tmp_path: Path) -> None:
    p = _site(
        tmp_path,
        **{
            "yarn.nodemanager.resource.memory-mb": "65536",
            "yarn.nodemanager.resource.cpu-vcores": "16",
            "yarn.scheduler.minimum-allocation-mb": "512",
            "yarn.scheduler.maximum-allocation-mb": "16384",
        },
    )
    site = load_yarn_site(p)
    assert site.values == {
        "node_memory_mb": 65536,
        "node_vcores": 16,
        "min_allocation_mb": 512,
        "max_allocation_mb": 16384,
    }
    assert site.how("node_vcores") == "yarn.nodemanager.resource.cpu-vcores = 16 in yarn-site.xml"


def test_job_conf_cluster_section_is_read_too() -> None:
    site = load_yarn_site(DATA / "jhist" / "job_1329348432655_0001_conf.xml")
    assert site.get("node_memory_mb") == 8192
    assert site.get("min_allocation_mb") == 128
    assert site.get("am_memory_mb") == 512


def test_minus_one_means_detect_from_hardware() -> None:
    site = yarn_site_from_properties({"yarn.nodemanager.resource.memory-mb": "-1"}, "x")
    assert site.get("node_memory_mb") is None and not site.problems


@pytest.mark.parametrize(
    "props,needle",
    [
        ({"yarn.nodemanager.resource.memory-mb": "lots"}, "'lots' is not an integer"),
        ({"yarn.nodemanager.resource.cpu-vcores": "0"}, "= 0 is not allowed"),
        (
            {
                "yarn.scheduler.minimum-allocation-mb": "4096",
                "yarn.scheduler.maximum-allocation-mb": "1024",
            },
            "exceeds yarn.scheduler.maximum-allocation-mb",
        ),
        ({"mapreduce.job.reduces": "3"}, "states no node capacity"),
    ],
)
def test_bad_file_is_one_line_naming_it(tmp_path: Path, props: dict, needle: str) -> None:
    p = _site(tmp_path, **props)
    with pytest.raises(InputError) as err:
        load_yarn_site(p)
    assert needle in str(err.value) and "yarn-site.xml" in str(err.value)
    assert "\n" not in str(err.value)
