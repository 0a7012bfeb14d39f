"""Where an Optuna strategy keeps its study, and opening it (DESIGN decision 7).

A study lives in memory unless a storage URL is given (any SQLAlchemy URL, e.g. PostgreSQL when
several machines share one study, or a SQLite file path). A stored study is labelled with its
knobs, job, strategy, objective and metric names, so optuna-dashboard shows what it holds, and
resuming refuses a study that was run over other knobs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import optuna
from optuna.trial import TrialState

from mrtune.optimizer.strategies._base import StudyError

#: Stored with every study: trials hold the knobs' own values (codec names, booleans), not the
#: integer codes of studies written before; a study without it cannot be resumed.
PARAM_FORMAT = "knob-values-1"


def storage_url(storage: str) -> str:
    """A SQLAlchemy URL as is; anything else is a SQLite file path."""
    return storage if "://" in storage else f"sqlite:///{storage}"


@dataclass(frozen=True)
class StudyStorage:
    """Where an Optuna strategy keeps its study: ``url`` ``None`` = in memory.

    ``study_name`` ``None`` derives ``mrtune-<job>-<strategy>-<objective>`` (with the next free
    ``-2``, ``-3`` … suffix when that name is stored, so re-runs never fail); ``resume``
    continues the named (or newest default-named) stored study.
    """

    url: str | None = None
    study_name: str | None = None
    resume: bool = False

    def __post_init__(self) -> None:
        if self.url is not None:
            object.__setattr__(self, "url", storage_url(self.url))
            check_storage(self.url)
        if self.resume and self.url is None:
            raise StudyError("resume needs a storage that holds the study (a storage URL)")


#: What ``--storage`` may be, for error lines.
STORAGE_ALLOWED = "a SQLite file path in a writable directory, or a SQLAlchemy database URL"


def check_storage(url: str) -> None:
    """:class:`StudyError` when ``url`` cannot hold a study, before any trial is run.

    Optuna opens the storage only when the search starts; a directory that does not exist, a
    file that is not a SQLite database or an unknown URL scheme then surfaced as a SQLAlchemy
    exception mid-run. A SQLite file that does not exist yet is not created here: its directory
    must exist and be writable (SQLite creates the file on first use).
    """
    import os

    import sqlalchemy
    from sqlalchemy.engine import make_url

    try:
        parsed = make_url(url)
    except (sqlalchemy.exc.ArgumentError, ValueError) as exc:
        raise StudyError(_storage_line(url, exc)) from None
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        path = parsed.database
        assert path is not None
        if not os.path.exists(path):
            parent = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
                raise StudyError(
                    _storage_line(url, f"directory {parent} does not exist or is not writable")
                )
            return
        if os.path.isdir(path):
            raise StudyError(_storage_line(url, "it is a directory"))
    try:
        engine = sqlalchemy.create_engine(url)
        try:
            with engine.connect() as conn:
                if engine.dialect.name == "sqlite":  # a file that is no database fails here
                    conn.execute(sqlalchemy.text("SELECT count(*) FROM sqlite_master"))
        finally:
            engine.dispose()
    except (sqlalchemy.exc.SQLAlchemyError, ImportError, OSError, ValueError) as exc:
        raise StudyError(_storage_line(url, exc)) from None


def _storage_line(url: str, why: object) -> str:
    if isinstance(why, BaseException):
        text = str(getattr(why, "orig", None) or why).splitlines()[0] if str(why) else ""
        why = f"{type(why).__name__}: {text}" if text else type(why).__name__
    return f"cannot open the study storage {url!r} ({why}); allowed: {STORAGE_ALLOWED}"


def open_study(
    cfg: StudyStorage,
    *,
    default_name: str,
    directions: list[str],
    sampler: optuna.samplers.BaseSampler,
    knobs: Sequence[str],
    labels: Mapping[str, str],
    metric_names: list[str],
) -> optuna.Study:
    """Create (or with ``resume`` load, creating it if absent) the study.

    Without ``resume`` an existing study of the default name is not overwritten: the new
    study gets the next free ``-2``, ``-3`` … suffix; ``resume`` continues the newest one.
    A name the caller gave explicitly must be new unless ``resume`` is set.
    """
    name = cfg.study_name or default_name
    if cfg.url is None:
        study = optuna.create_study(study_name=name, directions=directions, sampler=sampler)
        return _label(study, knobs, labels, metric_names)
    url = cfg.url
    existing = set(optuna.get_all_study_names(url)) if _db_exists(url) else set()
    if not cfg.study_name:
        taken = [n for n in existing if n == name or _is_suffixed(n, name)]
        if taken:
            newest = max(taken, key=lambda n: _suffix(n, name))
            name = newest if cfg.resume else f"{name}-{_suffix(newest, name) + 1}"
    elif name in existing and not cfg.resume:
        raise StudyError(
            f"study {name!r} already exists in {url}; resume it or choose another study name"
        )
    study = optuna.create_study(
        study_name=name,
        storage=url,
        directions=directions,
        sampler=sampler,
        load_if_exists=cfg.resume,
    )
    stored = study.user_attrs.get("knobs")
    if stored is None:
        return _label(study, knobs, labels, metric_names)
    if study.user_attrs.get("param_format") != PARAM_FORMAT:
        raise StudyError(
            f"study {name!r} stores encoded parameters (an older mrtune); start a new study"
        )
    if list(stored) != list(knobs):
        raise StudyError(
            f"study {name!r} was run over other knobs ({len(stored)} stored, "
            f"{len(knobs)} now); resume it with the same search space"
        )
    return study


def _label(
    study: optuna.Study,
    knobs: Sequence[str],
    labels: Mapping[str, str],
    metric_names: list[str],
) -> optuna.Study:
    """What a dashboard shows beside the trials: knobs, job, strategy, metric names."""
    study.set_user_attr("knobs", list(knobs))
    study.set_user_attr("param_format", PARAM_FORMAT)
    for key, value in labels.items():
        study.set_user_attr(key, value)
    study.set_metric_names(metric_names)
    return study


def _db_exists(url: str) -> bool:
    if url.startswith("sqlite:///"):
        import os

        path = url[len("sqlite:///") :]
        return path == ":memory:" or os.path.exists(path)
    return True


def _is_suffixed(candidate: str, base: str) -> bool:
    tail = candidate[len(base) :]
    return candidate.startswith(base + "-") and tail[1:].isdigit()


def _suffix(candidate: str, base: str) -> int:
    return int(candidate[len(base) + 1 :]) if _is_suffixed(candidate, base) else 1


def completed_trials(study: optuna.Study) -> int:
    return sum(1 for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE)


# ---------------------------------------------------------------------- TPE (default)
