r"""Where the arrays of gradient descent live: NumPy on the CPU, or PyTorch or CuPy on a GPU.

The optimiser loop :func:`solvable.gd.run_gd` and the objectives of the models are written against the Python
array API standard (2023.12): they take the namespace ``xp`` of their arrays from
``array_api_compat.array_namespace`` and call only its functions, so that the same lines run on NumPy arrays,
on PyTorch or CuPy arrays on a GPU, and on the reference implementation ``array_api_strict`` (which the tests
use to prove that no NumPy-only call is left). This module is the plumbing around them:

- :func:`resolve` turns a ``device`` argument (``"cpu"``, ``"cuda"`` or ``"auto"``, :data:`DEVICES`) into a
  namespace and a device;
- :func:`asarray` moves a NumPy array there, :func:`to_numpy` brings any array back to the host;
- :func:`gpu_available` says whether ``"cuda"`` can be served here.

PyTorch and CuPy are optional: they are imported only when a GPU is asked for (``"cuda"``, ``"auto"``), never
when this module is imported.

References
----------
The Consortium for Python Data API Standards, "Python array API standard", version 2023.12,
https://data-apis.org/array-api/2023.12/; the ``array-api-compat`` package (``array_namespace``, ``device``,
``to_device``).
"""

from __future__ import annotations

import array_api_compat
import array_api_compat.numpy as _numpy_namespace
import numpy as np

from .domains import Domain, choice, declare, interface, optional, unchecked
from .errors import InvalidParameterError

__all__ = ["DEVICES", "asarray", "gpu_available", "is_non_numpy_array", "namespace", "resolve", "to_numpy"]

#: The values of a ``device`` argument: NumPy on the CPU, a CUDA GPU (through PyTorch, else CuPy), or the GPU
#: where one is available and the CPU otherwise.
DEVICES = ("cpu", "cuda", "auto")


def _cuda():
    """``(xp, device)`` of the first GPU library that works here (PyTorch with CUDA, then CuPy), or the reason
    why none does, as a string."""
    reasons = []
    try:
        import torch
    except ImportError:
        reasons.append("PyTorch is not installed")
    else:
        if torch.cuda.is_available():
            import array_api_compat.torch as xp

            return xp, torch.device("cuda")
        reasons.append(f"PyTorch {torch.__version__} sees no CUDA device")
    try:
        import cupy
    except ImportError:
        reasons.append("CuPy is not installed")
    else:
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except RuntimeError as exc:  # CuPy's CUDARuntimeError (a RuntimeError) without a driver
            count, why = 0, f" ({type(exc).__name__})"
        else:
            why = ""
        if count > 0:
            import array_api_compat.cupy as xp

            return xp, cupy.cuda.Device(0)
        reasons.append(f"CuPy sees no GPU{why}")
    return "; ".join(reasons)


def _check_dtype(name, dtype):
    if dtype is None or isinstance(dtype, (bool, np.bool_)):
        raise InvalidParameterError(f"{name} must be numpy.float32 or numpy.float64, got {dtype!r}")
    try:
        dt = np.dtype(dtype)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{name} must be numpy.float32 or numpy.float64, got {dtype!r:.60}"
        ) from None
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise InvalidParameterError(f"{name} must be numpy.float32 or numpy.float64, got {dt}")
    return dt


#: A floating-point type of gradient descent's arithmetic (``gd.DTYPE`` is this domain).
DTYPE = Domain("numpy.float32 or numpy.float64", _check_dtype, "dtype")
_DTYPE = optional(DTYPE, "the type of x")


def _host_numbers(name, value):
    """``value`` as a NumPy array of real numbers (its own type kept), or an error naming ``name``."""
    try:
        a = np.asarray(value)
    except (ValueError, TypeError) as e:  # a ragged list, an object NumPy cannot hold in one array
        raise InvalidParameterError(
            f"{name} must be an array of real numbers, got {type(value).__name__}: {e}"
        ) from None
    if a.dtype.kind not in "iuf":
        raise InvalidParameterError(f"{name} must be an array of real numbers, got dtype {a.dtype}")
    return a


#: A host array of real numbers (integers or floats, any shape): what :func:`asarray` moves to a device.
HOST_NUMBERS = Domain(
    "an array of real numbers (NumPy, or anything numpy.asarray reads)",
    _host_numbers,
    "array",
    (None,),
    finite=False,
)
_ANYTHING = unchecked("any object: the function says what it is")


@declare()
def gpu_available() -> bool:
    """Whether ``device="cuda"`` can run here.

    Returns
    -------
    bool
        True when PyTorch sees a CUDA device or CuPy sees a GPU (either is imported to find out).
    """
    return not isinstance(_cuda(), str)


@declare(device=choice(*DEVICES))
def resolve(device: str):
    """The array namespace and the device that a ``device`` argument names.

    Parameters
    ----------
    device : {"cpu", "cuda", "auto"}
        ``"cpu"``: NumPy. ``"cuda"``: PyTorch on its CUDA device where PyTorch with CUDA is installed, else CuPy
        on its first GPU. ``"auto"``: ``"cuda"`` where it is available, ``"cpu"`` otherwise.

    Returns
    -------
    xp : module
        The array-API namespace (``array_api_compat``'s wrapper of NumPy, PyTorch or CuPy).
    dev : object
        The device to create arrays on (``"cpu"``, a ``torch.device`` or a ``cupy.cuda.Device``).

    Raises
    ------
    TypeError
        If ``device`` is not a string.
    ValueError
        If ``device`` is not one of :data:`DEVICES`, or is ``"cuda"`` where neither PyTorch with CUDA nor CuPy
        with a GPU is importable (the message says what is missing).

    Notes
    -----
    The NumPy namespace is ``array_api_compat.numpy``, whose functions return plain NumPy arrays and call the
    same NumPy routines as NumPy's own names: a run on ``"cpu"`` gives the numbers NumPy gives.
    """
    if device != "cpu":
        found = _cuda()
        if not isinstance(found, str):
            return found
        if device == "cuda":
            raise InvalidParameterError(
                f"device='cuda' needs PyTorch with CUDA or CuPy with a GPU, and neither is usable "
                f"here: {found}; use device='cpu' (or 'auto')"
            )
    return _numpy_namespace, "cpu"


@declare()
def namespace(*arrays):
    """The array-API namespace of ``arrays`` (``array_api_compat.array_namespace``).

    Parameters
    ----------
    *arrays : arrays
        Arrays of one library (NumPy, PyTorch, CuPy, ``array_api_strict``, ...).

    Returns
    -------
    module
        Their namespace; ``array_api_compat.numpy`` for NumPy arrays.

    Raises
    ------
    TypeError
        If the arrays belong to different libraries or to none.
    """
    if all(type(a) is np.ndarray for a in arrays):  # the common case, without array_namespace's checks
        return _numpy_namespace
    return array_api_compat.array_namespace(*arrays)


@declare(x=_ANYTHING)
def is_non_numpy_array(x) -> bool:
    """Whether ``x`` is an array of an array-API library other than NumPy (PyTorch, CuPy, ``array_api_strict``).

    Parameters
    ----------
    x : object
        Anything.

    Returns
    -------
    bool
        True for such an array; False for NumPy arrays and scalars, lists and other objects.
    """
    return not isinstance(x, (np.ndarray, np.generic)) and array_api_compat.is_array_api_obj(x)


@declare(
    x=HOST_NUMBERS,
    xp=interface("asarray"),
    dev=unchecked("a device of xp (as resolve returns it): xp.asarray checks it"),
    dtype=_DTYPE,
)
def asarray(x, xp, dev, dtype=None):
    """A host (NumPy) array as an array of the namespace ``xp`` on the device ``dev``.

    Parameters
    ----------
    x : numpy.ndarray
        The array on the host.
    xp : module
        The namespace, as :func:`resolve` returns it.
    dev : object
        The device, as :func:`resolve` returns it.
    dtype : {numpy.float32, numpy.float64} or None, optional
        Floating type of the result (the namespace's type of that name); ``None`` keeps ``x``'s type.

    Returns
    -------
    array
        ``x`` in ``xp`` on ``dev``. NumPy on ``"cpu"`` returns ``x`` itself when no conversion is needed.

    Raises
    ------
    ValueError
        If ``x`` is not an array of real numbers (a ragged list, strings, complex numbers) or ``dtype`` is not
        float32 or float64.
    """
    if dtype is not None:
        return xp.asarray(x, dtype=getattr(xp, dtype.name), device=dev)
    return xp.asarray(x, device=dev)


@declare(x=unchecked("any array of any library, or anything numpy.asarray reads"))
def to_numpy(x) -> np.ndarray:
    """Any array, on any device, as a NumPy array on the host.

    Parameters
    ----------
    x : array or array_like
        A NumPy, PyTorch, CuPy or ``array_api_strict`` array (or anything ``numpy.asarray`` reads).

    Returns
    -------
    numpy.ndarray
        NumPy input as it is (no copy); any other array as a copy on the host.

    Raises
    ------
    ValueError
        If ``x`` is something NumPy cannot read as one array (a ragged list).

    Notes
    -----
    Arrays on the CPU cross by DLPack (``numpy.from_dlpack``); arrays on a GPU are first copied to the host with
    ``array_api_compat.to_device(x, "cpu")``.
    """
    if isinstance(x, (np.ndarray, np.generic)) or not array_api_compat.is_array_api_obj(x):
        try:
            return np.asarray(x)
        except (ValueError, TypeError) as e:  # a ragged list, an object NumPy cannot hold in one array
            raise InvalidParameterError(f"x must be an array, got {type(x).__name__}: {e}") from None
    try:
        return np.array(np.from_dlpack(x), copy=True)
    except (BufferError, RuntimeError, TypeError, ValueError, AttributeError):
        host = array_api_compat.to_device(x, "cpu")
    if isinstance(host, np.ndarray):
        return host
    return np.array(np.from_dlpack(host), copy=True)
