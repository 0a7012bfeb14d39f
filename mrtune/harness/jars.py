"""Find the Apache Hadoop client jars that run MapReduce in local mode, or fetch them.

Why this exists: real Hadoop is the model's referee (issue 5), and on these machines the only
reachable Hadoop is the client jars inside PyPI's ``pyspark`` source archive
(``pyspark-4.3.0/deps/jars/`` → Hadoop 3.5.0; see ``shared/spec/real-hadoop.md``). Installing
all of pyspark is not needed: :func:`fetch_jars` downloads the archive with ``pip download
--no-deps`` and extracts only the dozen jars local MapReduce needs into a cache directory.

Where jars are looked for, first hit wins (:func:`find_jars`):

1. an explicit directory (``--jars DIR``),
2. ``$MRTUNE_HADOOP_JARS`` (a directory of jars),
3. ``$HADOOP_HOME`` (a Hadoop distribution: every jar under ``share/hadoop/``),
4. an installed ``pyspark`` package's ``jars/`` folder,
5. the cache directory filled by ``python -m mrtune.harness.jars fetch``
   (``$MRTUNE_CACHE_DIR/hadoop-jars``, default ``~/.cache/mrtune/hadoop-jars``).

Command line::

    python -m mrtune.harness.jars fetch [--version 4.3.0] [--cache-dir DIR]   # idempotent
    python -m mrtune.harness.jars find [--jars DIR]                           # print the classpath
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from mrtune.errors import InputError

#: pyspark release whose ``deps/jars`` hold Hadoop 3.5.0 (real-hadoop.md, "Where Hadoop comes from").
DEFAULT_PYSPARK_VERSION = "4.3.0"

#: Without these three, local MapReduce does not start (``NoClassDefFoundError:
#: org/apache/commons/logging/Log`` without jcl-over-slf4j).
REQUIRED_ARTIFACTS: tuple[str, ...] = (
    "hadoop-client-api",
    "hadoop-client-runtime",
    "jcl-over-slf4j",
)
#: The log lines the harness parses go through slf4j → log4j2; Hadoop 3 still calls the
#: log4j 1 API in a few places, which ``log4j-1.2-api`` bridges.
LOGGING_ARTIFACTS: tuple[str, ...] = (
    "slf4j-api",
    "log4j-slf4j2-impl",
    "log4j-api",
    "log4j-core",
    "log4j-1.2-api",
)
#: Snappy and LZ4 map-output codecs work through these pure-Java/JNI-bundled jars (no libhadoop).
CODEC_ARTIFACTS: tuple[str, ...] = ("snappy-java", "lz4-java")

ARTIFACTS: tuple[str, ...] = REQUIRED_ARTIFACTS + LOGGING_ARTIFACTS + CODEC_ARTIFACTS

_HADOOP_VERSION_RE = re.compile(r"hadoop-client-api-(\d[\w.\-]*)\.jar$")


def default_cache_dir() -> Path:
    """Root of mrtune's caches: ``$MRTUNE_CACHE_DIR``, else ``$XDG_CACHE_HOME/mrtune``, else
    ``~/.cache/mrtune``."""
    env = os.environ.get("MRTUNE_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "mrtune"


def default_jar_cache() -> Path:
    """Where :func:`fetch_jars` puts the jars: ``<cache>/hadoop-jars``."""
    return default_cache_dir() / "hadoop-jars"


@dataclass(frozen=True)
class HadoopJars:
    """A usable Hadoop classpath and where it came from."""

    source: str
    """One of ``explicit``, ``MRTUNE_HADOOP_JARS``, ``HADOOP_HOME``, ``pyspark``, ``cache``."""
    directory: Path
    classpath: tuple[Path, ...] = field(default_factory=tuple)
    hadoop_version: str | None = None

    def classpath_string(self) -> str:
        """The ``-cp`` argument for ``javac`` and ``java``."""
        return os.pathsep.join(str(p) for p in self.classpath)


def _artifact_of(jar_name: str) -> str | None:
    """The artifact id a jar file belongs to (``log4j-api-2.25.4.jar`` → ``log4j-api``)."""
    for artifact in sorted(ARTIFACTS, key=len, reverse=True):
        if re.fullmatch(re.escape(artifact) + r"-\d[\w.\-]*\.jar", jar_name):
            return artifact
    return None


def _select_from_flat_dir(directory: Path) -> tuple[Path, ...] | None:
    """Pick one jar per artifact from a flat folder of jars (pyspark's ``jars/`` or the cache).

    Returns None when a required artifact is missing. Only the listed artifacts are used, so
    pyspark's other 300 jars (some with clashing versions of common libraries) stay off the
    classpath.
    """
    if not directory.is_dir():
        return None
    chosen: dict[str, Path] = {}
    for jar in sorted(directory.glob("*.jar")):
        artifact = _artifact_of(jar.name)
        if artifact is not None:
            chosen.setdefault(artifact, jar)
    if not all(a in chosen for a in REQUIRED_ARTIFACTS):
        return None
    return tuple(chosen[a] for a in ARTIFACTS if a in chosen)


def _hadoop_version(classpath: tuple[Path, ...]) -> str | None:
    for jar in classpath:
        m = _HADOOP_VERSION_RE.search(jar.name)
        if m:
            return m.group(1)
        m = re.search(r"hadoop-common-(\d[\w.\-]*)\.jar$", jar.name)
        if m:
            return m.group(1)
    return None


def _from_hadoop_home(home: Path) -> tuple[Path, ...] | None:
    """Every jar of a Hadoop distribution's ``share/hadoop`` (the unshaded layout)."""
    share = home / "share" / "hadoop"
    if not share.is_dir():
        return None
    jars = tuple(sorted(p for p in share.rglob("*.jar") if "sources" not in p.name))
    names = " ".join(p.name for p in jars)
    if "hadoop-mapreduce-client-common" not in names and "hadoop-client-api" not in names:
        return None
    return jars


def _pyspark_jars_dir() -> Path | None:
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "jars"


def _make(source: str, directory: Path, classpath: tuple[Path, ...]) -> HadoopJars:
    return HadoopJars(source, directory, classpath, _hadoop_version(classpath))


def find_jars(jars_dir: str | Path | None = None, cache_dir: Path | None = None) -> HadoopJars:
    """Locate a Hadoop classpath (search order in the module docstring).

    Raises:
        InputError: ``jars_dir`` was given but does not hold the required jars, or nothing
            was found anywhere (the message says how to fetch them).
    """
    if jars_dir is not None:
        d = Path(jars_dir).expanduser()
        cp = _select_from_flat_dir(d) or _from_hadoop_home(d)
        if cp is None:
            raise InputError(
                "folder does not hold the Hadoop client jars",
                path=str(d),
                allowed="a folder with "
                + ", ".join(REQUIRED_ARTIFACTS)
                + " jars, or a HADOOP_HOME",
            )
        return _make("explicit", d, cp)
    env_dir = os.environ.get("MRTUNE_HADOOP_JARS")
    if env_dir:
        cp = _select_from_flat_dir(Path(env_dir))
        if cp:
            return _make("MRTUNE_HADOOP_JARS", Path(env_dir), cp)
    home = os.environ.get("HADOOP_HOME")
    if home:
        cp = _from_hadoop_home(Path(home))
        if cp:
            return _make("HADOOP_HOME", Path(home), cp)
    pyspark_dir = _pyspark_jars_dir()
    if pyspark_dir is not None:
        cp = _select_from_flat_dir(pyspark_dir)
        if cp:
            return _make("pyspark", pyspark_dir, cp)
    cache = cache_dir or default_jar_cache()
    found = _cached(cache)
    if found is not None:
        return found
    raise InputError(
        "no Hadoop jars found (looked at --jars, $MRTUNE_HADOOP_JARS, $HADOOP_HOME, "
        f"pyspark, {cache}); run `python -m mrtune.harness.jars fetch`"
    )


def _cached(cache: Path) -> HadoopJars | None:
    """The newest complete fetch under ``cache`` (one sub-folder per pyspark version)."""
    if not cache.is_dir():
        return None
    for sub in sorted(cache.iterdir(), reverse=True):
        cp = _select_from_flat_dir(sub)
        if cp:
            return _make("cache", sub, cp)
    return None


def _extract_wanted(archive: Path, dest: Path) -> list[str]:
    """Copy the wanted jars out of a pyspark sdist (``*/deps/jars/``) or wheel
    (``pyspark/jars/``) into ``dest``; stream the tar so the 456 MB archive is read once."""
    extracted: list[str] = []
    if archive.name.endswith((".tar.gz", ".tgz")):
        with tarfile.open(archive, mode="r|gz") as tar:
            for member in tar:
                name = member.name.rsplit("/", 1)[-1]
                if (
                    member.isfile()
                    and "/deps/jars/" in member.name
                    and _artifact_of(name) is not None
                ):
                    src = tar.extractfile(member)
                    assert src is not None
                    with src, open(dest / name, "wb") as out:
                        shutil.copyfileobj(src, out, 1 << 20)
                    extracted.append(name)
    else:
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                name = info.filename.rsplit("/", 1)[-1]
                if "/jars/" in info.filename and _artifact_of(name) is not None:
                    with zf.open(info) as src, open(dest / name, "wb") as out:
                        shutil.copyfileobj(src, out, 1 << 20)
                    extracted.append(name)
    return extracted


def fetch_jars(
    version: str = DEFAULT_PYSPARK_VERSION,
    cache_dir: Path | None = None,
    archive: Path | None = None,
    quiet: bool = False,
) -> HadoopJars:
    """Make the Hadoop jars available in the cache; instant when they already are.

    Downloads ``pyspark==version`` with ``pip download --no-deps`` into a temporary folder
    (unless ``archive`` points at an already downloaded sdist/wheel), extracts only the
    jars in :data:`ARTIFACTS` into ``<cache>/pyspark-<version>/`` (atomically, through a
    temporary sibling folder), and deletes the download.
    """
    cache = cache_dir or default_jar_cache()
    target = cache / f"pyspark-{version}"
    cp = _select_from_flat_dir(target)
    if cp is not None:
        return _make("cache", target, cp)
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mrtune-pyspark-", dir=cache) as tmp:
        tmp_path = Path(tmp)
        if archive is None:
            cmd = [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                f"pyspark=={version}",
                "-d",
                str(tmp_path / "dl"),
            ]
            if quiet:
                cmd.insert(4, "--quiet")
            proc = subprocess.run(cmd, capture_output=quiet, text=True)
            if proc.returncode != 0:
                raise InputError(
                    f"pip download of pyspark=={version} failed (exit {proc.returncode}): "
                    + ((proc.stderr or "").strip().splitlines() or [""])[-1]
                )
            downloads = sorted((tmp_path / "dl").glob("pyspark-*"))
            if not downloads:
                raise InputError(f"pip download produced no pyspark archive for {version}")
            archive = downloads[0]
        staging = tmp_path / "jars"
        staging.mkdir()
        names = _extract_wanted(Path(archive), staging)
        missing = [a for a in REQUIRED_ARTIFACTS if not any(_artifact_of(n) == a for n in names)]
        if missing:
            raise InputError(
                "archive lacks required Hadoop jars", path=str(archive), value=missing
            )
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    cp = _select_from_flat_dir(target)
    assert cp is not None
    return _make("cache", target, cp)


def main(argv: list[str] | None = None) -> int:
    """``python -m mrtune.harness.jars {fetch,find}``."""
    parser = argparse.ArgumentParser(
        prog="python -m mrtune.harness.jars", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_fetch = sub.add_parser(
        "fetch", help="download pyspark's Hadoop jars into the cache (idempotent)"
    )
    p_fetch.add_argument("--version", default=DEFAULT_PYSPARK_VERSION)
    p_fetch.add_argument("--cache-dir", type=Path, default=None)
    p_fetch.add_argument(
        "--archive", type=Path, default=None, help="an already downloaded pyspark sdist"
    )
    p_fetch.add_argument("--quiet", action="store_true")
    p_find = sub.add_parser("find", help="print the Hadoop classpath that would be used")
    p_find.add_argument("--jars", default=None)
    args = parser.parse_args(argv)
    try:
        if args.cmd == "fetch":
            jars = fetch_jars(args.version, args.cache_dir, args.archive, quiet=args.quiet)
        else:
            jars = find_jars(args.jars)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"Hadoop {jars.hadoop_version} jars ({jars.source}): {jars.directory}")
    if args.cmd == "find":
        print(jars.classpath_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
