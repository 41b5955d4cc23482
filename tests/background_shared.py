"""How the workers of one pytest-xdist run share a background job (tests/background.py): the first
worker to claim it runs it and publishes its outcome; a worker that needs it and did not claim it
waits for that outcome instead of running the job a second time. The run's folder is the one
pytest-xdist's workers share (the parent of each worker's basetemp).

Files, per job NAME: `NAME.claim` (created exclusively; holds the claiming worker's pid) and
`NAME.result` (a pickle of (value, error), written atomically once the job is done)."""

from __future__ import annotations

import os
import pickle
import time
import traceback
from pathlib import Path
from typing import Any

POLL_S = 0.2


def claim(folder: Path, name: str) -> bool:
    """True for the one process that claims `name` in this run (it then runs and publishes it)."""
    try:
        fd = os.open(folder / f"{name}.claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as f:
        f.write(str(os.getpid()))
    return True


def publish(folder: Path, name: str, value: Any, error: BaseException | None) -> None:
    """Write the job's outcome for the other workers (atomically: a reader sees all of it or nothing)."""
    if error is not None and hasattr(error, "add_note"):  # (the traceback itself does not pickle)
        error.add_note("".join(traceback.format_exception(error)))
    try:
        data = pickle.dumps((value, error))
    except Exception as exc:  # noqa: BLE001 -- the waiting test reports it
        data = pickle.dumps((None, RuntimeError(f"background job {name!r}: its outcome does not pickle ({exc!r}), "
                                                "so other pytest-xdist workers cannot have it")))
    tmp = folder / f".{name}.result.{os.getpid()}"
    tmp.write_bytes(data)
    os.replace(tmp, folder / f"{name}.result")


def wait(folder: Path, name: str) -> tuple[Any, BaseException | None] | None:
    """The outcome another worker published for `name`; None if that worker exited without
    publishing it (it was stopped first), and the caller must run the job itself."""
    result = folder / f"{name}.result"
    while True:
        if result.exists():
            return pickle.loads(result.read_bytes())  # type: ignore[no-any-return]
        if not _alive(int((folder / f"{name}.claim").read_text() or 0)):
            return pickle.loads(result.read_bytes()) if result.exists() else None
        time.sleep(POLL_S)


def _alive(pid: int) -> bool:
    if pid <= 0:
        return True  # (claimed this instant: its pid not written yet)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")  # a zombie has exited
