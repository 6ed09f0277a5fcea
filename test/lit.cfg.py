# lit configuration of the Daydream regression tests.
#
# Tests are .test files with RUN: lines. Tools come from the build's bin/ and
# FileCheck, not, count and split-file from LLVM 14. Features:
#   shared-traces  ../shared/traces exists (real GPU traces; never copied here)
#   fuzzer         the libFuzzer targets were built (Clang builds)
#   rsvg-convert   SVG to PNG, for dd-sim -plot's test
#   cupti          dd-trace and its CUPTI record reader were built (the CUDA
#                  Toolkit was found); no GPU is needed
#   cuda-driver    a CUDA driver (libcuda.so.1) loads here, so CUPTI can trace
#   sanitize       the tools were built with ASan and UBSan (check-sanitize)
import os
import shutil
import sys

import lit.formats

config.name = "Daydream"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.excludes = ["Inputs", "Unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.daydream_obj_root, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.daydream_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
# Colours and LLVM's crash-report banner would only get in FileCheck's way.
config.environment["TERM"] = "dumb"

config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%examples", os.path.join(config.daydream_src_root, "examples")))
config.substitutions.append(("%utils", os.path.join(config.daydream_src_root, "utils")))
config.substitutions.append(("%fuzzers", config.daydream_tools_dir))
# The build folder (test/Examples installs it into a temporary prefix).
config.substitutions.append(("%daydream_build", config.daydream_obj_root))
# The plugins test/CMakeLists.txt builds for test/Plugins.
config.substitutions.append(("%plugins", os.path.join(config.daydream_obj_root, "test", "plugins")))

if os.path.isdir(config.shared_traces_dir):
    config.available_features.add("shared-traces")
    config.substitutions.append(("%shared_traces", config.shared_traces_dir))
# Inserted first: lit substitutes in order, and %shared_traces and %python
# are prefixes of these.
config.substitutions.insert(0, ("%shared_traces_or_empty",
                             config.shared_traces_dir
                             if os.path.isdir(config.shared_traces_dir) else '""'))
config.substitutions.append(("%daydream_src", config.daydream_src_root))
# The Python package (bindings/python), built unless sanitized.
if config.python_module_built:
    config.available_features.add("python-module")
    config.substitutions.insert(0, ("%python_module",
                                 os.path.join(config.daydream_obj_root, "python")))
    # The interpreter it was built for (Debian's, with numpy and pytest),
    # whichever runs lit.
    config.substitutions.insert(0, ("%module_python", config.module_python))
if config.fuzzers_built:
    config.available_features.add("fuzzer")
if config.sanitized:
    config.available_features.add("sanitize")
    # Any report ends the tool with a stack, which fails its test.
    config.environment["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
if config.cupti_built:
    config.available_features.add("cupti")
    config.substitutions.append(("%cupti_library", config.cupti_library))
# Seconds each fuzzer runs in the suite (DAYDREAM_FUZZ_SECONDS overrides).
config.substitutions.append(("%fuzz_seconds", os.environ.get("DAYDREAM_FUZZ_SECONDS", "30")))
if shutil.which("script"):
    config.available_features.add("script")
# Renders dd-sim -plot's SVG to PNG (Debian's librsvg2-bin, installed by
# utils/install-deps.sh).
if shutil.which("rsvg-convert"):
    config.available_features.add("rsvg-convert")
# mpi: dd-sim was built with MPI and Open MPI's mpirun is here. %mpirun runs
# a command as that many processes on this machine (loopback only; more
# processes than cores, and as root, which CI's containers are).
if config.mpi_built and config.mpiexec and os.path.exists(config.mpiexec):
    import subprocess
    try:
        _mpi_version = subprocess.run([config.mpiexec, "--version"], capture_output=True,
                                      text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        _mpi_version = ""
    if "Open MPI" in _mpi_version or "OpenRTE" in _mpi_version:
        config.available_features.add("mpi")
        _mpirun = config.mpiexec + " --oversubscribe -np"
        if config.sanitized:
            # Open MPI's own allocations outlive MPI_Finalize, which
            # LeakSanitizer would report as dd-sim's; they are suppressed by
            # library, which needs whole stacks (its components' frames are
            # unloaded by then, and only the callers in libmpi name them).
            _mpirun = ("env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:fast_unwind_on_malloc=0 "
                       "LSAN_OPTIONS=suppressions=" + os.path.join(
                           config.test_source_root, "tools", "dd-sim", "Inputs", "openmpi.supp")
                       + " " + _mpirun)
        config.substitutions.append(("%mpirun", _mpirun))
        config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
        # Shared memory without reading the other process's memory directly
        # (CMA), which containers that restrict ptrace refuse; as fast here.
        config.environment["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"
# dd-trace's injection library, built with the rest of dd-trace.
if config.cupti_built:
    config.substitutions.append(("%ddtrace_lib", config.ddtrace_library))
# With a CUDA driver, CUPTI really enables activity, so the tests of what
# libddtrace.so does without one do not apply.
try:
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
# test/Utils (utils/ddtrace_nvtx.py, utils/gpu/): features
#   shellcheck     shellcheck is installed (lints utils/gpu/validate.sh)
#   clang-format   clang-format-14 is installed (checks the C++ is formatted)
#   pyflakes       pyflakes3 or pyflakes is installed (lints the Python helpers)
#   torch          this Python imports torch and torchvision (CPU runs of the
#                  helpers and of the training suite against real PyTorch;
#                  utils/install-deps.sh installs Debian's)
# and %dd_tools, the folder of the built dd-import, dd-opt and dd-sim.
config.substitutions.append(("%dd_tools", config.daydream_tools_dir))
# The helpers they import must not leave __pycache__ folders in the checkout.
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"
# test/Utils/format.test: utils/format.sh --check needs Debian's clang-format-14.
if shutil.which("clang-format-14"):
    config.available_features.add("clang-format")
if shutil.which("shellcheck"):
    config.available_features.add("shellcheck")
for _pyflakes in ("pyflakes3", "pyflakes"):
    if shutil.which(_pyflakes):
        config.available_features.add("pyflakes")
        config.substitutions.append(("%pyflakes", shutil.which(_pyflakes)))
        break
try:
    import subprocess
    if subprocess.run([sys.executable, "-c", "import torch, torchvision"],
                      capture_output=True, timeout=120).returncode == 0:
        config.available_features.add("torch")
except (OSError, subprocess.SubprocessError):
    pass
