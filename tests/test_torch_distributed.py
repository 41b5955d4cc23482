"""Scale-out through the host framework (issue 19 item 7): opgen's drop-in modules train under
torch.nn.parallel.DistributedDataParallel like torch.nn's, since their ops are torch ops.

A small model — the drop-in BatchNorm2d over [N, C, H, W] images, each image then read as a
sequence over W by the drop-in LSTM, a linear head on the last step — trains for a few SGD steps
under DDP on 2 CPU processes (gloo), each rank on its own half of every batch. The same model
built from torch.nn modules, with the same initial weights, trains the same way in the same
process group. Checked:

- opgen under DDP equals torch.nn under DDP, on each rank: every parameter and BatchNorm's
  running statistics (within the tolerance below; num_batches_tracked exactly);
- the two replicas' parameters are bitwise equal (gradients averaged by the allreduce);
- opgen under DDP equals one process that runs the same model on the two halves of each batch,
  one forward each, and steps on the mean of the two losses: what DDP's gradient averaging must
  reproduce. BatchNorm normalises each half by its own statistics in both (DDP does not
  synchronise them: the drop-in BatchNorm2d, like torch.nn.BatchNorm2d, is not SyncBatchNorm, and
  `torch.nn.SyncBatchNorm.convert_sync_batchnorm` leaves it as it is — checked here too).

The opgen model each rank trains is the one the test built, pickled with torch.save: a rank
unpickles it before anything has imported generated.torch, as a torch.multiprocessing worker
does with a model it is passed, so the unpickling itself must register the ops.

Tolerance, per element: |a − b| ≤ 2⁻¹⁸·max(1, |b|), 32 float32 ulps at 1.0. Measured: opgen
against torch.nn within 1.1 ulps (2.4e-7 on a running variance near 1, ≤ 3e-8 on the weights);
DDP against one process bitwise equal. A real error (a gradient not averaged, lost or doubled)
moves every weight tensor by 600 to 15,000 times the bound here.

The ranks are subprocesses running this file (`python tests/test_torch_distributed.py RANK
STORE OUT`), rendezvousing through a FileStore in the test's tmp_path (no port to pick or to
race for); every collective has a timeout and the test kills the ranks if they outlive theirs.
"""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")

import torch

WORLD = 2
N, C, H, W = 8, 3, 4, 5  # a batch of 8 images of 3 channels, 4 × 5; each rank gets 4
HIDDEN, CLASSES = 6, 3
STEPS, LR = 3, 0.2
RANK_TIMEOUT_S = 120  # whole rank process; collectives time out sooner
ROOT = Path(__file__).resolve().parents[1]


class Net(torch.nn.Module):
    """BatchNorm2d, ReLU, then each image as a sequence over W of C·H features into an LSTM, and
    a linear head on its last output."""

    def __init__(self, lstm: Any, batch_norm: Any) -> None:
        super().__init__()
        self.bn = batch_norm(C)
        self.lstm = lstm(C * H, HIDDEN, batch_first=True)
        self.head = torch.nn.Linear(HIDDEN, CLASSES)

    def forward(self, x: Any) -> Any:
        y = self.bn(x).relu()
        sequence = y.permute(0, 3, 1, 2).reshape(y.shape[0], y.shape[3], C * H)  # [N, W, C·H]
        out, _ = self.lstm(sequence)
        return self.head(out[:, -1])


def make_model(kind: str) -> Any:
    """The model of torch.nn modules ("torch") or of opgen's drop-ins ("opgen"), both with the
    weights torch.nn's initialisation draws for seed 0."""
    torch.manual_seed(0)
    reference = Net(torch.nn.LSTM, torch.nn.BatchNorm2d)
    if kind == "torch":
        return reference
    from opgen_ops.torch_nn import LSTM, BatchNorm2d

    ours = Net(LSTM, BatchNorm2d)
    ours.load_state_dict(reference.state_dict())
    return ours


def batches() -> list[tuple[Any, Any]]:
    """STEPS full batches (images, labels), the same in every process."""
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(N, C, H, W, generator=generator) * 2 + 0.5,
             torch.randint(0, CLASSES, (N,), generator=generator)) for _ in range(STEPS)]


def shard(batch: tuple[Any, Any], rank: int) -> tuple[Any, Any]:
    per_rank = N // WORLD
    x, y = batch
    return x[rank * per_rank:(rank + 1) * per_rank], y[rank * per_rank:(rank + 1) * per_rank]


def state(model: Any) -> dict[str, Any]:
    return {name: value.detach().clone() for name, value in model.state_dict().items()}


def train_ddp(model: Any, rank: int) -> dict[str, Any]:
    """STEPS SGD steps of the model under DDP on this rank's shards; its state after."""
    from torch.nn.parallel import DistributedDataParallel

    ddp = DistributedDataParallel(model)  # broadcast_buffers=True: rank 0's BN statistics each forward
    optimizer = torch.optim.SGD(ddp.parameters(), lr=LR)
    for batch in batches():
        x, y = shard(batch, rank)
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(ddp(x), y).backward()
        optimizer.step()
    return state(model)


def train_one_process_on_shards() -> dict[str, Any]:
    """What DDP must reproduce, in one process: each step, a forward per shard (BatchNorm on that
    shard's statistics), the mean of their losses, one SGD step."""
    model = make_model("opgen")
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    for batch in batches():
        optimizer.zero_grad()
        losses = [torch.nn.functional.cross_entropy(model(x), y) for x, y in (shard(batch, r) for r in range(WORLD))]
        torch.stack(losses).mean().backward()
        optimizer.step()
    return state(model)


def rank_main(rank: int, store_path: str, out_dir: str) -> None:
    """One rank: both models trained under DDP in one gloo process group; their states saved.
    The opgen model is the one the test built, unpickled here (as torch.multiprocessing passes a
    model to its workers): before anything else has imported generated.torch, so its ops must get
    registered by the unpickling itself."""
    import torch.distributed as dist

    torch.set_num_threads(1)
    assert "generated.torch" not in sys.modules
    models = {"opgen": torch.load(Path(out_dir) / "opgen-model.pt", weights_only=False), "torch": make_model("torch")}
    store = dist.FileStore(store_path, WORLD)
    dist.init_process_group("gloo", store=store, rank=rank, world_size=WORLD,
                            timeout=datetime.timedelta(seconds=RANK_TIMEOUT_S // 2))
    try:
        result = {kind: train_ddp(model, rank) for kind, model in models.items()}
    finally:
        dist.destroy_process_group()
    torch.save(result, Path(out_dir) / f"rank{rank}.pt")


def assert_states_close(ours: dict[str, Any], theirs: dict[str, Any], what: str) -> None:
    assert list(ours) == list(theirs), what
    for name, b in theirs.items():
        a = ours[name]
        if not b.is_floating_point():
            assert torch.equal(a, b), f"{what}: {name}: {a} != {b}"
            continue
        bound = 2.0**-18 * b.abs().clamp(min=1.0)
        worst = ((a - b).abs() - bound).max().item()
        assert worst <= 0, f"{what}: {name}: |a - b| exceeds 2^-18·max(1, |b|) by {worst:.3g}"


def run_ranks(tmp_path: Path) -> list[dict[str, Any]]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               OMP_NUM_THREADS="1")
    store = tmp_path / "store"
    torch.save(make_model("opgen"), tmp_path / "opgen-model.pt")  # the whole module, pickled
    ranks = [subprocess.Popen([sys.executable, __file__, str(rank), str(store), str(tmp_path)], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for rank in range(WORLD)]
    outputs = []
    try:
        for rank, process in enumerate(ranks):
            try:
                output, _ = process.communicate(timeout=RANK_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                pytest.fail(f"rank {rank} still running after {RANK_TIMEOUT_S} s")
            assert process.returncode == 0, f"rank {rank} exited {process.returncode}:\n{output}"
            outputs.append(output)
    finally:
        for process in ranks:
            if process.poll() is None:
                process.kill()
                process.wait()
    return [torch.load(tmp_path / f"rank{rank}.pt") for rank in range(WORLD)]


def test_ddp_training_matches_torch_nn_and_one_process(tmp_path: Path) -> None:
    expected = train_one_process_on_shards()  # also compiles the ops' kernels once, before the ranks start
    results = run_ranks(tmp_path)
    for rank, result in enumerate(results):
        assert_states_close(result["opgen"], result["torch"], f"rank {rank}: opgen under DDP vs torch.nn under DDP")
    initial = make_model("opgen")
    parameters = [name for name, _ in initial.named_parameters()]
    for name in parameters:
        assert torch.equal(results[0]["opgen"][name], results[1]["opgen"][name]), f"{name}: the replicas differ"
        assert not torch.equal(results[0]["opgen"][name], initial.state_dict()[name]), f"{name}: not trained"
    assert_states_close({n: results[0]["opgen"][n] for n in parameters}, {n: expected[n] for n in parameters},
                        "opgen under DDP vs one process on the same shards")


def test_sync_batchnorm_conversion_leaves_the_drop_in_alone() -> None:
    """The drop-in BatchNorm2d is no torch.nn _BatchNorm: convert_sync_batchnorm passes it by, so
    under DDP it normalises by each rank's own batch, as torch.nn.BatchNorm2d does unconverted."""
    model = make_model("opgen")
    converted = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert type(converted.bn) is type(model.bn) and type(model.bn).__module__ == "opgen_ops.torch_nn"
    assert isinstance(torch.nn.SyncBatchNorm.convert_sync_batchnorm(make_model("torch")).bn, torch.nn.SyncBatchNorm)


if __name__ == "__main__":
    rank_main(int(sys.argv[1]), sys.argv[2], sys.argv[3])
    # The rank's results are saved: leave without interpreter finalization, where gloo's C++ threads
    # can still be torn down and abort the process ("terminate called without an active exception",
    # seen once in ~10 runs on a loaded 2-core machine; a known PyTorch/gloo teardown race)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
