# -*- Python -*-

import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "GEMMC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".gemm", ".test"]
config.excludes = ["CMakeLists.txt", "README.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gemmc_obj_root, "test")

config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%gemmc_src_root", config.gemmc_src_root))
config.substitutions.append(("%examples", os.path.join(config.gemmc_src_root, "examples")))
config.substitutions.append(("%families", os.path.join(config.gemmc_obj_root, "share", "gemmc", "families")))
config.substitutions.append(("%mlir_docs", os.path.join(config.mlir_binary_dir, "docs")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.use_default_substitutions()

tool_dirs = [config.gemmc_tools_dir, config.llvm_tools_dir]
tools = ["gemmc", "gemmc-opt", "gemmc-tune", "split-file"]
if config.runtime_enabled:
    tool_dirs.append(os.path.join(config.gemmc_obj_root, "bin"))
    tools.extend(["gemm-check", "gemm-bench"])
    config.available_features.add("runtime")

if config.fuzzer_enabled:
    config.available_features.add("fuzzer")
    tools.append("gemmc-fuzz")

# ptxas validates every PTX we emit; tests that need it are skipped without it.
# GEMMC_LIT_NO_PTXAS=1 leaves it out on purpose: scripts/test.sh runs the
# second host compiler's lit suite so, after checking that its build wrote
# the same PTX as the first (which its suite assembled).
no_ptxas = os.environ.get("GEMMC_LIT_NO_PTXAS", "0") not in ("", "0")
if config.ptxas_path and os.path.exists(config.ptxas_path) and not no_ptxas:
    config.available_features.add("ptxas")
    tools.append(ToolSubst("%ptxas", config.ptxas_path))

# gemmc asks ptxas, through libnvJitLink in its own process, whether a
# kernel the schedule model suspects of spilling does (docs/dsl.md,
# "Registers"): the warnings tests expect depend on it.
if config.nvjitlink_path and os.path.exists(config.nvjitlink_path):
    config.available_features.add("nvjitlink")

llvm_config.add_tool_substitutions(tools, tool_dirs)
