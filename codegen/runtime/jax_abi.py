"""What a package's XLA FFI handlers (printed by codegen/jaxgen.py) and the runtime that calls them
(jax_bridge.py) agree on, importable by the compiler without NumPy or a backend (`opgen check` and
`opgen generate` import neither: tests/test_cli.py)."""

#: The attribute that says which optional inputs were given (bit k: the spec's input k).
PRESENT = "opgen_present"

#: The platforms a package's handlers are built for: JAX's name of each (register_ffi_target's
#: `platform`) and the suffix of its handlers' symbols (`<stem>_<suffix>`). Every library holds both;
#: jax_library.py registers the CUDA ones where JAX has a CUDA backend.
PLATFORMS = {"cpu": "cpu", "CUDA": "cuda"}


def handler_symbol(stem: str, platform: str) -> str:
    """The symbol of the handler `stem` (jaxgen.handler_stem) for `platform` (a key of PLATFORMS)."""
    return f"{stem}_{PLATFORMS[platform]}"
