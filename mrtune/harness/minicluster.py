"""Fetch Hadoop's mini-cluster jars with Maven and compile the YARN launcher (issue 21).

Why: local mode has no containers, HTTP shuffle, HDFS blocks or waves; Hadoop's own
MiniDFSCluster + MiniMRYarnCluster (as in its TestMRJobs) have all of them and write real
``.jhist``/``_conf.xml`` files through the JobHistory server. The jars come from Maven Central
through ``mrtune/harness/maven/pom.xml`` (``mvn dependency:copy-dependencies``) into
``<cache>/minicluster/<version>/lib`` (cache root: :func:`mrtune.harness.jars.default_cache_dir`).

The artifact is the unshaded ``org.apache.hadoop:hadoop-minicluster`` 3.5.0 (the version of the
local harness's client jars): the shaded ``hadoop-client-minicluster`` 3.5.0 resolves but lacks
the MapReduce application master (MRAppMaster, YarnChild, ShuffleHandler), so its
MiniMRYarnCluster cannot start (see the pom).

Command line::

    python -m mrtune.harness.minicluster fetch [--cache-dir DIR] [--quiet]   # idempotent
    python -m mrtune.harness.minicluster find                                # print the lib dir
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mrtune.errors import InputError
from mrtune.harness.compile import javac_jar
from mrtune.harness.jars import default_cache_dir

HADOOP_VERSION = "3.5.0"
POM = Path(__file__).resolve().parent / "maven" / "pom.xml"
JAVA_DIR = Path(__file__).resolve().parent / "java"
#: The launcher's sources (a package of their own: compiled against the mini-cluster jars, not
#: the client jars the jobs compile against).
LAUNCHER_DIR = JAVA_DIR / "mrtune" / "yarn"
LAUNCHER_CLASS = "mrtune.yarn.MiniClusterLauncher"
LOG4J_PROPERTIES = JAVA_DIR / "log4j-minicluster.properties"
#: Jars that must be present for the launcher to start (a partial download is refetched).
_REQUIRED = (
    f"hadoop-minicluster-{HADOOP_VERSION}.jar",
    f"hadoop-mapreduce-client-app-{HADOOP_VERSION}.jar",
    f"hadoop-mapreduce-client-jobclient-{HADOOP_VERSION}-tests.jar",
    f"hadoop-yarn-server-tests-{HADOOP_VERSION}-tests.jar",
    f"hadoop-hdfs-{HADOOP_VERSION}-tests.jar",
    # Lz4Codec's Java implementation (hadoop-common declares it provided): without it a job
    # compressing map output with Lz4Codec fails in its tasks (ClassNotFoundException).
    "lz4-java-1.8.0.jar",
)
_COMPLETE = ".complete"


@dataclass(frozen=True)
class MiniClusterJars:
    """The mini-cluster's jar folder (one flat folder: ``lib/*`` is the classpath)."""

    directory: Path
    hadoop_version: str = HADOOP_VERSION

    def classpath_string(self) -> str:
        """A ``-cp`` wildcard entry (the JVM expands ``dir/*`` to every jar in it)."""
        return str(self.directory / "*")

    def jars(self) -> list[Path]:
        return sorted(self.directory.glob("*.jar"))


def default_minicluster_dir(cache_dir: Path | None = None) -> Path:
    return (cache_dir or default_cache_dir()) / "minicluster" / HADOOP_VERSION / "lib"


def _complete(lib: Path) -> bool:
    return (lib / _COMPLETE).is_file() and all((lib / n).is_file() for n in _REQUIRED)


def find_minicluster(cache_dir: Path | None = None) -> MiniClusterJars:
    """The cached mini-cluster jars, or one line saying how to fetch them."""
    env = os.environ.get("MRTUNE_MINICLUSTER_JARS")
    lib = Path(env).expanduser() if env else default_minicluster_dir(cache_dir)
    if env and all((lib / n).is_file() for n in _REQUIRED):
        return MiniClusterJars(lib)
    if not _complete(lib):
        raise InputError(
            "Hadoop mini-cluster jars not found; run `python -m mrtune.harness.minicluster "
            "fetch` (needs mvn and Maven Central)",
            path=str(lib),
        )
    return MiniClusterJars(lib)


def fetch_minicluster(cache_dir: Path | None = None, quiet: bool = False) -> MiniClusterJars:
    """Resolve the pom's dependencies into the cache with ``mvn``; instant when done before.

    Copies into a temporary sibling folder and renames it, so an interrupted fetch never
    leaves a half-filled ``lib`` that looks complete.
    """
    lib = default_minicluster_dir(cache_dir)
    if _complete(lib):
        return MiniClusterJars(lib)
    mvn = shutil.which("mvn")
    if mvn is None:
        raise InputError("mvn not found on PATH; install Maven (apt-get install maven)")
    lib.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lib-", dir=lib.parent) as tmp:
        staging = Path(tmp) / "lib"
        cmd = [mvn, "-B", "-f", str(POM), "dependency:copy-dependencies"]
        cmd += [f"-DoutputDirectory={staging}", "-Dmdep.useRepositoryLayout=false"]
        if quiet:
            cmd.insert(1, "-q")
        proc = subprocess.run(cmd, capture_output=quiet, text=True)
        if proc.returncode != 0:
            tail = ((proc.stdout or "") + (proc.stderr or "")).strip().splitlines()[-5:]
            raise InputError(f"mvn failed (exit {proc.returncode}): " + " | ".join(tail))
        missing = [n for n in _REQUIRED if not (staging / n).is_file()]
        if missing:
            raise InputError("mvn resolved the pom but jars are missing", value=missing)
        (staging / _COMPLETE).write_text(HADOOP_VERSION + "\n", encoding="utf-8")
        if lib.exists():
            shutil.rmtree(lib)
        staging.rename(lib)
    return MiniClusterJars(lib)


def launcher_sources() -> list[Path]:
    return sorted(LAUNCHER_DIR.glob("*.java"))


def compile_launcher(jars: MiniClusterJars, cache_dir: Path | None = None) -> Path:
    """The launcher jar, compiled against the mini-cluster jars once per source hash."""
    h = hashlib.sha256(jars.hadoop_version.encode())
    for src in launcher_sources():
        h.update(src.name.encode() + b"\0" + src.read_bytes())
    cache = (cache_dir or default_cache_dir()) / "minicluster" / "launcher" / h.hexdigest()[:16]
    target = cache / "mrtune-yarn.jar"
    if target.is_file():
        return target
    return javac_jar(list(launcher_sources()), jars.classpath_string(), target)


def main(argv: list[str] | None = None) -> int:
    """``python -m mrtune.harness.minicluster {fetch,find}``."""
    parser = argparse.ArgumentParser(
        prog="python -m mrtune.harness.minicluster", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_fetch = sub.add_parser("fetch", help="resolve the mini-cluster jars with mvn (idempotent)")
    p_fetch.add_argument("--cache-dir", type=Path, default=None)
    p_fetch.add_argument("--quiet", action="store_true")
    sub.add_parser("find", help="print the mini-cluster jar folder")
    args = parser.parse_args(argv)
    try:
        if args.cmd == "fetch":
            jars = fetch_minicluster(args.cache_dir, quiet=args.quiet)
            compile_launcher(jars, args.cache_dir)
        else:
            jars = find_minicluster()
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"Hadoop {jars.hadoop_version} mini-cluster jars: {jars.directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
