"""Independent float64 NumPy references for the ops' correctness tests.

Nothing here imports the project's code: each module restates an op's documented semantics in
plain NumPy so that the tests compare the generated kernels against a second, separate reading.
"""
