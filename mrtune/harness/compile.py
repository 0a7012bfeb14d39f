"""Compile the project's Java jobs (``validation/java``) with ``javac``, once per source version.

The ``.java`` sources ship in the package; the compiled jar is cached under
``<cache>/jobs/<hash>/mrtune-jobs.jar`` where the hash covers every source file and the names
of the Hadoop jars compiled against, so an edited source or another Hadoop recompiles and an
unchanged one costs nothing.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from mrtune.errors import InputError
from mrtune.harness.jars import HadoopJars, default_cache_dir

JAVA_DIR = Path(__file__).resolve().parent / "java"
#: The log4j2 configuration every run uses (millisecond epoch timestamps and thread names).
LOG4J2_PROPERTIES = JAVA_DIR / "log4j2.properties"
DRIVER_CLASS = "mrtune.jobs.Driver"


def java_sources() -> list[Path]:
    """Every ``.java`` file of the jobs, in a stable order.

    ``mrtune/yarn`` (the mini-cluster launcher) is left out: it compiles against the
    mini-cluster jars (:mod:`mrtune.harness.minicluster`), not the client jars.
    """
    yarn = JAVA_DIR / "mrtune" / "yarn"
    return sorted(p for p in JAVA_DIR.rglob("*.java") if yarn not in p.parents)


def source_hash(jars: HadoopJars) -> str:
    """Key of the compiled jar: the sources' bytes and the classpath's jar names."""
    h = hashlib.sha256()
    for src in java_sources():
        h.update(src.relative_to(JAVA_DIR).as_posix().encode())
        h.update(b"\0")
        h.update(src.read_bytes())
    for jar in jars.classpath:
        h.update(jar.name.encode())
    return h.hexdigest()[:16]


def compile_jobs(jars: HadoopJars, cache_dir: Path | None = None) -> Path:
    """Return the path of the jobs jar, compiling it first when the cache lacks it.

    Raises:
        InputError: ``javac`` is not installed or the compilation failed (its output is in
            the message).
    """
    cache = (cache_dir or default_cache_dir()) / "jobs" / source_hash(jars)
    target = cache / "mrtune-jobs.jar"
    if target.is_file():
        return target
    return javac_jar(java_sources(), jars.classpath_string(), target)


def javac_jar(sources: list[Path], classpath: str, target: Path) -> Path:
    """Compile ``sources`` against ``classpath`` and write their classes as the jar
    ``target``, atomically (a temporary jar renamed into place: an interrupted build never
    leaves a half-written jar that looks cached). Used for the jobs jar and the mini-cluster
    launcher.

    Raises:
        InputError: ``javac`` is not installed or the compilation failed (its output is in
            the message).
    """
    javac = shutil.which("javac")
    if javac is None:
        raise InputError("javac not found on PATH; install a JDK (17 is known to work)")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mrtune-javac-", dir=target.parent) as tmp:
        classes = Path(tmp) / "classes"
        classes.mkdir()
        cmd = [javac, "-nowarn", "-encoding", "UTF-8", "-d", str(classes), "-cp", classpath]
        proc = subprocess.run([*cmd, *map(str, sources)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise InputError("javac failed: " + (proc.stderr or proc.stdout).strip()[-2000:])
        tmp_jar = Path(tmp) / target.name
        with zipfile.ZipFile(tmp_jar, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
            for cls in sorted(classes.rglob("*.class")):
                zf.write(cls, cls.relative_to(classes).as_posix())
        tmp_jar.replace(target)
    return target
