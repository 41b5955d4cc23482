"""An op's float64 reference: the function a spec's (or its cases file's) `reference:` names, called
on a case's inputs in float64, its outputs lined up with the wrapper's.

The function takes the op's inputs positionally and its attrs by keyword, as the wrapper does
(floating arrays converted to float64; others as they are), and returns one array (an op of one
output), a tuple in the spec's output order, or a dict by output name (outputs it leaves out are not
compared)."""

from __future__ import annotations

import importlib
from collections import namedtuple
from collections.abc import Callable
from typing import Any

import numpy as np

from codegen.inputs import Case
from codegen.model import RuntimeRef


class ReferenceError(Exception):
    """A reference that cannot be imported or called, or whose result does not fit the op's outputs."""


def load_reference(ref: RuntimeRef) -> Callable[..., Any]:
    """The function `ref` names, imported (the project's root is on sys.path: verify puts it there)."""
    where = f"{ref.loc.file}:{ref.loc.line}: reference {ref.text()}"
    try:
        module = importlib.import_module(ref.module)
    except Exception as exc:  # noqa: BLE001 -- any failure to import is the spec's reference's
        raise ReferenceError(f"{where}: cannot import {ref.module}: {type(exc).__name__}: {exc}") from None
    fn = getattr(module, ref.function, None)
    if not callable(fn):
        raise ReferenceError(f"{where}: {ref.module} has no function {ref.function!r}")
    return fn  # type: ignore[no-any-return]


def _float64(value: Any) -> Any:
    if isinstance(value, list):
        return [_float64(v) for v in value]
    if isinstance(value, np.ndarray) and (value.dtype.kind == "f" or value.dtype.name == "bfloat16"):
        return np.asarray(value, dtype=np.float64)
    return value


def reference_outputs(fn: Callable[..., Any], case: Case, fields: tuple[str, ...]) -> tuple[Any, Any]:
    """(the reference's outputs, the names it gives) as a tuple type with those fields only; the
    caller compares them with the same fields of the wrapper's result."""
    result = fn(*(_float64(a) for a in case.args), **{k: _float64(v) for k, v in case.kwargs.items()})
    if isinstance(result, dict):
        unknown = sorted(set(result) - set(fields))
        if unknown:
            raise ReferenceError(f"the reference returned outputs {unknown}; the op's are {list(fields)}")
        given = {name: result[name] for name in fields if name in result}
    elif isinstance(result, tuple) and not hasattr(result, "_fields"):
        if len(result) != len(fields):
            raise ReferenceError(f"the reference returned {len(result)} values; the op has {len(fields)} outputs "
                                 f"{list(fields)} (return a dict to give only some)")
        given = dict(zip(fields, result, strict=True))
    elif hasattr(result, "_fields"):
        given = {name: getattr(result, name) for name in fields if name in result._fields}
    else:
        given = {fields[0]: result}
    kind = namedtuple("Reference", list(given))  # type: ignore[misc]
    return kind(*(np.asarray(v, dtype=np.float64) for v in given.values())), tuple(given)
