# generated from specs/batching/unbatch.yaml by opgen — do not edit (opgen 0.1.0)
"""Unbatch: Reverses the operation of Batch for a single output tensor."""

from __future__ import annotations

from typing import Any, NamedTuple

from codegen.runtime import api as _rt
from codegen.runtime.batching.ops import unbatch as _runtime
from codegen.runtime.scope import Scope

_OP = 'Unbatch'


class UnbatchOutputs(NamedTuple):
    """The outputs of Unbatch, in order."""

    unbatched_tensor: Any
    """T, shape [rows, ...]. The tensor corresponding to this execution (the rows of this call's id)."""


class Unbatch:
    """Reverses the operation of Batch for a single output tensor.

    An instance of Unbatch either receives an empty batched_tensor, in which case it asynchronously
    waits until the values become available from a concurrently running instance of Unbatch with the
    same container and shared_name, or receives a non-empty batched_tensor, in which case it
    finalizes all other concurrently running instances and outputs its own element from the batch.

    The call holding the batch (a non-empty batch_index) splits batched_tensor by the rows (id,
    start, end) of batch_index, dropping the padding, and hands each piece to the call whose id it
    is; every call returns its own rows. A call whose rows do not arrive within timeout_micros fails
    with a DeadlineExceededError; a piece whose caller never asks for it is dropped at the holder's
    deadline. Two waiting calls with one id, or a batch_index naming an id twice or rows outside
    batched_tensor, are errors. An empty shared_name stands for the op's name.

    Create it with `Unbatch.create(scope, batched_tensor, batch_index, id, timeout_micros, *options)`, or call
    `unbatch(...)`. The reference page is generated/docs/batching/unbatch.md.
    """

    OP_NAME = 'Unbatch'
    Outputs = UnbatchOutputs

    class Options:
        """Optional attributes for Unbatch; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def container(self, container: str) -> Unbatch.Options:
            """Sets container (default ''). Container to control resource sharing."""
            self._values['container'] = container
            return self

        def shared_name(self, shared_name: str) -> Unbatch.Options:
            """Sets shared_name (default ''). Instances of Unbatch with the same container and shared_name are assumed to possibly belong to the same batch. If left empty, the op name is used as the shared name."""
            self._values['shared_name'] = shared_name
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"Unbatch.Options({items})"

    @staticmethod
    def container(container: str) -> Unbatch.Options:
        """Options with container set (default '')."""
        return Unbatch.Options().container(container)

    @staticmethod
    def shared_name(shared_name: str) -> Unbatch.Options:
        """Options with shared_name set (default '')."""
        return Unbatch.Options().shared_name(shared_name)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        batched_tensor: Any,
        batch_index: Any,
        id: Any,
        timeout_micros: int,
        *options: Unbatch.Options,
    ) -> Unbatch:
        """Factory method to create a class wrapping a new Unbatch operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            batched_tensor: T, shape [B, ...].
                The possibly transformed output of Batch. The size of the first
                dimension should remain unchanged by the transformations for the
                operation to work.
            batch_index: int64, shape [K, 3].
                The matching batch_index obtained from Batch.
            id: int64, shape [].
                The id scalar emitted by Batch.
            timeout_micros: int, >= 0.
                Maximum amount of time (in microseconds) to wait to receive the batched
                input tensor associated with a given invocation of the op. Any int64
                value works.
            options: Unbatch.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, batched_tensor, batch_index, id,
            timeout_micros,
            _merged.get('container', ''),
            _merged.get('shared_name', ''),
        ))

    def __init__(self, outputs: UnbatchOutputs) -> None:
        self._outputs = outputs

    @property
    def unbatched_tensor(self) -> Any:
        """The tensor corresponding to this execution (the rows of this call's id)."""
        return self._outputs.unbatched_tensor

    def output_tuple(self) -> UnbatchOutputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def unbatch(
    batched_tensor: Any,
    batch_index: Any,
    id: Any,
    *,
    timeout_micros: int,
    container: str = '',
    shared_name: str = '',
    scope: Scope | str | None = None,
) -> UnbatchOutputs:
    """Reverses the operation of Batch for a single output tensor.

    Args:
        batched_tensor: T, shape [B, ...].
            The possibly transformed output of Batch. The size of the first dimension
            should remain unchanged by the transformations for the operation to work.
        batch_index: int64, shape [K, 3].
            The matching batch_index obtained from Batch.
        id: int64, shape [].
            The id scalar emitted by Batch.
        timeout_micros: int, >= 0.
            Maximum amount of time (in microseconds) to wait to receive the batched
            input tensor associated with a given invocation of the op. Any int64 value
            works.
        container: string; default ''.
            Container to control resource sharing.
        shared_name: string; default ''.
            Instances of Unbatch with the same container and shared_name are assumed to
            possibly belong to the same batch. If left empty, the op name is used as the
            shared name.
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        UnbatchOutputs(unbatched_tensor).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    _torch = _rt.torch_call(batched_tensor, batch_index, id)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'batched_tensor': batched_tensor, 'batch_index': batch_index, 'id': id}, (timeout_micros, container, shared_name))
    return _compute(scope, batched_tensor, batch_index, id, timeout_micros, container, shared_name)


def _run(scope: Scope | str | None, batched_tensor: Any, batch_index: Any, id: Any, timeout_micros: Any, container: Any, shared_name: Any) -> UnbatchOutputs:
    _torch = _rt.torch_call(batched_tensor, batch_index, id)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'batched_tensor': batched_tensor, 'batch_index': batch_index, 'id': id}, (timeout_micros, container, shared_name))
    return _compute(scope, batched_tensor, batch_index, id, timeout_micros, container, shared_name)


def _compute(scope: Scope | str | None, batched_tensor: Any, batch_index: Any, id: Any, timeout_micros: Any, container: Any, shared_name: Any) -> UnbatchOutputs:
    _backend = _rt.backend_of(scope, _OP)
    timeout_micros = _rt.check_int(_OP, 'timeout_micros', timeout_micros, 0, None, None)
    container = _rt.check_str(_OP, 'container', container, None)
    shared_name = _rt.check_str(_OP, 'shared_name', shared_name, None)
    batched_tensor = _backend.adopt(_OP, 'batched_tensor', batched_tensor)
    _dtype_T = _rt.check_dtype(_OP, 'batched_tensor', batched_tensor, ('float16', 'bfloat16', 'float32', 'float64', 'int8', 'uint8', 'int32', 'uint32', 'int64', 'uint64', 'bool'), 'T')
    batch_index = _backend.adopt(_OP, 'batch_index', batch_index)
    _rt.check_dtype(_OP, 'batch_index', batch_index, ('int64',))
    id = _backend.adopt(_OP, 'id', id)
    _rt.check_dtype(_OP, 'id', id, ('int64',))
    if batched_tensor.ndim < 1:
        raise _rt.shape_error(_OP, 'batched_tensor', ('B', '...'), batched_tensor.shape, {}, '')
    if batch_index.ndim != 2:
        raise _rt.shape_error(_OP, 'batch_index', ('K', '3'), batch_index.shape, {}, '')
    if batch_index.shape[1] != 3:
        raise _rt.shape_error(_OP, 'batch_index', ('K', '3'), batch_index.shape, {}, '')
    if id.ndim != 0:
        raise _rt.shape_error(_OP, 'id', (), id.shape, {}, '')
    return UnbatchOutputs(*_runtime(_OP, _backend, batched_tensor=batched_tensor, batch_index=batch_index, id=id, timeout_micros=timeout_micros, container=container, shared_name=shared_name))
