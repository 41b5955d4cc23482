# generated from specs/batching/unbatch_grad.yaml by opgen — do not edit (opgen 0.1.0)
"""UnbatchGrad: Gradient of Unbatch."""

from __future__ import annotations

from typing import Any, NamedTuple

from codegen.runtime import api as _rt
from codegen.runtime.batching.ops import unbatch_grad as _runtime
from codegen.runtime.scope import Scope

_OP = 'UnbatchGrad'


class UnbatchGradOutputs(NamedTuple):
    """The outputs of UnbatchGrad, in order."""

    batched_grad: Any
    """T, shape [M, ...]. The return value, either an empty tensor or the batched gradient: [B, ...] for the call holding the batch, [0, ...] for the others."""


class UnbatchGrad:
    """Gradient of Unbatch.

    Acts like Batch but using the given batch_index index of batching things as they become
    available. This ensures that the gradients are propagated back in the same session which did the
    forward pass.

    Every call deposits its grad under its id and, unless it holds the batch, returns at once with
    an empty tensor. The call holding the batch (a non-empty batch_index and original_input) waits for
    the grads of every id of its batch_index and returns their concatenation in batch_index order
    (row order), as TensorFlow's kernel does: batched_grad has one row per row of the tasks, so it is
    shorter than original_input by the padding rows Batch added, which have no gradient. The holder
    waits at most
    codegen.runtime.batching.ops.UNBATCH_GRAD_TIMEOUT_S seconds (60; set_unbatch_grad_timeout changes
    it) and then fails with a DeadlineExceededError naming the missing ids. A grad whose rows do not
    match batch_index, or an id given twice, is an error. An empty shared_name stands for the op's
    name.

    Create it with `UnbatchGrad.create(scope, original_input, batch_index, grad, id, *options)`, or call
    `unbatch_grad(...)`. The reference page is generated/docs/batching/unbatch_grad.md.
    """

    OP_NAME = 'UnbatchGrad'
    Outputs = UnbatchGradOutputs

    class Options:
        """Optional attributes for UnbatchGrad; each setter returns the Options, so calls chain."""

        __slots__ = ("_values",)

        def __init__(self) -> None:
            self._values: dict[str, Any] = {}

        def container(self, container: str) -> UnbatchGrad.Options:
            """Sets container (default ''). Container to control resource sharing."""
            self._values['container'] = container
            return self

        def shared_name(self, shared_name: str) -> UnbatchGrad.Options:
            """Sets shared_name (default ''). Instances of UnbatchGrad with the same container and shared_name are assumed to possibly belong to the same batch. If left empty, the op name is used as the shared name."""
            self._values['shared_name'] = shared_name
            return self

        def __repr__(self) -> str:
            items = ", ".join(f"{key}={value!r}" for key, value in self._values.items())
            return f"UnbatchGrad.Options({items})"

    @staticmethod
    def container(container: str) -> UnbatchGrad.Options:
        """Options with container set (default '')."""
        return UnbatchGrad.Options().container(container)

    @staticmethod
    def shared_name(shared_name: str) -> UnbatchGrad.Options:
        """Options with shared_name set (default '')."""
        return UnbatchGrad.Options().shared_name(shared_name)

    @classmethod
    def create(
        cls,
        scope: Scope | str | None,
        original_input: Any,
        batch_index: Any,
        grad: Any,
        id: Any,
        *options: UnbatchGrad.Options,
    ) -> UnbatchGrad:
        """Factory method to create a class wrapping a new UnbatchGrad operation.

        Args:
            scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).
            original_input: T, shape [B, ...].
                The input to the Unbatch operation this is the gradient of.
            batch_index: int64, shape [K, 3].
                The batch_index given to the Unbatch operation this is the gradient of.
            grad: T, shape [G, ...].
                The downstream gradient (of this call's unbatched_tensor).
            id: int64, shape [].
                The id scalar emitted by Batch.
            options: UnbatchGrad.Options carrying optional attribute values.

        Raises:
            TypeError: an argument has the wrong type or dtype.
            ValueError: a shape or an attribute value is not valid.
        """
        _merged = _rt.merge_options(_OP, options, cls.Options)
        return cls(_run(
            scope, original_input, batch_index, grad, id,
            _merged.get('container', ''),
            _merged.get('shared_name', ''),
        ))

    def __init__(self, outputs: UnbatchGradOutputs) -> None:
        self._outputs = outputs

    @property
    def batched_grad(self) -> Any:
        """The return value, either an empty tensor or the batched gradient: [B, ...] for the call holding the batch, [0, ...] for the others."""
        return self._outputs.batched_grad

    def output_tuple(self) -> UnbatchGradOutputs:
        """All outputs, in order."""
        return self._outputs

    def __repr__(self) -> str:
        return _rt.op_repr(_OP, self._outputs)


def unbatch_grad(
    original_input: Any,
    batch_index: Any,
    grad: Any,
    id: Any,
    *,
    container: str = '',
    shared_name: str = '',
    scope: Scope | str | None = None,
) -> UnbatchGradOutputs:
    """Gradient of Unbatch.

    Args:
        original_input: T, shape [B, ...].
            The input to the Unbatch operation this is the gradient of.
        batch_index: int64, shape [K, 3].
            The batch_index given to the Unbatch operation this is the gradient of.
        grad: T, shape [G, ...].
            The downstream gradient (of this call's unbatched_tensor).
        id: int64, shape [].
            The id scalar emitted by Batch.
        container: string; default ''.
            Container to control resource sharing.
        shared_name: string; default ''.
            Instances of UnbatchGrad with the same container and shared_name are assumed
            to possibly belong to the same batch. If left empty, the op name is used as
            the shared name.
        scope: where the op runs: a Scope, a device string ('cpu', 'cuda:1') or None (the default scope).

    Returns:
        UnbatchGradOutputs(batched_grad).

    Raises:
        TypeError: an argument has the wrong type or dtype.
        ValueError: a shape or an attribute value is not valid.
    """
    _torch = _rt.torch_call(original_input, batch_index, grad, id)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'original_input': original_input, 'batch_index': batch_index, 'grad': grad, 'id': id}, (container, shared_name))
    return _compute(scope, original_input, batch_index, grad, id, container, shared_name)


def _run(scope: Scope | str | None, original_input: Any, batch_index: Any, grad: Any, id: Any, container: Any, shared_name: Any) -> UnbatchGradOutputs:
    _torch = _rt.torch_call(original_input, batch_index, grad, id)
    if _torch is not None:  # torch in, torch out, on the tensors' device
        return _torch.run(_OP, _compute, scope, {'original_input': original_input, 'batch_index': batch_index, 'grad': grad, 'id': id}, (container, shared_name))
    return _compute(scope, original_input, batch_index, grad, id, container, shared_name)


def _compute(scope: Scope | str | None, original_input: Any, batch_index: Any, grad: Any, id: Any, container: Any, shared_name: Any) -> UnbatchGradOutputs:
    _backend = _rt.backend_of(scope, _OP)
    container = _rt.check_str(_OP, 'container', container, None)
    shared_name = _rt.check_str(_OP, 'shared_name', shared_name, None)
    original_input = _backend.adopt(_OP, 'original_input', original_input)
    _dtype_T = _rt.check_dtype(_OP, 'original_input', original_input, ('float16', 'bfloat16', 'float32', 'float64', 'int8', 'uint8', 'int32', 'uint32', 'int64', 'uint64', 'bool'), 'T')
    batch_index = _backend.adopt(_OP, 'batch_index', batch_index)
    _rt.check_dtype(_OP, 'batch_index', batch_index, ('int64',))
    grad = _backend.adopt(_OP, 'grad', grad)
    _rt.check_same_dtype(_OP, 'grad', grad, _dtype_T, 'T', 'original_input')
    id = _backend.adopt(_OP, 'id', id)
    _rt.check_dtype(_OP, 'id', id, ('int64',))
    if original_input.ndim < 1:
        raise _rt.shape_error(_OP, 'original_input', ('B', '...'), original_input.shape, {}, '')
    if batch_index.ndim != 2:
        raise _rt.shape_error(_OP, 'batch_index', ('K', '3'), batch_index.shape, {}, '')
    if batch_index.shape[1] != 3:
        raise _rt.shape_error(_OP, 'batch_index', ('K', '3'), batch_index.shape, {}, '')
    if grad.ndim < 1:
        raise _rt.shape_error(_OP, 'grad', ('G', '...'), grad.shape, {}, '')
    if id.ndim != 0:
        raise _rt.shape_error(_OP, 'id', (), id.shape, {}, '')
    return UnbatchGradOutputs(*_runtime(_OP, _backend, original_input=original_input, batch_index=batch_index, grad=grad, id=id, container=container, shared_name=shared_name))
