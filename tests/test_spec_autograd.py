"""The `autograd:` and `torch:` keys (docs/pytorch.md): a bad mapping stops `opgen generate` with
the forward spec's `file:line`, checked against the gradient op (names, fed inputs and attrs,
dtypes, ranks)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_spec_errors import line_of, write_spec

from codegen.load import load_specs
from codegen.yamlnodes import SpecError

FORWARD = """\
op: Scale
summary: y = alpha * x.
gradient: ScaleGrad
type_vars:
  T: [float32, float16]
attrs:
  - {name: alpha, type: float, default: 1.0, doc: The factor.}
inputs:
  - {name: x, dtype: T, shape: "[N, C]", doc: The input.}
  - {name: w, dtype: int32, shape: "[C]", doc: A weight.}
outputs:
  - {name: y, dtype: T, shape: "[N, C]", doc: The result.}
  - {name: stat, dtype: float32, shape: "[C]", doc: A statistic.}
autograd:
  outputs: [y]
  call: {dy: grad(y), x: x}
  grads: {x: dx}
"""

GRADIENT = """\
op: ScaleGrad
summary: dx = alpha * dy.
gradient_of: Scale
type_vars:
  T: [float32, float16]
attrs:
  - {name: alpha, type: float, default: 1.0, doc: The factor.}
inputs:
  - {name: dy, dtype: T, shape: "[N, C]", doc: The gradient of y.}
  - {name: x, dtype: T, shape: "[N, C]", doc: The input.}
outputs:
  - {name: dx, dtype: T, shape: "[N, C]", doc: The gradient of x.}
"""

FILE = "specs/demo/scale.yaml"


def _load(tmp_path: Path, forward: str, gradient: str = GRADIENT) -> list:
    root = tmp_path / "specs"
    write_spec(root, forward, "scale")
    write_spec(root, gradient, "scale_grad")
    return list(load_specs(root))


def _error(tmp_path: Path, forward: str, gradient: str = GRADIENT) -> SpecError:
    with pytest.raises(SpecError) as info:
        _load(tmp_path, forward, gradient)
    return info.value


def test_a_valid_mapping_loads(tmp_path: Path) -> None:
    ops = {op.name: op for op in _load(tmp_path, FORWARD)}
    ag = ops["Scale"].autograd
    assert ag is not None and ag.outputs == ("y",) and dict(ag.grads) == {"x": "dx"}
    assert ag.saved({"x", "w", "y", "stat"}) == ("x",)


@pytest.mark.parametrize(("old", "new", "fragment"), [
    ("outputs: [y]", "outputs: [z]", "autograd: outputs: 'z' is not an output of this op"),
    ("call: {dy: grad(y), x: x}", "call: {dy: grad(stat), x: x}", "needs 'stat' in autograd: outputs"),
    ("call: {dy: grad(y), x: x}", "call: {dy: grad(y), x: q}", "'q' is neither an input nor an output"),
    ("grads: {x: dx}", "grads: {v: dx}", "autograd: grads: 'v' is not an input of this op"),
    ("grads: {x: dx}", "grads: {x: grad(stat)}", "autograd: grads: x: grad(stat) needs 'stat' in autograd: outputs"),
    ("grads: {x: dx}", "grads: {x: dx}\n  shape: 1", "autograd: unknown key 'shape'"),
])
def test_mapping_errors_found_in_the_forward_spec(tmp_path: Path, old: str, new: str, fragment: str) -> None:
    text = FORWARD.replace(old, new)
    err = _error(tmp_path, text)
    assert err.file == FILE and fragment in err.message, str(err)
    section = fragment.split(":")[1].strip() if fragment.startswith("autograd:") else fragment.split(":")[0]
    if section in ("outputs", "call", "grads"):
        assert err.line == line_of(text, f"  {section}:"), str(err)


@pytest.mark.parametrize(("old", "new", "fragment"), [
    ("call: {dy: grad(y), x: x}", "call: {dz: grad(y), x: x}", "call: 'dz' is not an input of ScaleGrad"),
    ("call: {dy: grad(y), x: x}", "call: {dy: grad(y)}", "call: ScaleGrad's input 'x' is not fed"),
    ("call: {dy: grad(y), x: x}", "call: {dy: grad(y), x: w}", "call: x: w (int32) cannot be ScaleGrad's x "
                                                               "(float16|float32)"),
    ("grads: {x: dx}", "grads: {x: dz}", "grads: x: 'dz' is not an output of ScaleGrad"),
    ("grads: {x: dx}", "grads: {w: dx}", "grads: w: w (int32) cannot be ScaleGrad's dx"),
])
def test_mapping_errors_found_against_the_gradient_op(tmp_path: Path, old: str, new: str, fragment: str) -> None:
    text = FORWARD.replace(old, new)
    err = _error(tmp_path, text)
    section = fragment.split(":")[0]  # the error points at that sub-key's line
    assert (err.file, err.line) == (FILE, line_of(text, f"  {section}:")), str(err)
    assert fragment in err.message, str(err)


def test_ranks_must_agree(tmp_path: Path) -> None:
    gradient = GRADIENT.replace('{name: x, dtype: T, shape: "[N, C]"', '{name: x, dtype: T, shape: "[N, C, 1]"')
    err = _error(tmp_path, FORWARD, gradient)
    assert "call: x: x has rank 2, ScaleGrad's x has rank 3" in err.message, str(err)


def test_a_required_gradient_attr_must_be_fed(tmp_path: Path) -> None:
    gradient = GRADIENT.replace("  - {name: alpha, type: float, default: 1.0, doc: The factor.}",
                                "  - {name: alpha, type: float, doc: The factor.}\n"
                                "  - {name: beta, type: float, doc: Another.}")
    err = _error(tmp_path, FORWARD, gradient)
    assert "attrs: ScaleGrad's attr 'beta' has no default and no forward attr of that name" in err.message


def test_autograd_needs_a_gradient_link(tmp_path: Path) -> None:
    text = FORWARD.replace("gradient: ScaleGrad\n", "")
    gradient = GRADIENT.replace("gradient_of: Scale\n", "")
    err = _error(tmp_path, text, gradient)
    assert (err.line, "autograd: needs gradient:" in err.message) == (line_of(text, "  outputs:"), True), str(err)


@pytest.mark.parametrize(("torch_key", "fragment"), [
    ("torch: {register: false}", "torch: register: false needs a reason"),
    ("torch: {fake: not a ref}", "torch: fake: 'not a ref' is not a function reference"),
    ("torch: {colour: red}", "torch: unknown key 'colour'"),
])
def test_torch_key_errors(tmp_path: Path, torch_key: str, fragment: str) -> None:
    text = FORWARD + torch_key + "\n"
    err = _error(tmp_path, text)
    assert err.line == line_of(text, "torch:") or fragment.startswith("torch: fake"), str(err)
    assert fragment in err.message, str(err)


def test_the_gradient_op_must_be_registered(tmp_path: Path) -> None:
    gradient = GRADIENT + "torch: {register: false, reason: not yet}\n"
    err = _error(tmp_path, FORWARD, gradient)
    assert "autograd: the gradient op ScaleGrad is not registered with torch (not yet)" in err.message


def test_an_identity_gradient_loads_and_is_checked(tmp_path: Path) -> None:
    """grads: {x: grad(y)}: x's gradient is y's incoming gradient itself (BiasAdd's value)."""
    ops = {op.name: op for op in _load(tmp_path, FORWARD.replace("grads: {x: dx}", "grads: {x: grad(y)}"))}
    assert dict(ops["Scale"].autograd.grads) == {"x": "grad(y)"}
    text = FORWARD.replace("grads: {x: dx}", "grads: {w: grad(y)}")
    err = _error(tmp_path / "bad", text)
    assert "grads: w: w (int32) cannot be Scale's y" in err.message, str(err)


GRADIENT_WITH_FLAG = GRADIENT.replace(
    "  - {name: alpha, type: float, default: 1.0, doc: The factor.}",
    "  - {name: alpha, type: float, default: 1.0, doc: The factor.}\n"
    "  - {name: want_dx, type: bool, default: true, doc: Whether dx is formed.}")


def test_needs_grad_feeds_a_bool_attr_with_default_true(tmp_path: Path) -> None:
    """`attrs: {flag: needs_grad(x)}`: torch's backward passes ctx.needs_input_grad of x."""
    text = FORWARD.replace("  grads: {x: dx}", "  attrs: {want_dx: needs_grad(x)}\n  grads: {x: dx}")
    ops = {op.name: op for op in _load(tmp_path, text, GRADIENT_WITH_FLAG)}
    ag = ops["Scale"].autograd
    assert ag is not None and dict(ag.attrs) == {"want_dx": "needs_grad(x)"}


_INT_FLAG = GRADIENT_WITH_FLAG.replace("want_dx, type: bool, default: true", "want_dx, type: int, default: 1")
_FALSE_FLAG = GRADIENT_WITH_FLAG.replace("want_dx, type: bool, default: true", "want_dx, type: bool, default: false")


@pytest.mark.parametrize(("source", "gradient", "fragment"), [
    ("needs_grad(q)", GRADIENT_WITH_FLAG, "autograd: attrs: want_dx: needs_grad(q): 'q' is not an input of this op"),
    ("needs_grad(x)", _INT_FLAG, "attrs: want_dx: needs_grad(x) needs ScaleGrad's 'want_dx' to be a bool attr with "
                                 "default true (what a caller that cannot tell gets), got int with default 1"),
    ("needs_grad(x)", _FALSE_FLAG, "to be a bool attr with default true (what a caller that cannot tell gets), got "
                                   "bool with default False"),
    ("gamma", GRADIENT_WITH_FLAG, "autograd: attrs: want_dx: 'gamma' is not an attr of this op (nor "
                                  "needs_grad(<input>))"),
])
def test_needs_grad_errors(tmp_path: Path, source: str, gradient: str, fragment: str) -> None:
    text = FORWARD.replace("  grads: {x: dx}", f"  attrs: {{want_dx: {source}}}\n  grads: {{x: dx}}")
    err = _error(tmp_path, text, gradient)
    assert (err.file, err.line) == (FILE, line_of(text, "  attrs:")), str(err)
    assert fragment in err.message, str(err)
