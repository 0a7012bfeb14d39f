"""Per-configuration codec statistics as arrays (compression ratio and CPU costs).

Configuration batches carry codecs as integer codes (0 = none); this module turns a code array
into ratio / ns-per-byte arrays using the profile's measured values or documented priors
(:data:`mrtune.costmodel.profile.CODEC_PRIORS`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.properties import CODEC_NAMES_BY_CODE
from mrtune.costmodel.stacked import StackedProfiles


def codec_arrays(
    profile: JobProfile, codes: NDArray[np.int64], *, uncompress: bool = True
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None]:
    """``(ratio, compress_ns_per_uncompressed_byte, uncompress_ns_per_compressed_byte)``.

    Code 0 (no compression) gives ratio 1 and zero CPU. ``profile`` may be
    :class:`~mrtune.costmodel.stacked.StackedProfiles` (each row its own job's codecs).
    ``uncompress=False``: the third is ``None`` (the job's output is written, never read).
    """
    if isinstance(profile, StackedProfiles):
        return profile.codec_arrays(codes)
    ratio, comp, uncomp, _ = _tables(profile)
    # ``take`` gathers the same numbers as ``table[codes]`` without fancy indexing's set-up
    # (7.8 against 11 µs on 16,384 codes)
    return ratio.take(codes), comp.take(codes), uncomp.take(codes) if uncompress else None


#: Each profile's codec tables by code (profiles are frozen; keyed by identity, bounded).
_TABLES: dict[int, tuple[JobProfile, tuple[NDArray[np.float64], ...]]] = {}


def _tables(profile: JobProfile) -> tuple[NDArray[np.float64], ...]:
    """``(ratio, compress ns, uncompress ns, uncombined ratio)`` of every codec code (code 0:
    no compression), made once per profile: a model call reads them three times or more."""
    hit = _TABLES.get(id(profile))
    if hit is not None and hit[0] is profile:
        return hit[1]
    n_codes = max(CODEC_NAMES_BY_CODE) + 1
    ratio = np.ones(n_codes)
    comp = np.zeros(n_codes)
    uncomp = np.zeros(n_codes)
    uncombined = np.ones(n_codes)
    for code, name in CODEC_NAMES_BY_CODE.items():
        if code == 0:
            continue
        c = profile.codec(name)
        ratio[code] = c.ratio
        comp[code] = c.compress_ns_per_byte
        uncomp[code] = c.uncompress_ns_per_byte
        uncombined[code] = c.ratio if c.ratio_uncombined is None else c.ratio_uncombined
    tables = (ratio, comp, uncomp, uncombined)
    for t in tables:
        t.setflags(write=False)
    if len(_TABLES) >= 256:
        _TABLES.clear()
    _TABLES[id(profile)] = (profile, tables)
    return tables


def uncombined_ratio(profile: JobProfile, codes: NDArray[np.int64]) -> NDArray[np.float64]:
    """The codec's ratio on the map output as emitted (before the combiner), per configuration.

    A combiner changes what the codec sees: WordCount's raw ``(word, 1)`` pairs, sorted, repeat
    whole records and compress ~30× better than the combined counts (issue 20). A
    configuration that switches the job's combiner off stores the emitted records, so its
    bytes need this ratio; :attr:`CodecStats.ratio_uncombined` holds it when the codec probe
    measured it, otherwise the combined data's ratio stands in.
    """
    if isinstance(profile, StackedProfiles):
        return profile.uncombined_ratio(codes)
    return _tables(profile)[3].take(codes)


def map_output_codec_arrays(
    profile: JobProfile, codes: NDArray[np.int64], combining: NDArray[np.bool_]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """:func:`codec_arrays` for the map output, whose ratio is the emitted data's
    (:func:`uncombined_ratio`) where the job has a combiner that ``combining`` switches off.

    One ratio at every number of reducers, although each partition is its own ``IFile``
    segment and codec stream: ``benchmarks/codec_order_study.py`` replays postings' map side
    with Hadoop's own sort, merge and ``IFile.Writer`` and reproduces every real compressed
    run to 0.012%. The framing (8 bytes per ``BlockCompressorStream`` block) is a few hundred
    bytes; the key density (a partition holds 1/R of the keys) costs +0.4% to +0.9%, which a
    probe that deals the output to R partitions measures; the rest, -0.9% to +2.0% from one
    R to the next under LZ4, is the order of equal keys that the unstable ``QuickSort``
    leaves and a list-building combiner writes into its values, with no trend a model could
    follow. A ratio by R taken from that probe brought the held-out errors (LZ4 at 4, 16, 64
    reducers, Snappy and Deflate at 16) from a mean of 1.01% to 0.90% but made two of the five
    worse and left as many outside 1%, so it is not in the model."""
    ratio, comp, uncomp = codec_arrays(profile, codes)
    uncombined = profile.has_combiner & ~combining
    if np.any(uncombined):
        ratio = np.where(uncombined, uncombined_ratio(profile, codes), ratio)
    return ratio, comp, uncomp
