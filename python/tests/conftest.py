# python/tests: the package over NumPy only (no GPU, CuPy or torch needed); libgpuval from
# GPUVAL_LIB (tests/python/run_pytest.sh sets it to the build's).
pytest_plugins = ["pytester"]
