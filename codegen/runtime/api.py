"""What generated wrappers import as `_rt`: the argument checks and the scope lookup."""

from codegen.runtime.checks import (
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
    constraint_error,
    merge_options,
    op_repr,
    shape_error,
)
from codegen.runtime.scope import backend_of

__all__ = [
    "backend_of", "check_bool", "check_dtype", "check_enum", "check_float", "check_int", "check_int_list",
    "check_list", "check_same_dtype", "check_str", "check_type", "constraint_error", "merge_options", "op_repr",
    "shape_error",
]
