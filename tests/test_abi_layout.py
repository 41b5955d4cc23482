"""codegen/runtime/abi_layout.py: the runtime's struct layouts (opgen_rt_abi_layout) against Python's
mirrors of them; and the runtime built here against the mirrors the host backend packs."""

from __future__ import annotations

import ctypes

import pytest

from codegen.runtime import abi_layout
from codegen.runtime.abi_layout import AbiLayoutError

GOOD = ("opgen_launch_cfg=88;grid=0;block=12;shmem=24;nworkers=32;random_order=36;seed=40;stack_size=48;"
        "sanitize=56;nbuffers=60;buffers=64;nvars=72;pad_=76;vars=80\n"
        "opgen_batch_record=32;launch=0;cfg=8;nargs=16;pad_=20;table_args=24")
BATCH_FIELDS = ("launch", "cfg", "nargs", "table_args")  # opgen_batch_record, pad_ aside
BATCH_HEAD = "<QQI4xQ"


class Pair(ctypes.Structure):
    _fields_ = [("a", ctypes.c_uint32), ("b", ctypes.c_uint64), ("c", ctypes.c_uint8 * 3)]


def expected() -> dict[str, dict[str, int]]:
    """What Python would pack if its mirrors matched GOOD (the drift tests change the runtime's side)."""
    return abi_layout.parse(GOOD)


def test_parse() -> None:
    layouts = abi_layout.parse(GOOD + "\n")
    assert list(layouts) == ["opgen_launch_cfg", "opgen_batch_record"]
    assert layouts["opgen_batch_record"] == {"sizeof": 32, "launch": 0, "cfg": 8, "nargs": 16, "pad_": 20,
                                             "table_args": 24}
    assert abi_layout.parse("") == {}


@pytest.mark.parametrize("text, message", [
    ("opgen_launch_cfg=88;grid", "'grid' is not NAME=NUMBER"),
    ("opgen_launch_cfg=88;grid=-1", "'grid=-1' is not NAME=NUMBER"),
    ("s=8;a=0;a=4", "line 1: s.a twice"),
    ("s=8;a=0\ns=8;a=0", "line 2: struct s twice"),
])
def test_parse_rejects_malformed_text(text: str, message: str) -> None:
    with pytest.raises(AbiLayoutError, match=message):
        abi_layout.parse(text)


def test_ctypes_and_struct_layouts() -> None:
    assert abi_layout.ctypes_layout(Pair) == {"sizeof": 24, "a": 0, "b": 8, "c": 16}
    record = abi_layout.parse(GOOD)["opgen_batch_record"]
    del record["pad_"]  # (the format's 4x)
    assert abi_layout.struct_layout(BATCH_HEAD, BATCH_FIELDS) == record
    # native order aligns each item, as C does ("3s" is one item, "2I" two)
    assert abi_layout.struct_layout("2I3sxh", "abcd") == {"sizeof": 14, "a": 0, "b": 4, "c": 8, "d": 12}
    assert abi_layout.struct_layout("@BQ", "ab") == {"sizeof": 16, "a": 0, "b": 8}
    with pytest.raises(ValueError, match="packs 7 fields, 2 names given"):
        abi_layout.struct_layout("<QQI4xQQQQ", ("launch", "cfg"))
    with pytest.raises(ValueError, match="cannot read 'Z'"):
        abi_layout.struct_layout("<QZ", ("a",))


def test_check_accepts_the_same_layout() -> None:
    abi_layout.check(GOOD, expected())
    abi_layout.check(GOOD, {})  # nothing asked, nothing compared


@pytest.mark.parametrize("drift, message", [
    (("block=12", "block=16"), "the runtime's opgen_launch_cfg.block is at offset 16, Python packs it at 12: "),
    (("opgen_batch_record=32", "opgen_batch_record=64"), "the runtime's opgen_batch_record is 64 bytes, Python "
                                                         "packs 32: "),
    ((";table_args=24", ""), "the runtime's opgen_batch_record has no field table_args, which Python packs at "
                             "offset 24"),
    (("opgen_batch_record", "opgen_batch_rec"), "the runtime does not describe struct opgen_batch_record \\(it "
                                                "describes opgen_launch_cfg, opgen_batch_rec\\)"),
])
def test_check_names_the_struct_and_field_that_drifted(drift: tuple[str, str], message: str) -> None:
    text = GOOD.replace(*drift)
    with pytest.raises(AbiLayoutError, match=message) as e:
        abi_layout.check(text, expected())
    assert "opgen_emu_abi.h" in str(e.value)  # and what to do about it


# --------------------------------------------------------------- the runtime built here --

def test_the_runtime_lays_out_its_structs_as_python_packs_them() -> None:
    from codegen.runtime import host, host_sanitize
    from codegen.runtime.host import blas, libraries, pack
    host.load_runtime()
    text = abi_layout.runtime_text(libraries._RUNTIME["lib"])
    assert (pack.BATCH_RECORD, pack.BATCH_RECORD_FIELDS) == (BATCH_HEAD, BATCH_FIELDS)
    record = pack._batch_packer([], ()).record.format  # the record alone: no argument follows it
    # a lane record names every field; an ordinary one packs its lane as the pad bytes (lane 0)
    lane_layout = abi_layout.struct_layout(pack.BATCH_LANE_RECORD, pack.BATCH_LANE_RECORD_FIELDS)
    assert abi_layout.parse(text)["opgen_batch_record"] == lane_layout
    assert {k: v for k, v in lane_layout.items() if k != "lane"} == abi_layout.struct_layout(record, BATCH_FIELDS)
    abi_layout.check(text, {
        "opgen_launch_cfg": abi_layout.ctypes_layout(pack._LaunchCfg),
        "opgen_batch_record": abi_layout.struct_layout(record, BATCH_FIELDS),
        "opgen_san_range": abi_layout.ctypes_layout(host_sanitize.SanRange),
        "opgen_gemm_desc": abi_layout.ctypes_layout(blas.GemmDesc),
    })
    assert abi_layout.parse(text).keys() == {"opgen_launch_cfg", "opgen_batch_record", "opgen_san_range",
                                             "opgen_gemm_desc"}
    with pytest.raises(AbiLayoutError, match=r"opgen_launch_cfg\.block is at offset 12, Python packs it at 16"):
        abi_layout.check(text, {"opgen_launch_cfg": {"block": 16}})  # a mirror that drifted


def test_the_loader_refuses_a_runtime_whose_structs_drifted() -> None:
    from codegen.runtime import host
    from codegen.runtime.host import libraries

    host.load_runtime()
    real = abi_layout.runtime_text(libraries._RUNTIME["lib"])
    libraries._check_layouts(libraries._RUNTIME["lib"])  # the runtime built here: accepted

    class Function:  # (runtime_text sets restype and argtypes, as on a ctypes function)
        restype: object = None
        argtypes: object = None

        def __call__(self) -> bytes:
            return real.replace("table_args=24", "table_args=32").encode()

    class Drifted:
        opgen_rt_abi_layout = Function()

    lib = Drifted()
    with pytest.raises(host.HostBackendError, match=r"the emulation runtime does not match this Python: .*"
                                                    r"opgen_batch_record\.table_args is at offset 32, Python packs "
                                                    r"it at 24"):
        libraries._check_layouts(lib)


def test_check_constants_names_the_constant_that_differs() -> None:
    abi_layout.check_constants("abi_version=4;max_shared_mem=232448", {"max_shared_mem": 227 * 1024})
    with pytest.raises(AbiLayoutError, match=r"the runtime's max_shared_mem is 232448, Python's is 49152: "
                                             r"codegen/runtime/host/limits.py and .*opgen_emu_abi.h disagree"):
        abi_layout.check_constants("abi_version=4;max_shared_mem=232448", {"max_shared_mem": 48 * 1024})
    with pytest.raises(AbiLayoutError, match=r"does not state the constant max_shared_mem \(it states abi_version\)"):
        abi_layout.check_constants("abi_version=4", {"max_shared_mem": 1})


def test_the_loader_refuses_a_runtime_whose_shared_memory_limit_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    """MAX_SHARED_MEM (host/limits.py) against the runtime's OPGEN_EMU_MAX_SMEM, at load."""
    from codegen.runtime import host
    from codegen.runtime.host import libraries

    host.load_runtime()
    lib = libraries._RUNTIME["lib"]
    assert abi_layout.runtime_text(lib, "opgen_rt_constants") == f"abi_version={host.ABI_VERSION};max_shared_mem=232448"
    libraries._check_layouts(lib)  # the runtime built here: accepted
    monkeypatch.setattr(libraries, "MAX_SHARED_MEM", 96 * 1024)  # a Python limit changed on its own
    with pytest.raises(host.HostBackendError, match=r"the emulation runtime does not match this Python: the "
                                                    r"runtime's max_shared_mem is 232448, Python's is 98304"):
        libraries._check_layouts(lib)
