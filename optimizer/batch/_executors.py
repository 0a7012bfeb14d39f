"""Where chunks of work run: inline, a local process pool, or a Dask distributed cluster.

Every executor has one method, :meth:`map_unordered`, yielding each chunk's result as soon as
it is done (so the driver commits results incrementally and a progress bar moves). The work
functions are the same everywhere (:mod:`mrtune.optimizer.batch._worker`), so results do not depend on
the executor.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Protocol

from mrtune.errors import InputError


class Executor(Protocol):
    """Runs ``fn(chunk, **kwargs)`` for every chunk; yields ``(index, result)`` as they finish."""

    description: str

    def map_unordered(
        self, fn: Callable[..., Any], chunks: Sequence[Any], **kwargs: Any
    ) -> Iterator[tuple[int, Any]]: ...

    def close(self) -> None: ...


class InlineExecutor:
    """In this process, one chunk after another (``--workers 1``; tests; debugging)."""

    description = "inline (1 worker)"

    def map_unordered(
        self, fn: Callable[..., Any], chunks: Sequence[Any], **kwargs: Any
    ) -> Iterator[tuple[int, Any]]:
        for i, chunk in enumerate(chunks):
            yield i, fn(chunk, **kwargs)

    def close(self) -> None:
        return None


class LocalPoolExecutor:
    """A pool of worker processes on this machine.

    Workers start from a *forkserver* that has already imported the tuner (numpy, pydantic and
    the cost model are imported once, not once per worker), and forking from that clean server
    is safe even when the driver runs threads (a Dask client, a progress bar). At most
    ``2 × workers`` chunks are in flight, so a large catalog is not pickled all at once.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.description = f"local process pool ({workers} workers)"
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["mrtune.optimizer.batch._worker"])
        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx)

    def map_unordered(
        self, fn: Callable[..., Any], chunks: Sequence[Any], **kwargs: Any
    ) -> Iterator[tuple[int, Any]]:
        pending: dict[Future[Any], int] = {}
        nxt = 0
        try:
            while nxt < len(chunks) or pending:
                while nxt < len(chunks) and len(pending) < 2 * self.workers:
                    pending[self.pool.submit(fn, chunks[nxt], **kwargs)] = nxt
                    nxt += 1
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    i = pending.pop(fut)
                    yield i, fut.result()
        finally:
            for fut in pending:
                fut.cancel()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor:
    """Chunks as tasks on a Dask distributed cluster (``--scheduler tcp://host:8786``).

    Workers must be able to import mrtune, and to read the ``.jhist`` files of the catalog at
    the same paths (SWIM rows and JSONL profiles travel with the tasks).
    """

    def __init__(self, address: str) -> None:
        try:
            from distributed import Client
        except ImportError:  # dask is the 'distributed' extra, not a core dependency
            raise InputError(
                "a Dask scheduler needs the 'distributed' extra, which is not installed: "
                "pip install 'mrtune[distributed]'",
                field="scheduler",
            ) from None
        try:
            self.client = Client(address, timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise InputError(
                f"cannot connect to the Dask scheduler ({exc})",
                field="scheduler",
                value=address,
                allowed="tcp://host:port of a running dask scheduler",
            ) from None
        n = len(self.client.scheduler_info().get("workers", {}))
        self.description = f"Dask cluster at {address} ({n} workers)"

    def map_unordered(
        self, fn: Callable[..., Any], chunks: Sequence[Any], **kwargs: Any
    ) -> Iterator[tuple[int, Any]]:
        from distributed import as_completed

        if not chunks:
            return
        futures = self.client.map(fn, list(chunks), pure=False, **kwargs)
        index = {f.key: i for i, f in enumerate(futures)}
        try:
            for fut in as_completed(futures):
                result = fut.result()
                yield index[fut.key], result
                fut.release()
        finally:
            self.client.cancel([f for f in futures if not f.done()])

    def close(self) -> None:
        self.client.close()


def make_executor(workers: int | None = None, scheduler: str | None = None) -> Executor:
    """The executor for ``--workers N`` / ``--scheduler URL`` (default: one worker per CPU)."""
    if scheduler:
        return DaskExecutor(scheduler)
    n = workers if workers is not None else (os.cpu_count() or 1)
    if n < 1:
        raise InputError("must be at least 1", field="workers", value=n)
    return InlineExecutor() if n == 1 else LocalPoolExecutor(n)
