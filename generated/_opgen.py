# generated from specs/ by opgen — do not edit (opgen 0.1.0)
"""The opgen that generated this package, checked first thing at import: the runtime refuses code
generated for a generated-code ABI it does not run, with a message to regenerate it
(codegen/runtime/abi.py)."""

from codegen.runtime import abi as _abi

#: The opgen version that wrote this package.
OPGEN_VERSION = '0.1.0'
#: The generated-code ABI it was written for.
GENERATED_ABI = 4

_abi.check(__name__.rpartition(".")[0], GENERATED_ABI, OPGEN_VERSION)
