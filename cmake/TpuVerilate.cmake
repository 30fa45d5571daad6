# tpu_verilate(<target> PREFIX <p> TOP <module> SOURCES <files...> [PARAMS <Name=Value...>]
#              [NO_LOCALIZE])
#
# verilate() with the project's flags: lint warnings are errors (-Wall), assertions run
# (--assert), FST tracing is compiled in (opt-in at run time) and the model is optimized.
# Parameters override the top module's (e.g. PARAMS N=8 becomes -GN=8). A file named twice in
# SOURCES (block lists share rtl/prim/) is read once; `include finds ${TPU_RTL_INCLUDE_DIR}.
# SYNCASYNCNET is waived: with --assert, the assertions' `disable iff (!rst_ni)` samples the
# asynchronous reset synchronously, which is what an assertion should do; the flops themselves
# are checked without --assert by the lint tests. --x-initial unique: registers without reset
# start at zero, or random when a harness asks for it (HarnessOptions::random_init_seed).
# TPU_X_ASSIGN (default fast) is --x-assign: `unique` makes every X the RTL can produce (e.g. a
# read past the end of an array whose depth is not a power of two) a value drawn at start-up like the
# registers', so that the X-initialization runs (TPU_RANDOM_INIT_SEED, docs/regression.md) vary
# those too; the coverage build uses it (make coverage).
# TPU_COVERAGE (off by default; `make coverage` configures build-coverage with it, docs/coverage.md)
# adds line and toggle coverage: every harness then writes its counts when it is destroyed
# (testbench/common/verilated_harness.h); it builds one tpu_top (cmake/TpuDevices.cmake).
# TPU_VERILATE_NATIVE (on by default) compiles the models' per-cycle code for the building
# machine's CPU (-march=native): the Verilated code is integer logic, the same results on any
# CPU, and a build runs where it was made (CI builds on the machine it tests on). Measured
# (docs/performance.md, "Simulator build flags"): the MXU alone 7 - 13% faster, the whole
# system 4 - 12%. Off for a build to be copied to another CPU.
# NO_LOCALIZE (-fno-localize) keeps Verilator from turning variables used in one generated
# function into that function's locals: it zero-initializes every such local at the top of the
# function on each call, which in tpu_top is about 26 KB a clock of the activation pipeline's
# function locals (the pool's windows, the requantization's multiplier tree), computing or not.
# Measured on tpu_top (1 - 8% faster); the MXU alone is slower with it (its locals are few and
# small, and as members they cost loads and stores), so each model opts in.
option(TPU_COVERAGE "Verilate with line and toggle coverage (make coverage, docs/coverage.md)" OFF)
option(TPU_VERILATE_NATIVE "Compile Verilated models for this machine's CPU (-march=native)" ON)
set(TPU_VERILATE_COVERAGE_ARGS)
set(TPU_VERILATE_OPT_FAST -O2)
if(TPU_VERILATE_NATIVE)
  list(APPEND TPU_VERILATE_OPT_FAST -march=native)
endif()
set(TPU_VERILATE_OPT_SLOW -O1)
if(TPU_COVERAGE)
  set(TPU_VERILATE_COVERAGE_ARGS --coverage-line --coverage-toggle)
  # The instrumented models are large (a tpu_top is 180 MB of C++): -O1 compiles them in a
  # fraction of the time -O2 takes, and the regression still runs in minutes. The code run
  # once (construction, the coverage points' set-up: files of 4.5 MB each) at -O0: at -O1
  # each took over 6 minutes on a loaded machine, at -O0 15 s.
  set(TPU_VERILATE_OPT_FAST -O1)
  set(TPU_VERILATE_OPT_SLOW -O0)
endif()
set(TPU_X_ASSIGN fast CACHE STRING "Verilator --x-assign: fast, or unique (X-initialization runs)")
set_property(CACHE TPU_X_ASSIGN PROPERTY STRINGS fast unique)
if(NOT TPU_X_ASSIGN MATCHES "^(fast|unique)$")
  message(FATAL_ERROR "TPU_X_ASSIGN=${TPU_X_ASSIGN}: use fast or unique, e.g. -DTPU_X_ASSIGN=unique")
endif()
function(tpu_verilate target)
  cmake_parse_arguments(ARG "NO_LOCALIZE" "PREFIX;TOP" "SOURCES;PARAMS" ${ARGN})
  set(sources ${ARG_SOURCES})
  list(REMOVE_DUPLICATES sources)
  set(gparams)
  foreach(p IN LISTS ARG_PARAMS)
    list(APPEND gparams -G${p})
  endforeach()
  set(localize)
  if(ARG_NO_LOCALIZE)
    set(localize -fno-localize)
  endif()
  verilate(${target} TRACE_FST
    PREFIX ${ARG_PREFIX}
    TOP_MODULE ${ARG_TOP}
    INCLUDE_DIRS ${TPU_RTL_INCLUDE_DIR}
    VERILATOR_ARGS -Wall -Wno-SYNCASYNCNET --assert -O3 --x-assign ${TPU_X_ASSIGN}
                   --x-initial unique ${TPU_VERILATE_COVERAGE_ARGS} ${gparams} ${localize}
    OPT_FAST ${TPU_VERILATE_OPT_FAST}
    OPT_SLOW ${TPU_VERILATE_OPT_SLOW}
    SOURCES ${sources})
  if(TPU_SANITIZE)
    target_compile_options(${target} PRIVATE -fno-sanitize=all)
  endif()
  tpu_verilate_step(${target} ${ARG_PREFIX})
endfunction()

# Verilator alone, as a target of its own (<target>-<prefix>-verilated), listed for the
# aggregate targets `verilated` (the models `all` builds) and `verilated_bench` (every model).
# Why: verilate() reads the model's list of generated files when CMake configures. An RTL
# change that adds or renames generated files (a module Verilator keeps as a class of its own,
# a changed DepSet hash) is verilated during the build, but that build still compiles and links
# the old list and fails; the next configure reads the new one. So the Makefile builds
# `verilated` first and then the rest in a second `cmake --build`, which configures again
# when a list changed (README, "Building after an RTL change").
function(tpu_verilate_step target prefix)
  get_target_property(binary_dir ${target} BINARY_DIR)
  set(step ${target}-${prefix}-verilated)
  add_custom_target(${step}
    DEPENDS ${binary_dir}/CMakeFiles/${target}.dir/${prefix}.dir/${prefix}_copy.cmake)
  add_dependencies(${target} ${step})
  set_property(GLOBAL APPEND PROPERTY TPU_VERILATE_STEPS_BENCH ${step})
  get_target_property(excluded ${target} EXCLUDE_FROM_ALL)
  if(NOT excluded)
    set_property(GLOBAL APPEND PROPERTY TPU_VERILATE_STEPS ${step})
  endif()
endfunction()
