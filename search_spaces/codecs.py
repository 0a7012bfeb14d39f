"""Which compression codecs a cluster can load (issue 14, item 2): the release that ships each
codec, the cluster's ``io.compression.codecs`` and whether the native library is there.

Split from :mod:`mrtune.search_spaces.constraints` (the constraints between settings) because
it holds one rule of its own, read by the search space (codec knobs offer only what loads),
the lint pass and the batch's cluster-wide file; ``constraints`` re-exports it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.properties import codec_name
from mrtune.search_spaces.knobs import CODEC_AVAILABILITY, CodecAvailability

#: Memo of :func:`codec_verdicts` (bounded).
_MEMO_SIZE = 4096

Release = tuple[int, int, int]

#: The release assumed when only the major version is known: the earliest of the line, so that
#: no codec is offered that an older cluster of that line lacks (0.20 has no SnappyCodec, 2.0-2.8
#: no ZStandardCodec, 3.0-3.3.0 need libhadoop for Snappy and Lz4).
EARLIEST_RELEASE: dict[int, Release] = {1: (0, 20, 0), 2: (2, 0, 0), 3: (3, 0, 0)}


def parse_release(raw: object, major: int) -> Release:
    """``"2.7.3"`` → (2, 7, 3); the major's earliest release when ``raw`` gives no minor, or
    names another major (a profile of one line read as another)."""
    nums = [int(p) for p in re.findall(r"\d+", str(raw or ""))[:3]]
    if len(nums) >= 2 and (nums[0] == major or (major == 1 and nums[0] == 0)):
        padded = (nums + [0, 0])[:3]
        return (padded[0], padded[1], padded[2])
    return EARLIEST_RELEASE.get(major, (major, 0, 0))


@dataclass(frozen=True)
class CodecVerdict:
    """Whether a codec may be offered, and why not (one line for the explanation)."""

    codec: str
    offered: bool
    reason: str


def codec_verdicts(
    release: Release,
    availability: dict[str, CodecAvailability],
    *,
    listed: set[str] | None,
    in_use: set[str],
    allow_native: bool,
) -> list[CodecVerdict]:
    """Each known codec's verdict for a cluster of ``release``.

    A codec the job already runs with is offered (it loads there). Otherwise it must ship in
    ``release``, appear in the cluster's ``io.compression.codecs`` when that list is known
    (``listed``), and, when it needs ``libhadoop`` at that release, ``allow_native`` must be
    given: the job would otherwise fail at its first spill (``ClassNotFoundException`` or
    "native … library not available").
    """
    key = (release, id(availability), None if listed is None else frozenset(listed))
    key += (frozenset(in_use), allow_native)  # type: ignore[assignment]
    hit = _VERDICTS.get(key)
    if hit is not None and hit[0] is availability:
        return list(hit[1])
    out = _codec_verdicts(release, availability, listed, in_use, allow_native)
    if len(_VERDICTS) < _MEMO_SIZE:
        _VERDICTS[key] = (availability, tuple(out))
    return out


_VERDICTS: dict[tuple[object, ...], tuple[object, tuple[CodecVerdict, ...]]] = {}


def _codec_verdicts(
    release: Release,
    availability: dict[str, CodecAvailability],
    listed: set[str] | None,
    in_use: set[str],
    allow_native: bool,
) -> list[CodecVerdict]:
    major = 1 if release[0] == 0 else release[0]
    out = []
    for name, av in availability.items():
        since = av.since.get(major)
        if name in in_use:
            out.append(CodecVerdict(name, True, "the job already uses it"))
        elif not av.bundled and (listed is None or name not in listed):
            out.append(CodecVerdict(name, False, f"not listed by the cluster ({av.jira})"))
        elif since is None:
            line = f"Hadoop {major}.x"
            out.append(CodecVerdict(name, False, f"no {line} release ships it ({av.jira})"))
        elif release < since:
            first = ".".join(map(str, since))
            out.append(CodecVerdict(name, False, f"not shipped before {first} ({av.jira})"))
        elif listed is not None and av.bundled and name not in listed and name not in _CORE:
            out.append(CodecVerdict(name, False, "not in the cluster's io.compression.codecs"))
        elif (av.pure_java_since is None or release < av.pure_java_since) and not allow_native:
            out.append(
                CodecVerdict(
                    name,
                    False,
                    f"needs the native library ({av.jira}); --allow-native-codecs offers it",
                )
            )
        else:
            out.append(CodecVerdict(name, True, "available"))
    return out


#: Codecs every Hadoop has in its core jar, with pure-Java streams: always offered.
_CORE = frozenset({"default", "gzip", "bzip2"})


#: ``profile.cluster_facts`` keys the CLI sets from ``--codecs`` / ``--allow-native-codecs``
#: (they override the job conf's ``io.compression.codecs``).
FACT_CODECS = "io.compression.codecs"
FACT_NATIVE_CODECS = "native_codecs"


def codec_facts(
    codecs: str | None, allow_native: bool, field: str = "--codecs"
) -> dict[str, str | float]:
    """``--codecs`` (short names or class names, commas) and ``--allow-native-codecs`` as the
    cluster facts :func:`job_codec_verdicts` reads (``mrtune optimize`` and ``mrtune batch``
    state the cluster's codecs the same way). An unknown codec is the user's error."""
    from mrtune.costmodel.properties import CODEC_CLASSES
    from mrtune.errors import InputError

    facts: dict[str, str | float] = {}
    if codecs is not None:
        names = []
        for part in (p.strip() for p in codecs.split(",")):
            if not part:
                continue
            try:
                names.append(CODEC_CLASSES[codec_name(part)])
            except ValueError:
                raise InputError(
                    "unknown compression codec",
                    field=field,
                    value=part,
                    allowed=", ".join(c for c in CODEC_CLASSES if c != "unknown"),
                ) from None
        facts[FACT_CODECS] = ",".join(names)
    if allow_native:
        facts[FACT_NATIVE_CODECS] = 1.0
    return facts


def job_codec_verdicts(
    profile: JobProfile,
    base: HadoopConfig,
    codecs: Iterable[str] | None,
    allow_native: bool | None,
) -> list[CodecVerdict]:
    """:func:`codec_verdicts` for one job: its release (``cluster_facts["hadoop_version"]``),
    the cluster's list (``codecs``, else the ``--codecs`` fact, else the job conf's
    ``io.compression.codecs``, else unknown) and the codecs its configuration already uses."""
    raw = (
        ",".join(codecs)
        if codecs is not None
        else profile.cluster_facts.get(FACT_CODECS) or profile.source_properties.get(FACT_CODECS)
    )
    listed = None if raw is None else codec_names(str(raw))
    if allow_native is None:
        allow_native = bool(float(profile.cluster_facts.get(FACT_NATIVE_CODECS, 0) or 0))
    in_use = {base.map_output_codec} if base.map_output_compress else set()
    in_use |= {base.output_codec} if base.output_compress else set()
    release = parse_release(profile.cluster_facts.get("hadoop_version"), base.hadoop_version)
    return codec_verdicts(
        release, CODEC_AVAILABILITY, listed=listed, in_use=in_use, allow_native=allow_native
    )


def codec_names(raw: str) -> set[str]:
    """``io.compression.codecs`` (class names, commas) → short names; unknown classes dropped."""
    out = set()
    for part in (p.strip() for p in raw.split(",")):
        if not part:
            continue
        try:
            out.add(codec_name(part))
        except ValueError:
            continue  # a codec class mrtune does not model: never offered anyway
    return out
