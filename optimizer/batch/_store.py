"""Incremental results of a batch in SQLite (``OUTDIR/batch.sqlite`` by default).

Each finished job is committed as soon as its chunk comes back from a worker, so a batch that is
killed loses at most the chunks in flight; ``--resume`` reads the finished keys and schedules
only the others. The settings' fingerprint (cluster, objective, base profile, tuner version) is
stored once: resuming with different settings is refused instead of mixing results. SQLite is
embedded (nothing to start) and the WAL journal keeps a reader (a progress monitor, a test) from
blocking the writer.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mrtune.errors import InputError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS jobs (
    key TEXT PRIMARY KEY,
    job_id TEXT,
    status TEXT NOT NULL,
    data TEXT NOT NULL
);
"""


class ResultStore:
    """Finished jobs (``key`` → result dict) and batch metadata, in one SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(str(self.path))
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.executescript(_SCHEMA)
        self.conn.commit()

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def prepare(self, fingerprint: str, *, resume: bool, overwrite: bool) -> None:
        """Check that the stored results may be used with ``fingerprint`` (or clear them).

        Raises:
            InputError: results of an earlier batch exist and neither ``resume`` nor
                ``overwrite`` was asked for, or they were computed with other settings.
        """
        stored = self.get_meta("fingerprint")
        has_jobs = self.count() > 0
        if overwrite or (stored is None and not has_jobs):
            self.clear()
            self.set_meta("fingerprint", fingerprint)
            return
        if not resume:
            raise InputError(
                f"holds {self.count()} results of an earlier batch; pass --resume to continue "
                "it (finished jobs are not recomputed) or --overwrite to start over",
                path=str(self.path),
            )
        if stored != fingerprint:
            raise InputError(
                "the stored results were computed with other settings (cluster, objective, "
                "base profile or tuner version); resume with the same settings or --overwrite",
                path=str(self.path),
            )

    def clear(self) -> None:
        self.conn.execute("DELETE FROM jobs")
        self.conn.execute("DELETE FROM meta")
        self.conn.commit()

    # ------------------------------------------------------------------ meta
    def get_meta(self, name: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, name: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(name, value) VALUES(?, ?) "
            "ON CONFLICT(name) DO UPDATE SET value = excluded.value",
            (name, value),
        )
        self.conn.commit()

    # ------------------------------------------------------------------ jobs
    def add(self, results: Iterable[dict[str, Any]]) -> int:
        """Commit finished jobs (one transaction); returns how many."""
        rows = [
            (r["key"], r.get("job_id", ""), r["status"], json.dumps(r, allow_nan=False))
            for r in results
        ]
        self.conn.executemany(
            "INSERT OR REPLACE INTO jobs(key, job_id, status, data) VALUES(?, ?, ?, ?)", rows
        )
        self.conn.commit()
        return len(rows)

    def done_keys(self) -> set[str]:
        return {k for (k,) in self.conn.execute("SELECT key FROM jobs")}

    def count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0])

    def results(self, keys: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
        """Stored results (all, or those of ``keys``), by key."""
        out = {k: json.loads(d) for k, d in self.conn.execute("SELECT key, data FROM jobs")}
        if keys is None:
            return out
        return {k: out[k] for k in keys if k in out}
