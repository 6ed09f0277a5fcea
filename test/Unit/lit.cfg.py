# lit runs the GoogleTest binaries (build/unittests/*Tests) as one suite each
# test case, so unit and regression tests are counted together.
import os

import lit.formats

config.name = "Daydream-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.daydream_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
