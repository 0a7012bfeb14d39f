"""``mrtune sweep``: predicted job time and phases across the range of one setting."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import typer
from rich import box
from rich.table import Table

from mrtune.cli._inputs import (
    ClusterOpt,
    ConfOpt,
    InputSizeOpt,
    LocalOpt,
    NodesOpt,
    ProfileArg,
    build_cluster,
    load_job,
    with_input_size,
)
from mrtune.cli.console import (
    OutputFormat,
    calibration_brief,
    cli_errors,
    console,
    emit_json,
    err_console,
    strict_option,
    warn_calibration,
    working,
)
from mrtune.costmodel import HadoopConfig, JobProfile, predict_job
from mrtune.errors import InputError
from mrtune.optimizer.point_intervals import point_intervals
from mrtune.optimizer.units import format_ms, parse_size
from mrtune.optimizer.whatif import job_release, unshipped_codec
from mrtune.optimizer.whatif_summary import MAP_PHASES, REDUCE_PHASES, summarize
from mrtune.search_spaces import SearchSpace, find_knob
from mrtune.search_spaces.knobs import CODEC_ROLES, Knob, Role, unread_by_version


def _size_or_bytes(text: str) -> float:
    """A split size: bytes, with or without a unit (the setting itself is in bytes)."""
    return parse_size(text, unit_required=False)


def sweep_values(knob, text: str | None, steps: int) -> np.ndarray:  # noqa: ANN001
    """Encoded values of ``knob`` over ``a:b`` (log-spaced where the knob is), or its choices."""
    if knob.kind in {"categorical", "bool"}:
        return knob.grid_values()
    if text is None:
        lo, hi = float(knob.low), float(knob.high)
    else:
        if ":" not in text:
            raise InputError("range must be a:b", field="--range", value=text)
        a, b = text.split(":", 1)
        try:
            conv = _size_or_bytes if knob.unit == "bytes" else float
            lo, hi = conv(a), conv(b)
        except ValueError:
            raise InputError(
                "range ends must be numbers", field="--range", value=text, allowed=knob.allowed()
            ) from None
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise InputError(
                f"range ends of {knob.name} must be finite numbers",
                field="--range",
                value=text,
                allowed=knob.allowed(),
            )
        if knob.kind == "int" and not (float(lo).is_integer() and float(hi).is_integer()):
            raise InputError(
                f"{knob.name} takes whole numbers",
                field="--range",
                value=text,
                allowed=knob.allowed(),
            )
        for v in (lo, hi):
            try:
                knob.parse(int(v) if knob.kind == "int" else v)
            except ValueError as exc:
                raise InputError(str(exc), field="--range") from None
        if lo > hi:
            lo, hi = hi, lo
    if knob.log and lo > 0:
        vals = np.geomspace(lo, hi, steps)
    else:
        vals = np.linspace(lo, hi, steps)
    if knob.kind == "int":
        vals = np.unique(np.round(vals))
    return vals


#: Job times within this share of each other are one flat curve (no row is "best").
FLAT_SHARE = 0.001

app = typer.Typer()


@app.command("sweep")
@cli_errors
def sweep_cmd(
    profile: Path = ProfileArg,
    param: str = typer.Option(..., "--param", help="The setting to sweep (any tunable name)."),
    range_: str | None = typer.Option(None, "--range", help="a:b (default: its whole range)."),
    steps: int = typer.Option(25, "--steps", min=2, max=100_000, help="Points in the range."),
    plot: Path | None = typer.Option(None, "--plot", help="Write a PNG plot here."),
    input_size: str | None = InputSizeOpt,
    nodes: int | None = NodesOpt,
    cluster: Path | None = ClusterOpt,
    local: bool = LocalOpt,
    conf: Path | None = ConfOpt,
    fmt: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
    strict: bool = strict_option(),
) -> None:
    """Predict job time and phase times across one setting's range (one vectorised call)."""
    try:
        knob = find_knob(param)
    except KeyError as exc:
        raise InputError(str(exc.args[0]), field="--param") from None
    prof, base = load_job(profile, conf)
    warn_calibration(prof, strict)
    prof = with_input_size(prof, input_size)
    spec, where = build_cluster(prof, nodes, cluster, local)
    space = SearchSpace.for_job(prof, base, spec, allow_memory=True, only=[knob.name])
    if not space.knobs:
        raise InputError(_not_applicable(knob, prof, base), field="--param", value=knob.name)
    knob, values, repaired, notes = _points(space, knob, range_, steps)
    batch = space.to_batch({knob.name: repaired})
    pred = predict_job(prof, batch, spec)
    with working(f"intervals of {len(repaired)} points from the profile's evidence"):
        intervals, method = point_intervals(prof, base, batch, spec)
    rows = []
    for i, v in enumerate(repaired):
        s = summarize(pred, i)
        iv = {"job_ms_p10": intervals[i].low, "job_ms_p90": intervals[i].high}
        rows.append(
            {"value": knob.decode(float(v)), "requested": knob.decode(float(values[i])), **s, **iv}
        )
    if plot is not None:
        _plot(rows, knob, plot)
    if fmt == OutputFormat.json:
        calib = calibration_brief(prof)
        out = {"param": knob.name, "cluster": where, "calibration": calib, "points": rows}
        out["interval_method"] = method
        emit_json({**out, "notes": notes})  # the values left out, and why
        return
    for line in notes:
        err_console.print(f"note: {line}", highlight=False)
    console.print(f"cluster: {where}")
    t, flat = _table(knob, rows)
    console.print(t)
    console.print(
        "[dim]p10–p90: the job time over the profile's evidence and one run's noise "
        "(--format json: how it was sampled)[/]",
        highlight=False,
    )
    if flat:
        console.print(
            f"the job time moves by less than {FLAT_SHARE:.1%} across this range: the setting "
            "does not change it here"
        )
    if plot is not None:
        console.print(f"wrote {plot}")


def _table(knob: Knob, rows: list[dict]) -> tuple[Table, bool]:
    """The sweep's points as a table, and whether the job time is flat across them."""
    # no vertical rules: seven columns and the interval fit 80 columns
    t = Table(title=f"sweep of {knob.name}", box=box.SIMPLE_HEAD, pad_edge=False)
    t.add_column("value", justify="right")  # the title names the setting
    t.add_column("job time", justify="right", no_wrap=True)
    t.add_column("p10–p90", justify="right", no_wrap=True)
    t.add_column("map task", justify="right")
    t.add_column("reduce task", justify="right")
    t.add_column("spills", justify="right")  # per map
    t.add_column("GB·s", justify="right")
    times = [r["job_ms"] for r in rows]
    # one best row; none on a flat curve (every row "best" said nothing: the setting does not
    # move this job's time, which the note under the table says)
    flat = max(times) <= min(times) * (1 + FLAT_SHARE)
    best = None if flat else times.index(min(times))
    for i, r in enumerate(rows):
        mark = " ◀ best" if i == best else ""
        t.add_row(
            str(r["value"])
            + ("" if r["value"] == r["requested"] else f" (capped from {r['requested']})"),
            format_ms(r["job_ms"]) + mark,
            _span(r["job_ms_p10"], r["job_ms_p90"]),
            format_ms(r["map_task_ms"]),
            format_ms(r["reduce_task_ms"]),
            f"{r['dataflow']['spills_per_map']:.3g}",
            f"{r['container_gb_s']:,.1f}",
        )
    return t, flat


def _span(low: float, high: float) -> str:
    """``24.5–35.0 s``: an interval with its unit once when both ends share it."""
    a, b = format_ms(low), format_ms(high)
    unit = a.rsplit(" ", 1)[-1]
    if " " in a and b.endswith(f" {unit}") and a.count(" ") == 1 and b.count(" ") == 1:
        return f"{a.rsplit(' ', 1)[0]}–{b}"
    return f"{a}–{b}"


def _points(
    space: SearchSpace, knob: Knob, text: str | None, steps: int
) -> tuple[Knob, np.ndarray, np.ndarray, list[str]]:
    """The knob swept, its values as asked and as repaired, and a note for each value left
    out: a codec the job's release does not ship (:func:`_shipped`), a container its task's
    heap does not fit (:func:`_fitting_heaps`)."""
    knob, not_shipped = _shipped(knob, space.profile, space.base)
    values = sweep_values(knob, text, steps)
    repaired = space.repair({knob.name: values})[knob.name]
    values, repaired, killed = _fitting_heaps(space, knob, values, repaired)
    notes = [f"not swept: {w}" for w in not_shipped] + ([killed] if killed else [])
    return knob, values, repaired, notes


def _not_applicable(knob: Knob, prof: JobProfile, base: HadoopConfig) -> str:
    """Why the sweep has no such setting for this job: first whether its Hadoop reads it at
    all (:func:`~mrtune.search_spaces.knobs.unread_by_version`: Hadoop 1 has no containers and
    no shuffle.memory.limit.percent), else the job's own shape."""
    if not knob.applies_to(base.hadoop_version):
        high = knob.high if knob.high is not None else ""
        why = unread_by_version(knob.name, high, base.hadoop_version, job_release(base, prof))
        if why is not None:
            return f"{why[0]}; allowed: {why[1]}"
        lines = " and ".join(map(str, knob.versions))
        return (
            f"{knob.name} acts on Hadoop {lines} only (Knob.versions); this job runs Hadoop "
            f"{base.hadoop_version}"
        )
    return (
        "this setting does not apply to this job (e.g. a reduce-side setting "
        "of a map-only job, or a combiner switch without a combiner)"
    )


def _shipped(knob: Knob, prof: JobProfile, base: HadoopConfig) -> tuple[Knob, list[str]]:
    """``knob`` with only the codecs the job's release ships, and a line for each left out:
    the rule ``whatif`` refuses a codec by (:func:`~mrtune.optimizer.whatif.unshipped_codec`;
    lz4 on Hadoop 1 had been swept and priced). Other knobs as they are."""
    if knob.role not in CODEC_ROLES:
        return knob, []
    keep, out = [], []
    field = "map_output_codec" if knob.role == Role.map_codec else "output_codec"
    switch = "map_output_compress" if knob.role == Role.map_codec else "output_compress"
    for codec in knob.choices:
        if codec in ("none", "unknown"):
            keep.append(codec)
            continue
        probe = base.model_copy(update={field: codec, switch: True})
        bad = unshipped_codec(probe, base, job_release(base, prof), prof)
        if bad is None:
            keep.append(codec)
        else:
            out.append(bad[1])
    return dataclasses.replace(knob, choices=tuple(keep)), out


def _fitting_heaps(
    space: SearchSpace, knob: Knob, values: np.ndarray, repaired: np.ndarray
) -> tuple[np.ndarray, np.ndarray, str | None]:
    """The rows whose task heap fits its container, and a line saying how many were skipped
    and why (``HadoopConfig``'s own refusal of the first). Hadoop 2 without an ``-Xmx`` runs
    every container at the default ``-Xmx200m`` (JobConf.DEFAULT_MAPRED_TASK_JAVA_OPTS), so a
    128..197 MB sweep row was a task YARN kills ("running beyond physical memory limits"),
    priced as if it ran. No row fits: the range is refused, one line."""
    if not knob.container_memory or space.base.hadoop_version < 2:
        return values, repaired, None
    side = "map" if knob.role == Role.map_memory else "reduce"
    batch = space.to_batch({knob.name: repaired})
    mb = np.asarray(getattr(batch, f"{side}_container_mb"), dtype=np.float64)
    heap = np.asarray(getattr(batch, f"{side}_heap_bytes"), dtype=np.float64)
    killed = (mb > 0) & (heap > mb * 2**20)
    if not killed.any():
        return values, repaired, None
    first = int(knob.decode(float(repaired[np.argmax(killed)])))
    try:
        space.base.with_changes({knob.name: first})
        why = f"its {side} heap does not fit the container: YARN kills such tasks"
    except ValueError as exc:
        why = _first_line(exc)
    if killed.all():
        raise InputError(why, field="--range", value=f"{knob.name}={first}")
    n, last = int(killed.sum()), knob.decode(float(repaired[killed][-1]))
    line = f"skipped {n} value{'s' * (n > 1)} of {knob.name} ({first}..{last}): {why}"
    return values[~killed], repaired[~killed], line


def _first_line(exc: Exception) -> str:
    """One line of a configuration's refusal, by Hadoop property name."""
    from pydantic import ValidationError

    from mrtune.costmodel.config import config_error_line

    if isinstance(exc, ValidationError):
        return config_error_line(exc)
    return " ".join(str(exc).split())


def _plot(rows: list[dict], knob, path: Path) -> None:  # noqa: ANN001
    """Job time, then one map task's and one reduce task's phases, each on its own axes.

    A map task and a reduce task are different tasks that run in different waves, so their
    phase times are never stacked on each other: each side gets its own stacked panel.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    categorical = knob.kind in {"categorical", "bool"}
    xs = list(range(len(rows))) if categorical else [float(r["value"]) for r in rows]
    sides = [
        (side, phases)
        for side, phases in (("map", MAP_PHASES), ("reduce", REDUCE_PHASES))
        if any(r[f"{side}_phases_ms"] for r in rows)
    ]
    fig, axes = plt.subplots(1 + len(sides), 1, figsize=(8, 3 + 2.6 * len(sides)), sharex=True)
    ax_job = axes[0]
    ax_job.plot(xs, [r["job_ms"] / 1000 for r in rows], marker="o", label="job time")
    ax_job.set_ylabel("predicted job time (s)")
    ax_job.legend(fontsize=8, loc="best")
    ax_job.grid(alpha=0.3)
    for ax, (side, phases) in zip(axes[1:], sides, strict=True):
        bottom = np.zeros(len(rows))
        for ph in phases:
            ys = np.array([r[f"{side}_phases_ms"].get(ph, 0.0) / 1000 for r in rows])
            if ys.any():
                ax.fill_between(xs, bottom, bottom + ys, alpha=0.6, label=ph)
                bottom = bottom + ys
        ax.set_ylabel(f"one {side} task (s, phases stacked)")
        ax.legend(fontsize=7, ncol=3, loc="best", title=f"{side} phases", title_fontsize=7)
        ax.grid(alpha=0.3)
    unit = f" ({knob.unit})" if getattr(knob, "unit", "") else ""
    axes[-1].set_xlabel(f"{knob.name}{unit}")
    if categorical:
        axes[-1].set_xticks(xs, [str(r["value"]) for r in rows])
    elif knob.log:
        ax_job.set_xscale("log")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
