"""Dtype facts shared by the runtime the generated wrappers import (codegen.runtime.checks) and the
compiler (codegen.model imports them from here: the runtime never imports the compiler), in a module
light enough for the runtime's import time."""

#: The dtype reductions over a dtype accumulate in: 16-bit floats in float32, others in themselves
#: (accumulator type variables, `S: {accumulates: T}`).
ACCUMULATOR = {"float16": "float32", "bfloat16": "float32", "float32": "float32", "float64": "float64"}
