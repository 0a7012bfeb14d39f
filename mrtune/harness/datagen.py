"""Deterministic input data for the project's jobs (same seed → same bytes).

* :func:`write_records`: TeraGen-style fixed 100-byte records (10-byte key, 90-byte value),
  printable ASCII, uniform random keys — the input of the sort and selectivity jobs.
* :func:`write_zipf_text`: lines of words drawn from a Zipf law over a fixed vocabulary — the
  input of WordCount, so that the combiner's reduction behaves like natural text (few words
  carry most of the occurrences; DESIGN.md decision 4).

Generated inputs are cached under ``<cache>/data/<name>/`` and reused by later runs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from mrtune.harness.jars import default_cache_dir

RECORD_BYTES = 100
KEY_BYTES = 10
_CHUNK_RECORDS = 1 << 17


def write_records(path: Path, size_bytes: int, seed: int = 0) -> int:
    """Write ``floor(size_bytes / 100)`` records to ``path``; return the record count.

    Key and value bytes are uniform over printable ASCII 33..126, so the key order is a
    uniform random permutation and hash and total-order partitions are balanced.
    """
    n = size_bytes // RECORD_BYTES
    rng = np.random.default_rng(seed)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as out:
        done = 0
        while done < n:
            k = min(_CHUNK_RECORDS, n - done)
            out.write(rng.integers(33, 127, size=(k, RECORD_BYTES), dtype=np.uint8).tobytes())
            done += k
    tmp.replace(path)
    return n


def _vocabulary(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` distinct lowercase words of 2–12 letters (bytes objects)."""
    words: list[bytes] = []
    seen: set[bytes] = set()
    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)
    while len(words) < size:
        lengths = rng.integers(2, 13, size=size)
        raw = letters[rng.integers(0, 26, size=(size, 12))]
        for length, row in zip(lengths, raw, strict=True):
            w = row[:length].tobytes()
            if w not in seen:
                seen.add(w)
                words.append(w)
                if len(words) == size:
                    break
    return np.array(words, dtype=object)


def write_zipf_text(
    path: Path,
    size_bytes: int,
    seed: int = 0,
    vocabulary: int = 100_000,
    exponent: float = 1.1,
    words_per_line: int = 12,
) -> int:
    """Write Zipf-distributed text of at most ``size_bytes`` bytes; return the word count.

    Word ``k`` (1-based rank) has probability ∝ ``k ** -exponent`` over a vocabulary of
    ``vocabulary`` words; lines hold ``words_per_line`` words separated by single spaces.
    Writing stops at the last full line that fits.
    """
    rng = np.random.default_rng(seed)
    vocab = _vocabulary(rng, vocabulary)
    weights = np.arange(1, vocabulary + 1, dtype=float) ** -exponent
    cdf = np.cumsum(weights / weights.sum())
    written = 0
    n_words = 0
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as out:
        while written < size_bytes:
            idx = np.searchsorted(cdf, rng.random(words_per_line * 8192), side="right")
            idx = np.minimum(idx, vocabulary - 1).reshape(-1, words_per_line)
            lines = [b" ".join(row) + b"\n" for row in vocab[idx]]
            for line in lines:
                if written + len(line) > size_bytes:
                    written = size_bytes
                    break
                out.write(line)
                written += len(line)
                n_words += words_per_line
    tmp.replace(path)
    return n_words


def input_kind_for_job(job: str) -> str:
    """``text`` for WordCount and postings, ``records`` for sort and selectivity."""
    return "text" if job in ("wordcount", "postings") else "records"


def ensure_input(
    kind: str, size_mib: float, seed: int = 0, cache_dir: Path | None = None
) -> tuple[Path, dict]:
    """Return (input folder, description) for a cached generated input, creating it if needed.

    The folder holds one file ``part-00000`` and a ``meta.json`` with the generator's
    parameters and the file's size and record (or word) count.
    """
    if kind not in ("text", "records"):
        raise ValueError(f"unknown input kind {kind!r}")
    size_bytes = int(size_mib * (1 << 20))
    root = (cache_dir or default_cache_dir()) / "data" / f"{kind}-{size_bytes}B-seed{seed}"
    meta_path = root / "meta.json"
    if meta_path.is_file():
        return root / "input", json.loads(meta_path.read_text())
    (root / "input").mkdir(parents=True, exist_ok=True)
    data = root / "input" / "part-00000"
    if kind == "records":
        count = write_records(data, size_bytes, seed)
        meta = {"kind": kind, "seed": seed, "records": count}
    else:
        count = write_zipf_text(data, size_bytes, seed)
        meta = {
            "kind": kind,
            "seed": seed,
            "words": count,
            "vocabulary": 100_000,
            "zipf_exponent": 1.1,
            "words_per_line": 12,
        }
    meta["bytes"] = os.path.getsize(data)
    meta["requested_mib"] = size_mib
    meta_path.write_text(json.dumps(meta))
    return root / "input", meta


def warm_cache(folder: Path) -> int:
    """Read every file under ``folder`` once so the timed run does not pay for a cold page
    cache (real-hadoop.md: ~2 s on the first run). Returns the bytes read."""
    total = 0
    for f in sorted(folder.rglob("*")):
        if f.is_file():
            with open(f, "rb") as fh:
                while chunk := fh.read(1 << 22):
                    total += len(chunk)
    return total
