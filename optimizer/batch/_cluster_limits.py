"""What bounds the cluster-wide ``mapred-site.xml`` besides the catalog's costs: the cluster's
capabilities and Hadoop's limits, as ``mrtune optimize`` applies them to one job (issue 14).

Split from :mod:`mrtune.optimizer.batch._cluster` (the search over the catalog) because these
are rules about *what may be written*, not about how the search goes:

* **Which knobs.** Every knob but the per-job ones, and never job-output compression
  (``mapreduce.output.fileoutputformat.compress`` and its codec) unless the batch is asked
  (``--output-compression``): a site file applies it to every job of the cluster, and it
  changes the files every downstream reader gets (Hive tables, the next job's input, exports
  read outside Hadoop), which is the job owner's decision, not a tuning. Each job's own
  recommendation still offers it, as ``optimize`` does; in the catalog totals each job keeps
  its own tuned value, like its reducer count.
* **Which codecs.** Only those every tuned job's search offered (each job's space applies its
  cluster's verdicts: the release ships it, ``io.compression.codecs`` lists it, native-only
  codecs need ``--allow-native-codecs``; :func:`~mrtune.search_spaces.constraints.
  job_codec_verdicts`) *and* the cluster's own verdict from the stated facts (``--codecs``,
  ``--allow-native-codecs``, ``--hadoop-version``; else the earliest release of the catalog's
  line), with the catalog's current codecs, which its jobs already load.
* **Which combinations.** A candidate must satisfy the constraints between cluster-level knobs
  as written, without a repair (``MergeManagerImpl`` refuses a single-shuffle limit at or above
  the merge percent): a repaired value would be scored but not written.
* **How far.** A size or count (a knob searched on a log scale) stays within ×1/4–×4 of the
  catalog's current value, the trust region of ``optimize``'s far-move rule
  (:mod:`mrtune.optimizer.trust`), unless ``--include-low-confidence``: the file applies to
  every job, none of which ran near a value further off.
* **Which names.** The catalog's Hadoop line decides the property names (Hadoop 1 reads only
  ``io.sort.mb``, ``mapred.*``; :data:`~mrtune.costmodel.properties.HADOOP1_NAMES`).

The sort buffer's cap (:data:`~mrtune.search_spaces.constraints.SORT_BUFFER_HEAP_SHARE` of each
job's heap, and no more than leaves :data:`~mrtune.search_spaces.constraints.HEAP_NEED_HEADROOM`
× the heap that job's maps took beside their buffer where its history records it:
``JobProfile.map_heap_use``; a SWIM row records none) comes with each job's result (``limits``,
from that job's own space) and is applied by the search itself: the file's grid stops at the
tightest job's (:func:`knob_grid`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig, format_property_value
from mrtune.costmodel.properties import CODEC_CODES
from mrtune.optimizer.outputs import NameStyle, rename
from mrtune.optimizer.trust import far_span
from mrtune.search_spaces import find_knob, knob_to_properties
from mrtune.search_spaces.codecs import job_codec_verdicts
from mrtune.search_spaces.constraints import CONSTRAINTS, SORT_BUFFER_HEAP_SHARE
from mrtune.search_spaces.knobs import CODEC_ROLES

#: The sort buffer's knob, whose site value is also capped by the site's default heap.
SORT_BUFFER = "mapreduce.task.io.sort.mb"
#: Job-output compression: written cluster-wide only when asked (module docstring).
OUTPUT_CODEC = "mapreduce.output.fileoutputformat.compress.codec"
#: The constraints a cluster-wide candidate is checked against as written (the sort buffer's
#: cap is per job and applied through the grids; containers are not searched in a batch).
_CROSS_KNOB = tuple(c for c in CONSTRAINTS if c.name == "single-shuffle-below-merge")
_FIELD_OF_ALIAS = {f.alias: n for n, f in HadoopConfig.model_fields.items() if f.alias}


def excluded_knobs(output_compression: bool) -> frozenset[str]:
    """Knobs the cluster-wide file leaves alone besides the per-job ones."""
    return frozenset() if output_compression else frozenset({OUTPUT_CODEC})


def catalog_version(tuned: Sequence[dict[str, Any]]) -> int:
    """The Hadoop line of the tuned jobs (the most common; results of an older tuner say
    nothing and count as Hadoop 2/3)."""
    counts = Counter(int(r.get("hadoop_version", 3)) for r in tuned)
    return max(sorted(counts), key=lambda v: counts[v]) if counts else 3


def cluster_profile(facts: dict[str, Any]) -> Any:
    """A stand-in profile carrying the cluster's stated facts, for the codec verdicts."""
    from mrtune.costmodel import JobProfile

    return JobProfile(input_bytes=1.0, cluster_facts=dict(facts))


def site_base(version: int, names: list[str], baseline: np.ndarray) -> HadoopConfig:
    """Hadoop's defaults of the catalog's line with the catalog's current cluster-level values
    (what the jobs run with before the file): the codecs they load, for the verdicts."""
    base = HadoopConfig(hadoop_version=version)  # type: ignore[arg-type]
    changes: dict[str, Any] = {}
    for j, n in enumerate(names):
        k = find_knob(n)
        if k.role in CODEC_ROLES:
            changes.update(knob_to_properties(k, k.decode(baseline[j]), base, cluster_profile({})))
    return base.with_changes(changes) if changes else base


def codec_grid(
    name: str,
    tuned: Sequence[dict[str, Any]],
    baseline: float,
    base: HadoopConfig,
    facts: dict[str, Any],
) -> np.ndarray:
    """The codes of the codecs the cluster-wide file may set for codec knob ``name``
    (module docstring): offered by every tuned job that searched it and by the cluster's
    verdict, plus the catalog's current one."""
    k = find_knob(name)
    ok = {
        float(CODEC_CODES[v.codec])
        for v in job_codec_verdicts(cluster_profile(facts), base, None, None)
        if v.offered
    }
    ok.add(float(CODEC_CODES["none"]))
    for r in tuned:
        mine = (r.get("choices") or {}).get(name)
        if mine is not None:
            ok &= set(mine)
    ok.add(float(baseline))
    return np.array(sorted(c for c in (k.encode(x) for x in k.choices) if c in ok))


def site_notes(version: int, names: list[str]) -> dict[str, Any]:
    """What the summary says about the file's limits: its Hadoop line and how job-output
    compression was treated (module docstring)."""
    offered = OUTPUT_CODEC in names
    return {
        "hadoop_version": version,
        "output_compression": "offered (--output-compression)"
        if offered
        else "left to each job (it changes the files downstream readers get; "
        "--output-compression offers it)",
    }


def knob_grid(
    n: str,
    tuned: Sequence[dict[str, Any]],
    now: float,
    base: HadoopConfig,
    facts: dict[str, Any],
    region: bool = True,
) -> np.ndarray:
    """Knob ``n``'s grid with the catalog's value ``now``, below every job's cap of it (the
    sort buffer's share of each heap, or less where a job's observed heap binds) and, with
    ``region``, within the trust region of a size or count (×1/FAR–×FAR of ``now``, module
    docstring); a codec knob's, the codecs every job and the cluster load
    (:func:`codec_grid`)."""
    k = find_knob(n)
    if k.role in CODEC_ROLES:
        return codec_grid(n, tuned, now, base, facts)
    cap = min((r["limits"][n] for r in tuned if n in r.get("limits", {})), default=np.inf)
    if n == SORT_BUFFER:
        cap = min(cap, site_sort_buffer_cap(base))
    g = np.union1d(k.grid_values(), [now])
    if region and k.log and now > 0:
        lo, hi = far_span(now, "float")  # the catalog's value may be fractional: no rounding
        g = g[(g >= lo) & (g <= hi)]
    return g[g <= cap] if (g <= cap).any() else g[:1]


def site_sort_buffer_cap(base: HadoopConfig) -> float:
    """The sort buffer a site file may set: within the share of the map heap the file's jobs
    get when they set none (the line's default ``-Xmx``, e.g. Hadoop 1's 200 MB), which is the
    heap the file's lint checks it against. Each job's own cap bounds only the jobs of the
    catalog; a 300 MB buffer within their 1 GB heaps had been chosen, then refused by the lint
    with nothing written."""
    return float(np.floor(SORT_BUFFER_HEAP_SHARE * base.map_heap_bytes / 2**20))


def tightest_caps(tuned: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per capped knob, the lowest cap over the catalog's jobs and the job it comes from: what
    bounds the file's value of it (:func:`knob_grid`), so a file held there names the job
    (its map heap, and the heap its maps took beside the buffer where its history says)."""
    out: dict[str, dict[str, Any]] = {}
    for r in tuned:
        for n, cap in (r.get("limits") or {}).items():
            if n not in out or cap < out[n]["cap"]:
                out[n] = {"cap": float(cap), "job": r.get("job_id") or r["key"], "key": r["key"]}
    return out


def within_grids(
    cand: np.ndarray, grids: list[np.ndarray], names: list[str], baseline: np.ndarray
) -> np.ndarray:
    """``cand`` with every value inside its knob's grid: beyond its ends (a cap, the trust
    region), the end; a codec some job or the cluster cannot load, the catalog's current one."""
    for j, g in enumerate(grids):
        if find_knob(names[j]).role in CODEC_ROLES:
            cand[~np.isin(cand[:, j], g), j] = baseline[j]
        else:
            cand[:, j] = np.clip(cand[:, j], g.min(), g.max())
    return cand


def feasible_rows(cand: np.ndarray, names: list[str], version: int) -> np.ndarray:
    """Mask of candidate rows that satisfy the cross-knob constraints as written (module
    docstring), the knobs a row does not set at Hadoop's defaults of the line."""
    if not len(cand):
        return np.ones(0, dtype=bool)
    d = HadoopConfig(hadoop_version=version)  # type: ignore[arg-type]
    ctx = {
        "shuffle_limit": d.shuffle_memory_limit_percent,
        "shuffle_merge": d.shuffle_merge_percent,
        "hadoop1": float(version == 1),
    }
    vals = {n: cand[:, j].astype(np.float64) for j, n in enumerate(names)}
    ok = np.ones(len(cand), dtype=bool)
    for c in _CROSS_KNOB:
        ok &= c.check(vals, ctx)
    return ok


def site_changes(version: int, changed: dict[str, float]) -> tuple[HadoopConfig, dict[str, Any]]:
    """The line's defaults and the properties that realise the ``changed`` knob values."""
    base = HadoopConfig(hadoop_version=version)  # type: ignore[arg-type]
    out: dict[str, Any] = {}
    for n, v in changed.items():
        knob = find_knob(n)
        out.update(knob_to_properties(knob, knob.decode(v), base, cluster_profile({})))
    return base, out


def site_properties(version: int, changed: dict[str, float]) -> dict[str, str]:
    """The file's properties, under the names the catalog's Hadoop line reads."""
    _, changes = site_changes(version, changed)
    props = {p: format_property_value(_FIELD_OF_ALIAS.get(p, p), v) for p, v in changes.items()}
    return rename(props, NameStyle.hadoop1 if version == 1 else NameStyle.hadoop2)


def site_lint(
    version: int,
    changed: dict[str, float],
    cluster: ClusterSpec,
    facts: dict[str, Any],
    current: HadoopConfig,
) -> Any:
    """The job-independent lint rules on the line's defaults with the file's settings, codec
    availability included (the cluster's verdict, the catalog's codecs in use from
    ``current``). Values Hadoop's validation refuses are linted unvalidated, to be reported."""
    from mrtune.optimizer.lint import lint_settings

    base, changes = site_changes(version, changed)
    try:
        config = base.with_changes(changes)
    except ValueError:
        fields = {_FIELD_OF_ALIAS[k]: v for k, v in changes.items() if k in _FIELD_OF_ALIAS}
        config = base.model_copy(update=fields)
    return lint_settings(config, cluster, cluster_profile(facts), current)
