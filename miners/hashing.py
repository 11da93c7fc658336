"""Stable hashing: the project's only source of "randomness".

Split assignment, shard choice, subsampling and balanced sampling all use a
hash of a stable key instead of a random draw, so the same input and options
give the same records and shards on every machine, process and runner
(Python's own `hash()` is salted per process).
"""
import hashlib


def stable_hash(key: str, salt: str = "") -> int:
    """A 64-bit hash that is the same on every machine and Python process."""
    return int.from_bytes(hashlib.blake2b(f"{salt}\x00{key}".encode("utf-8"), digest_size=8).digest(), "big")


def stable_fraction(key: str, salt: str = "") -> float:
    """Deterministic number in [0, 1) from a key: seeded sampling without RNG state."""
    return stable_hash(key, salt) / 2.0 ** 64
