"""The parity cases (scripts/gpu_parity.py: builders, else cases derived from the spec) reach every
launch configuration the specs' GPU launch plans can choose: every kernel step, every block-size
class its block expression can yield (codegen/launch_space.py), each grid dimension at 1 and above
1 (LayerNormGrad's and BiasAddGrad's splits, several blocks), every dtype of its specialization, and
some launch of each op with a misaligned array argument. The check fails when a builder case that
alone reaches one of these is removed (tests below remove some).

How: the cpu backend posing as the GPU (Scope("cpu", launch_plan="cuda")) runs every case's wrapper
with the launch recorder in plan-only mode (codegen/runtime/launches.py, execute=False): the
wrappers compute the GPU's grids and blocks from the shapes and attrs alone, so the launches are
exactly those a GPU would get, and recording them without running the kernels takes well under a
second for GPU-size cases (D = 65536, 70000 rows) that the emulation would run in seconds. Running
those same launches is other tests' part: tests/test_gpu_scripts.py runs every parity case through
the cuda backend on a stand-in CuPy whose kernels the emulation runs, and the last test here runs
every case in the GPU form of _common.cuh's building blocks (warp shuffles, multi-warp block
reductions of up to 1024 threads) against the cpu plan, with parity's tolerances.
"""

from __future__ import annotations

import runpy
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen import testing
from codegen.launch_space import block_class, coverage_gaps, launch_space
from codegen.load import load_specs
from codegen.runtime.launches import Launch, data_address, record_launches
from codegen.runtime.scope import Scope
from codegen.warmup import GeneratedOp, generated_ops, select_ops

PROJECT = Path(__file__).resolve().parent.parent
PARITY = runpy.run_path(str(PROJECT / "scripts" / "gpu_parity.py"))
SPECS = {op.name: op for op in load_specs(PROJECT / "specs")}


@pytest.fixture(autouse=True)
def poison(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")


def plan_launches(ops: list[GeneratedOp], builders: dict[str, Any] | None = None) -> list[Launch]:
    """The GPU plan's launches of every parity case of `ops`, recorded without running a kernel."""
    scope = Scope("cpu", launch_plan="cuda")
    launches: list[Launch] = []
    saved = dict(PARITY["BUILDERS"])
    PARITY["BUILDERS"].update(builders or {})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # GRUBlockCell's deprecation
            for op, case in PARITY["all_cases"](ops):
                assert case is not None, PARITY["missing_builder_message"](op)
                with record_launches(scope.backend, execute=False) as recorded:
                    PARITY["run_case"](op, case, scope)
                launches += recorded
    finally:
        PARITY["BUILDERS"].clear()
        PARITY["BUILDERS"].update(saved)
    return launches


def gaps(ops: list[GeneratedOp], launches: list[Launch]) -> list[str]:
    return list(PARITY["launch_gaps"](ops, launches, "cuda"))


def test_parity_cases_reach_every_launch_configuration_of_the_gpu_plan() -> None:
    ops = generated_ops()
    launches = plan_launches(ops)
    assert not gaps(ops, launches), "the parity cases (scripts/gpu_parity.py builders) reach none of:\n" + \
        "\n".join(gaps(ops, launches))
    # and the sizes that only a GPU-size case gives
    threads: dict[tuple[str, str], set[int]] = {(launch.op, launch.kernel): set() for launch in launches}
    for launch in launches:
        threads[launch.op, launch.kernel].add(launch.threads)
    assert {512} <= threads["LayerNorm", "layer_norm"] and {512} <= threads["BiasAdd", "bias_add"]
    assert max(launch.grid[1] for launch in launches if launch.kernel == "layer_norm_grad_partials") == 128
    assert max(launch.grid[0] for launch in launches if launch.kernel == "softmax_rows") == 65536


def _without(op: str, *drop: str) -> dict[str, Callable[[np.random.Generator], list[Any]]]:
    """`op`'s builder less its cases whose label contains any of `drop`."""
    build = PARITY["BUILDERS"][op]

    def fewer(rng: np.random.Generator) -> list[Any]:
        cases = [case for case in build(rng) if not any(d in case.label for d in drop)]
        assert cases
        return cases
    return {op: fewer}


@pytest.mark.parametrize(("op", "drop", "gap"), [
    ("LayerNorm", ("2000", "4100", "65536"),
     "LayerNorm: kernel layer_norm: no launch with a block of class 512 threads"),
    ("LayerNormGrad", ("70000", "1000]"), "LayerNormGrad: kernel layer_norm_grad_partials: grid dimension y is "
                                          "never >1"),
    ("Softmax", ("axis 1 ", "axis -3", "axis -2"), "Softmax: kernel softmax_columns is never launched"),
    ("BiasAddGrad", ("40, 40]",), "BiasAddGrad: kernel bias_grad_channels: no launch with a block of class 256"),
    ("FusedBatchNormV3", ("bfloat16",), "FusedBatchNormV3: kernel normalize: never specialized for bfloat16"),
    ("BiasAdd", ("misaligned",), "BiasAdd: no launch had a misaligned array argument"),
    ("CudnnRNNV3", ("B40 I3 H20 P5",), "CudnnRNNV3: kernel fused_proj: grid dimension x is never >1"),
])
def test_the_check_fails_when_a_case_that_alone_reaches_a_configuration_is_removed(op: str, drop: tuple[str, ...],
                                                                                   gap: str) -> None:
    ops = select_ops([op], generated_ops())
    assert not gaps(ops, plan_launches(ops))
    found = gaps(ops, plan_launches(ops, _without(op, *drop)))
    assert any(g.startswith(gap) for g in found), found


# ------------------------------------------------------------------------- launch space --

def test_launch_space_reads_block_classes_grids_and_dtypes_from_the_spec() -> None:
    layer_norm = launch_space(SPECS["LayerNorm"])
    assert set(layer_norm) == {"layer_norm"}
    assert layer_norm["layer_norm"].blocks == {32, 64, 128, 256, 512}  # max(32, min(512, 32·ceildiv(D, 128)))
    assert layer_norm["layer_norm"].grid == [{"1", ">1"}]
    assert layer_norm["layer_norm"].dtypes == {("float16",), ("bfloat16",), ("float32",)}
    assert launch_space(SPECS["BiasAdd"])["bias_add"].blocks == {32, 64, 128, 256, 512}  # at most 512
    grad = launch_space(SPECS["LayerNormGrad"])
    assert grad["layer_norm_grad_partials"].blocks == {256} and grad["layer_norm_grad_partials"].grid == [
        {"1", ">1"}, {"1", ">1"}]
    # a step whose `when:` cannot hold on the plan is not in its space: the GPU's chunk is 0
    assert "stats_partials_sliced" not in launch_space(SPECS["FusedBatchNormV3"])
    cpu = launch_space(SPECS["FusedBatchNormV3"], plan="cpu")
    assert "stats_partials" not in cpu and cpu["stats_partials_sliced"].blocks == {32}
    assert launch_space(SPECS["LayerNorm"], plan="cpu")["layer_norm"].blocks == {1}
    # loops: CudnnRNN's step kernels inside the layer, direction and step loops, per rnn_mode; the
    # GPU's fused step besides (a grid of 3 axes), which the cpu plan never takes
    rnn = launch_space(SPECS["CudnnRNNV3"])
    assert {"lstm_step", "gru_step", "rnn_step", "proj_carry", "skip_projection", "layer_output"} <= set(rnn)
    assert rnn["lstm_step"].dtypes == {("float16",), ("float32",), ("float64",)}
    assert rnn["fused_step"].blocks == {256} and len(rnn["fused_step"].grid) == 3
    assert "fused_step" not in launch_space(SPECS["CudnnRNNV3"], plan="cpu")
    assert launch_space(SPECS["Batch"]) == {}  # a runtime op: no kernels
    assert [block_class(n) for n in (1, 2, 32, 33, 96, 128, 160, 1024)] == [1, 2, 32, 64, 128, 128, 256, 1024]


def test_coverage_gaps_name_each_missing_configuration() -> None:
    space = {"LayerNorm": launch_space(SPECS["LayerNorm"])}
    launch = Launch("LayerNorm", "layer_norm", ("float32",), (3,), (96,), 0, "cuda", False)
    found = coverage_gaps(space, [launch])
    assert found == [
        "LayerNorm: kernel layer_norm: no launch with a block of class 32, 64, 256, 512 threads "
        "(class p: p/2 < threads ≤ p)",
        "LayerNorm: kernel layer_norm: grid dimension x is never 1",
        "LayerNorm: kernel layer_norm: never specialized for bfloat16, float16",
        "LayerNorm: no launch had a misaligned array argument (a view off a 16-byte boundary)"]
    assert coverage_gaps(space, []) == ["LayerNorm: kernel layer_norm is never launched",
                                        "LayerNorm: no launch had a misaligned array argument (a view off a "
                                        "16-byte boundary)"]


# ------------------------------------------------------------------------- the recorder --

def test_the_recorder_records_each_launch_and_leaves_the_backend_as_it_was() -> None:
    from generated import layer_norm, layer_norm_grad

    scope = Scope("cpu", launch_plan="cuda")
    backend = scope.backend
    x = PARITY["misaligned"](np.random.default_rng(0).standard_normal((5, 300)).astype(np.float32))
    assert data_address(x) is not None and data_address(x) % 16 != 0  # type: ignore[operator]
    with record_launches(backend) as outer:
        with record_launches(backend) as inner:
            out = layer_norm(x, scope=scope)
        grads = layer_norm_grad(np.ones_like(x), x, out.mean, out.rstd, scope=scope)
    assert "launch" not in backend.__dict__ and "gemm" not in backend.__dict__
    assert inner == [Launch("LayerNorm", "layer_norm", ("float32",), (5,), (96,), 0, "cuda", True)]
    assert [launch.kernel for launch in outer] == ["layer_norm", "layer_norm_grad_input", "layer_norm_grad_partials",
                                                   "layer_norm_grad_params"]
    assert outer[2].grid == (10, 1) and outer[2].threads == 256 and outer[2].misaligned  # (x)
    assert not outer[3].misaligned  # partials, dgamma, dbeta: fresh arrays
    np.testing.assert_allclose(grads.dbeta, np.full(300, 5.0), rtol=1e-6)  # the kernels ran
    ref = layer_norm(x, scope="cpu")
    np.testing.assert_allclose(out.y, ref.y, rtol=1e-5, atol=1e-5)
    with record_launches(backend, execute=False) as planned:
        empty = layer_norm(np.zeros((0, 8), np.float32), scope=scope)  # a grid of 0 launches nothing
        skipped = layer_norm(x, scope=scope)
    assert empty.y.shape == (0, 8) and len(planned) == 1
    assert np.isnan(skipped.y).all()  # plan only: no kernel ran (outputs poisoned)


def test_misaligned_inputs_stay_misaligned_on_a_device_backend(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    """run_case hands the cuda backend a device view at the input's offset (a NumPy input would be
    copied to aligned memory), on the stand-in CuPy."""
    import fake_cupy

    fake = fake_cupy.install(monkeypatch, tmp_path)
    op = next(o for o in generated_ops() if o.name == "BiasAdd")
    case = next(c for c in PARITY["BUILDERS"]["BiasAdd"](np.random.default_rng(0)) if "misaligned" in c.label)
    with record_launches(fake.backend) as recorded:
        out = PARITY["run_case"](op, case, Scope("cuda"))
    assert recorded and all(launch.misaligned for launch in recorded)
    ref = PARITY["run_case"](op, case, Scope("cpu"))
    assert PARITY["compare"]("BiasAdd", case.label, ref, out).ok


# ------------------------------------------------------------------- the GPU form, every case --

@pytest.fixture
def gpu_form() -> Scope:
    """The cpu backend under the GPU's launch plan, _common.cuh's building blocks in their GPU form: the
    kernel tests' gpu-form scope (codegen.testing.SCOPES), whose modules they compile already."""
    scope = testing.make_scope("gpu-form")
    assert scope.backend.name == "cuda" and scope.backend.kernel_form == "gpu", scope
    return scope


def test_the_gpu_form_here_is_built_as_the_kernel_tests_build_it(gpu_form: Scope) -> None:
    """One build of each module's GPU form for both (a `#define OPGEN_GPU_FORM 1` put before the text
    here compiled every module's GPU form once more: ≈ 20–30 s of a whole run's CPU)."""
    from generated.nn import bias_add

    assert gpu_form.backend.load(bias_add._KERNELS).path == Scope("cpu", kernel_form="gpu").backend.load(
        bias_add._KERNELS).path


def test_every_parity_case_agrees_with_the_gpu_form_on_the_emulator(gpu_form: Scope) -> None:
    """Every case, cpu plan against the GPU's plan and form (1024-thread rows reduced over 32 warps,
    column sums in 128 splits), compared as the parity run compares cpu and cuda."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cases, failed = PARITY["disagreements"](generated_ops(), Scope("cpu"), gpu_form)
    assert cases > 0
    assert not failed, "\n".join(failed)
