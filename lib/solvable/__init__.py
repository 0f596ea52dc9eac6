"""solvable: executable companion of the lectures on solvable models of learning.

One approximate-message-passing / state-evolution engine carries every model of the course:
a signal (a vector ``w`` or a matrix ``S``) seen through a linear map, then an output channel.

The layers (which module holds what and which may import which) are drawn in ``lib/solvable/README.md``:
views (``plotting``, ``widgets``) on top; the models (``glm`` with ``erm`` and ``gardner``, ``bsr``, ``quadratic``,
``attention``, ``smi``), which never import one another; the pieces two models share (``matrix_sensing``,
``regression``, ``experiments``); the engine (``amp``: GAMP, the fixed-point driver and the result types; ``gd``:
the optimiser loop); the toolboxes (``priors``, ``channels``, ``spectra``, ``rie``, ``metrics``, ``integration``);
the base (``validation``, ``errors``, ``config``, ``dataset``, ``results``). The book's API reference documents
every public name of every module, from these docstrings.
"""

__version__ = "0.1.0"
