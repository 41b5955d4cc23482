"""The checks that prove kernels, in the installed package: `opgen verify` (command.py) runs every
case of every op (cases.py: opgen's builders (builders.py), cases derived from the spec, a project's
cases files (case_files.py)) through the checks of checks.py, compares with compare.py and the op's
float64 reference (reference.py), reports the launch coverage (coverage.py) and prints report.py's
table or JSON. scripts/gpu_parity.py and scripts/gpu_sanitize.py are callers of the same modules."""
