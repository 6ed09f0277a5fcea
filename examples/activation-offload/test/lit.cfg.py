# lit tests of the activation-offload plugin, run against an installed
# Daydream: DD_PLUGIN is the built plugin, DD_TOOLS the folder of dd-opt and
# dd-sim (CMakeLists.txt's check-activation-offload sets both).
import os

import lit.formats

config.name = "activation-offload"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.environ.get("TMPDIR", "/tmp"), "activation-offload-tests")

for var in ("DD_PLUGIN", "DD_TOOLS"):
    if var not in os.environ:
        lit_config.fatal(var + " is not set (run the check-activation-offload target)")
config.environment["PATH"] = os.pathsep.join(
    [os.environ["DD_TOOLS"], "/usr/lib/llvm-14/bin", os.environ["PATH"]])
config.substitutions.append(("%plugin", os.environ["DD_PLUGIN"]))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
