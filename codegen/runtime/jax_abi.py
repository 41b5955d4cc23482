"""What a package's XLA FFI handlers (printed by codegen/jaxgen.py) and the runtime that calls them
(jax_bridge.py) agree on, importable by the compiler without NumPy or a backend (`opgen check` and
`opgen generate` import neither: tests/test_cli.py)."""

#: The attribute that says which optional inputs were given (bit k: the spec's input k).
PRESENT = "opgen_present"
