"""Independent random streams for the purposes of one seed: the data, an algorithm's start, its own draws.

A user who passes the same seed to a sampler and to an algorithm (``sample(..., rng=0)`` then
``gd(data, rng=0)``) must not get the same numbers twice: the first student would be the teacher. Every
function of the library that draws asks :func:`stream` for the generator of its purpose:

- ``"data"`` (the samplers): exactly ``numpy.random.default_rng(seed)``, so that every data set drawn from a
  seed is the one SPEC 7 gives;
- any other purpose (``"init"`` for the start of an algorithm, ``"algorithm"`` for draws during a run, ...):
  a stream spawned from the seed's ``SeedSequence`` with a spawn key derived from the purpose's name, stable
  across runs, processes and platforms (a SHA-256 digest, not Python's salted ``hash``).

A ``numpy.random.Generator`` passed in is used as it is, whatever the purpose: its state advances with every
draw, so the draws of a sampler and of an algorithm that share it are already different numbers.

References
----------
Scientific Python SPEC 7, "Seeding pseudo-random number generation"; NumPy, "Parallel random number generation"
(``SeedSequence`` spawning).
"""

from __future__ import annotations

import hashlib

import numpy as np

from .errors import InvalidParameterError
from .validation import check_rng

__all__ = ["DATA", "purpose_key", "stream"]

#: The purpose whose stream is exactly ``numpy.random.default_rng(seed)``: the draws of the samplers.
DATA = "data"


def purpose_key(purpose: str) -> int:
    """The spawn-key word of a purpose: the first 32 bits of the SHA-256 digest of its name.

    Parameters
    ----------
    purpose : str
        A non-empty name (``"init"``, ``"algorithm"``, ...).

    Returns
    -------
    int
        An integer in ``[0, 2**32)``, the same on every run and platform.

    Raises
    ------
    ValueError
        If ``purpose`` is not a non-empty string.
    """
    if not isinstance(purpose, str) or not purpose:
        raise InvalidParameterError(f"purpose must be a non-empty string, got {purpose!r:.40}")
    digest = hashlib.sha256(f"solvable.streams:{purpose}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


def stream(rng, purpose: str, name: str = "rng") -> np.random.Generator:
    """The generator a function draws from for one ``purpose`` of its ``rng`` argument.

    Parameters
    ----------
    rng : numpy.random.Generator, int, numpy.random.SeedSequence or numpy.random.BitGenerator
        The user's ``rng`` (SPEC 7, :func:`solvable.validation.check_rng`). A generator is returned as it is.
    purpose : str
        ``"data"`` for the draws of a sampler, another name (``"init"``, ``"algorithm"``) for the draws of an
        algorithm.
    name : str, optional
        The parameter's name, for the messages.

    Returns
    -------
    numpy.random.Generator
        For a generator: the generator itself. For a seed: ``numpy.random.default_rng(seed)`` when
        ``purpose == "data"``, otherwise a generator on the ``SeedSequence`` of the seed extended by the spawn key
        :func:`purpose_key` of ``purpose``, independent of the data's stream.

    Raises
    ------
    TypeError
        If ``rng`` is not one of the accepted types (``None`` included), or is a bit generator without a seed
        sequence (one built from a bare state) for another purpose than ``"data"``.
    ValueError
        If ``rng`` is a negative integer or ``purpose`` is not a non-empty string.

    Notes
    -----
    An integer seed ``s`` gives the seed sequence ``SeedSequence(s)``; a bit generator gives the seed sequence it
    was built from (for another purpose than ``"data"``; the data's stream is the bit generator itself). The
    stream of purpose ``p`` is ``SeedSequence(entropy, spawn_key=spawn_key + (purpose_key(p),))``: a child of the
    seed's sequence that ``SeedSequence.spawn`` does not give for fewer than about ``4e9`` children.
    """
    key = purpose_key(purpose)
    if isinstance(rng, np.random.Generator):
        return rng
    if purpose == DATA:
        return check_rng(rng, name)
    check_rng(rng, name)  # the same domain and messages as every rng argument
    if isinstance(rng, np.random.BitGenerator):
        seq = rng.seed_seq
    elif isinstance(rng, np.random.SeedSequence):
        seq = rng
    else:
        seq = np.random.SeedSequence(int(rng))
    if not isinstance(seq, np.random.SeedSequence):  # a bit generator built from a bare seed state
        raise InvalidParameterError(
            f"{name}: a bit generator without a SeedSequence cannot give independent streams; "
            "pass a seed, a SeedSequence or a Generator"
        )
    child = np.random.SeedSequence(seq.entropy, spawn_key=(*seq.spawn_key, key), pool_size=seq.pool_size)
    return np.random.default_rng(child)
