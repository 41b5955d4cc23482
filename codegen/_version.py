"""opgen's version: the one place it is written. pyproject.toml reads it (setuptools' dynamic
`version = {attr = "codegen._version.__version__"}`), `codegen.__version__` and `opgen --version`
show it, and generated files record it."""

__version__ = "0.1.0"
