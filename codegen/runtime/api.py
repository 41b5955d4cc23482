"""What generated wrappers import as `_rt`: the argument checks and the scope lookup."""

from codegen.runtime.checks import (
    ACCUMULATOR,
    alias_view,
    check_bool,
    check_dtype,
    check_enum,
    check_float,
    check_int,
    check_int_list,
    check_list,
    check_same_dtype,
    check_str,
    check_type,
    check_values,
    check_values_on_device,
    constraint_error,
    merge_options,
    normalize_axis,
    op_repr,
    prod,
    python_int,
    shape_error,
)
from codegen.runtime.native_driver import NativeDriver
from codegen.runtime.plan import Plan, hold_if_capturing, plan_as_data, run_plan
from codegen.runtime.scope import backend_of
from codegen.runtime.torch_bridge import sym_max, sym_min, torch_call

__all__ = [
    "ACCUMULATOR", "NativeDriver", "Plan",
    "alias_view", "backend_of", "check_bool", "check_dtype", "check_enum", "check_float", "check_int",
    "check_int_list", "check_list", "check_same_dtype", "check_str", "check_type", "check_values",
    "check_values_on_device", "constraint_error", "hold_if_capturing", "merge_options", "normalize_axis", "op_repr",
    "plan_as_data", "prod", "python_int", "run_plan", "shape_error", "sym_max", "sym_min", "torch_call",
]
