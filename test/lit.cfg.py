# lit configuration of the Daydream regression tests.
#
# Tests are .test files with RUN: lines. Tools come from the build's bin/ and
# FileCheck, not, count and split-file from LLVM 14. Features:
#   shared-traces  ../shared/traces exists (real GPU traces; never copied here)
#   fuzzer         the libFuzzer targets were built (Clang builds)
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

if os.path.isdir(config.shared_traces_dir):
    config.available_features.add("shared-traces")
    config.substitutions.append(("%shared_traces", config.shared_traces_dir))
if config.fuzzers_built:
    config.available_features.add("fuzzer")
# Seconds each fuzzer runs in the suite (DAYDREAM_FUZZ_SECONDS overrides).
config.substitutions.append(("%fuzz_seconds", os.environ.get("DAYDREAM_FUZZ_SECONDS", "30")))
if shutil.which("script"):
    config.available_features.add("script")
