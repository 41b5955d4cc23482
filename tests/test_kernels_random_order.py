"""The batch-norm kernels under the host backend's random thread and block order: a missing
__syncthreads or a dependency between blocks of one launch gives wrong results in some order,
which the in-order runs of the other tests would hide. Both launch sizes run: the cpu backend's
own (32-thread blocks summing consecutive slices) and the GPU's (the backend posing as cuda:
256-thread blocks, grid-stride loops); under the GPU sizes the shapes hit both reduction paths
(channels-last tiles and channels-first blocks), several splits and several row groups."""

from __future__ import annotations

import numpy as np
import pytest
from reference.batch_norm import bn_forward, bn_grad

from codegen.runtime import host
from codegen.testing import host_random_order
from generated import Scope, fused_batch_norm_grad_v3, fused_batch_norm_v3


@pytest.mark.parametrize("launch_sizes", ["cpu", "cuda"])
@pytest.mark.parametrize("opgen_random_order", [1, 2, 3], indirect=True)
@pytest.mark.parametrize(("data_format", "shape"), [
    ("NHWC", (3, 37, 41, 35)),   # m = 4551 rows: 5 splits of whole tiles, 2 channel tiles
    ("NCHW", (2, 5, 130, 131)),  # m = 34060: 2 splits per channel
])
def test_batch_norm_is_order_independent(opgen_random_order: int, data_format: str, shape: tuple[int, ...],
                                         launch_sizes: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(opgen_random_order)
    x = (rng.standard_normal(shape) * 2 + 3).astype(np.float32)
    dy = rng.standard_normal(shape).astype(np.float32)
    c = shape[-1] if data_format == "NHWC" else shape[1]
    scale, offset = rng.uniform(0.5, 2, c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
    zeros, ones = np.zeros(c, np.float32), np.ones(c, np.float32)
    scope = Scope("cpu")
    monkeypatch.setattr(scope.backend, "name", launch_sizes)  # the specs' `by: backend` launch sizes
    fwd = fused_batch_norm_v3(x, scale, offset, zeros, ones, epsilon=1e-3, data_format=data_format, scope=scope)
    ref = bn_forward(x, scale, offset, zeros, ones, epsilon=1e-3, data_format=data_format)
    np.testing.assert_allclose(fwd.y, ref["y"], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(fwd.reserve_space_2, ref["reserve_space_2"], rtol=1e-4)
    grad = fused_batch_norm_grad_v3(dy, x, scale, fwd.reserve_space_1, fwd.reserve_space_2, fwd.reserve_space_3,
                                    epsilon=1e-3, data_format=data_format, scope=scope)
    gref = bn_grad(dy, x, scale, fwd.reserve_space_1, fwd.reserve_space_2, epsilon=1e-3, data_format=data_format)
    np.testing.assert_allclose(grad.offset_backprop, gref["offset_backprop"], rtol=1e-4, atol=1e-2)
    np.testing.assert_allclose(grad.scale_backprop, gref["scale_backprop"], rtol=1e-4, atol=1e-2)
    np.testing.assert_allclose(grad.x_backprop, gref["x_backprop"], rtol=1e-3, atol=1e-4)


def test_random_order_fixture_restores_the_environment_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host.switches, "_random_seed", host._UNSET)
    monkeypatch.setenv("OPGEN_HOST_RANDOM_ORDER", "9")
    with host_random_order(None):
        assert host.random_order() is None
    assert host.random_order() == 9  # not left overridden by set_random_order(None)
    with host_random_order(4):
        assert host.random_order() == 4
    assert host.random_order() == 9
