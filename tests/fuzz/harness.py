"""Run one fuzz case against a reader or a command and classify what happened.

Outcomes (:class:`Outcome.kind`):

* ``ok``: the input was accepted and everything produced passed the sanity checks;
* ``clean``: an expected failure: an :class:`~mrtune.errors.MrtuneError` or pydantic
  validation error from a reader (one line), or exit code 2 with one ``error:`` line from a
  command;
* ``uncaught``: any other exception (type and the innermost mrtune frame are recorded);
* ``wrong``: accepted, but a produced profile, prediction or row holds NaN, an infinity, or a
  negative time/size (a silent wrong answer);
* ``hang``: the case ran past its time limit (the bench arms an alarm; tests measure).
"""

from __future__ import annotations

import json
import math
import random
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fuzz.mutators import EXAMPLES, Seed, load_seeds, mutate


@dataclass
class Outcome:
    kind: str  # ok, clean, uncaught, wrong, hang
    target: str
    detail: str = ""
    where: str = ""


class Hang(BaseException):
    """Raised by the bench's alarm when a case runs too long (BaseException: never swallowed)."""


# ----------------------------------------------------------------------- sanity of outputs
def bad_numbers(obj: Any, where: str = "", *, nonneg: Callable[[str], bool]) -> Iterator[str]:
    """Paths of numbers that are NaN/infinite, or negative where ``nonneg(path)`` says so."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from bad_numbers(v, f"{where}.{k}", nonneg=nonneg)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from bad_numbers(v, f"{where}[{i}]", nonneg=nonneg)
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        if isinstance(obj, float) and not math.isfinite(obj):
            yield f"{where}={obj}"
        elif obj < 0 and nonneg(where):
            yield f"{where}={obj}"


def _profile_nonneg(path: str) -> bool:
    """Every number of a profile is a time, size, count or rate (>= 0), except provenance
    text and the signed relative errors of its checks (model − observed) / observed."""
    leaf = path.rsplit(".", 1)[-1]
    return not path.startswith(".provenance") and leaf not in {"error", "error_pct"}


def check_profile(profile: Any) -> list[str]:
    """Problems of a :class:`JobProfile`: non-finite numbers, negative times or sizes."""
    d = profile.model_dump(mode="python")
    problems = list(bad_numbers(d, nonneg=_profile_nonneg))
    if not d["input_bytes"] > 0:
        problems.append(f"input_bytes={d['input_bytes']}")
    for t in d.get("observed") or []:
        if t["finish_ms"] < t["start_ms"]:
            problems.append(f"{t['attempt_id']}: finish before start")
    return problems


def check_prediction(d: Any) -> list[str]:
    """Problems of a what-if/optimize JSON answer: every time, size and count is finite, >= 0."""
    return list(bad_numbers(d, nonneg=lambda p: "change" not in p and "delta" not in p))


# ------------------------------------------------------------------------------- targets
def _reader_targets() -> dict[str, list[tuple[str, Callable[[Path], Any]]]]:
    from mrtune.calibration import load_profile_source
    from mrtune.cli._inputs import load_job
    from mrtune.readers import load_conf, load_history, load_jhist, load_rest_saved, load_rumen
    from mrtune.readers.phase_data import load_phase_data
    from mrtune.readers.swim import iter_swim, parse_swim_line
    from mrtune.readers.task_log import parse_log
    from mrtune.readers.workflow_file import load_profile, load_workflow

    def swim(p: Path) -> list:
        return [parse_swim_line(line, path=str(p), lineno=n) for n, line in iter_swim(p)]

    def profile_of(p: Path) -> Any:
        return load_profile_source(p, find_conf=False)

    def conf_profile(p: Path) -> Any:
        return load_profile_source(_GOOD_JHIST[0], conf=p, find_conf=False)

    def tasklog(p: Path) -> Any:
        from mrtune.readers import safe_io

        return parse_log(safe_io.read_text(p))

    return {
        "jhist": [("load_jhist", load_jhist), ("profile<-jhist", profile_of)],
        "rest": [("load_rest_saved", load_rest_saved), ("profile<-rest", profile_of)],
        "rumen": [("load_rumen", load_rumen), ("load_history", load_history)],
        "conf": [("load_conf", load_conf), ("profile<-conf", conf_profile)],
        "swim": [("swim", swim)],
        "profile": [("load_profile", load_profile), ("load_job", lambda p: load_job(p)[0])],
        "workflow": [("load_workflow", load_workflow)],
        "phase": [("load_phase_data", lambda p: load_phase_data([p]))],
        "tasklog": [("parse_log", tasklog)],
    }


_GOOD_JHIST: list[Path] = []


def _check_result(name: str, result: Any) -> list[str]:
    from mrtune.costmodel import JobProfile

    if isinstance(result, JobProfile):
        return check_profile(result)
    if isinstance(result, tuple) and result and isinstance(result[0], list):  # phase data
        return [
            f"row {i}: duration {r.duration_ms}"
            for i, r in enumerate(result[0])
            if r.duration_ms is not None
            and not (math.isfinite(r.duration_ms) and r.duration_ms >= 0)
        ]
    if name == "swim":
        return [
            f"{r.job_id}: {r}"
            for r in result
            if not all(
                math.isfinite(v) and v >= 0
                for v in (r.map_input_bytes, r.shuffle_bytes, r.reduce_output_bytes)
            )
        ]
    if name == "load_workflow":
        # Hadoop settings may be -1 ("unset", e.g. mapreduce.map.memory.mb); quantities may not
        return list(
            bad_numbers(
                result.model_dump(mode="python"),
                nonneg=lambda p: "defaults" not in p and ".config" not in p,
            )
        )
    return []


def _innermost(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [
        f
        for f in frames
        if "/mrtune/" in f.filename or "/costmodel/" in f.filename or "/optimizer/" in f.filename
    ]
    f = (ours or frames or [None])[-1]
    return f"{Path(f.filename).name}:{f.lineno}" if f is not None else "?"


def run_reader(name: str, fn: Callable[[Path], Any], path: Path) -> Outcome:
    """Call one reader on ``path`` and classify the outcome."""
    from pydantic import ValidationError

    from mrtune.errors import MrtuneError

    try:
        result = fn(path)
    except Hang:
        return Outcome("hang", name)
    except (MrtuneError, ValidationError) as exc:
        text = str(exc).strip()
        if isinstance(exc, MrtuneError) and "\n" in text:
            return Outcome("uncaught", name, "multi-line error: " + text[:120], _innermost(exc))
        return Outcome("clean", name, text[:160])
    except RecursionError as exc:
        return Outcome("uncaught", name, "RecursionError", _innermost(exc))
    except Exception as exc:  # noqa: BLE001 - classifying is the point
        return Outcome(
            "uncaught", name, f"{type(exc).__name__}: {str(exc)[:120]}", _innermost(exc)
        )
    problems = _check_result(name, result)
    if problems:
        return Outcome("wrong", name, "; ".join(problems[:3]))
    return Outcome("ok", name)


# ------------------------------------------------------------------------------ commands
def run_command(args: list[str], *, check_json: bool = False) -> Outcome:
    """Run ``mrtune ARGS`` in-process and classify: exit 0 / 2 with one line / anything else."""
    from typer.testing import CliRunner

    from mrtune.cli import app

    name = " ".join(a for a in args[:1])
    runner = CliRunner()
    try:
        res = runner.invoke(app, args, catch_exceptions=True)
    except Hang:
        return Outcome("hang", name)
    exc = res.exception
    if isinstance(exc, Hang):
        return Outcome("hang", name)
    if exc is not None and not isinstance(exc, SystemExit):
        return Outcome(
            "uncaught", name, f"{type(exc).__name__}: {str(exc)[:120]}", _innermost(exc)
        )
    err = res.stderr.strip()
    if res.exit_code == 2:
        if not err.startswith("error:") or "\n" in err:
            return Outcome("uncaught", name, "exit 2 without one error line: " + err[:160])
        return Outcome("clean", name, err[:160])
    if res.exit_code != 0:
        return Outcome("uncaught", name, f"exit {res.exit_code}: {err[:160]}")
    if check_json:
        try:
            data = json.loads(res.stdout)
        except json.JSONDecodeError as e:
            return Outcome("uncaught", name, f"--format json printed no JSON ({e.msg})")
        problems = check_prediction(data)
        if problems:
            return Outcome("wrong", name, "; ".join(problems[:3]))
    return Outcome("ok", name)


_CALLS = {"profile": 0}


def _command_cases(seed: Seed, path: Path, tmp: Path) -> list[tuple[list[str], bool]]:
    if seed.kind in ("jhist", "rest", "rumen"):
        return [(["profile", str(path), "--format", "json", "-o", str(tmp / "out.json")], False)]
    if seed.kind == "profile":
        _CALLS["profile"] += 1
        cases = [
            (
                ["whatif", str(path), "--set", "mapreduce.task.io.sort.mb=50", "--format", "json"],
                True,
            ),
            (["sweep", str(path), "mapreduce.task.io.sort.mb", "--format", "json"], True),
        ]
        if _CALLS["profile"] % 4 == 1:  # optimize costs seconds: one profile case in four
            cases.append((["optimize", str(path), "--trials", "20", "--format", "json"], True))
        return cases
    if seed.kind == "conf":
        return [(["whatif", str(_GOOD_JHIST[0]), "--conf", str(path), "--format", "json"], True)]
    if seed.kind == "workflow":
        return [(["workflow", str(path), "--format", "json"], False)]
    if seed.kind == "phase":
        return [(["fit", str(path)], False)]
    return []


# ----------------------------------------------------------------------------- campaigns
@dataclass
class Tally:
    counts: dict[str, int] = field(default_factory=dict)
    files: int = 0  # mutated files; each is fed to every reader of its kind (and commands)
    failures: list[tuple[str, str, Outcome]] = field(default_factory=list)  # (seed, mutation, o)
    slowest: tuple[float, str] = (0.0, "")

    def add(self, seed: str, mutation: str, o: Outcome, seconds: float) -> None:
        self.counts[o.kind] = self.counts.get(o.kind, 0) + 1
        if o.kind in ("uncaught", "wrong", "hang"):
            self.failures.append((seed, mutation, o))
        if seconds > self.slowest[0]:
            self.slowest = (seconds, f"{seed} {mutation} {o.target}")

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def campaign(
    n_cases: int,
    *,
    seed: int = 0,
    commands_every: int = 10,
    on_case: Callable[[], None] | None = None,
    after_case: Callable[[], None] | None = None,
    hang_s: float = 20.0,
) -> Tally:
    """``n_cases`` fuzz cases (one mutated file each, fed to every reader of its kind, and
    every ``commands_every``-th case also to the commands), deterministic for a given seed."""
    rng = random.Random(seed)
    seeds = load_seeds()
    if not _GOOD_JHIST:
        from tests.fuzz.mutators import DATA

        _GOOD_JHIST.append(next((DATA / "jhist").glob("job_1526555215992_0001-*.jhist")))
    targets = _reader_targets()
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="mrtune-fuzz-") as d:
        tmp = Path(d)
        shutil.copytree(EXAMPLES / "workflows" / "profiles", tmp / "profiles")
        for case in range(n_cases):
            s = seeds[case % len(seeds)] if case < len(seeds) else rng.choice(seeds)
            mname, data = mutate(s, rng)
            tally.files += 1
            path = tmp / f"case{s.suffix}"
            path.write_bytes(data)
            runs: list[tuple[str, Callable[[], Outcome]]] = [
                (name, (lambda n=name, f=fn, p=path: run_reader(n, f, p)))
                for name, fn in targets[s.kind]
            ]
            if commands_every and case % commands_every == 0:
                runs += [
                    (args[0], (lambda a=args, c=cj: run_command(a, check_json=c)))
                    for args, cj in _command_cases(s, path, tmp)
                ]
            for _, run in runs:
                if on_case:
                    on_case()
                t0 = time.monotonic()
                try:
                    o = run()
                except Hang:
                    o = Outcome("hang", "?")
                finally:
                    if after_case:
                        after_case()
                dt = time.monotonic() - t0
                if dt > hang_s and o.kind != "hang":
                    o = Outcome("hang", o.target, f"{dt:.1f} s")
                tally.add(s.name, mname, o, dt)
    return tally


def report(t: Tally, out: Any = sys.stdout) -> None:
    """Print the tally: counts, uncaught by type and location, wrong answers, hangs."""
    print(f"mutated files: {t.files}; reader and command runs: {t.total}", file=out)
    for k in ("ok", "clean", "uncaught", "wrong", "hang"):
        print(f"  {k:9s} {t.counts.get(k, 0)}", file=out)
    groups: dict[str, int] = {}
    for _, _, o in t.failures:
        key = f"{o.kind} {o.target} {o.detail.split(':')[0][:60]} @ {o.where}"
        groups[key] = groups.get(key, 0) + 1
    for key, n in sorted(groups.items(), key=lambda kv: -kv[1]):
        print(f"  {n:5d} × {key}", file=out)
    for seed, m, o in t.failures[:15]:
        print(f"    e.g. {seed} [{m}] {o.target}: {o.detail[:140]} {o.where}", file=out)
    print(f"slowest case: {t.slowest[0]:.2f} s ({t.slowest[1]})", file=out)
