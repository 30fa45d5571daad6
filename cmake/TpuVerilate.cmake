# tpu_verilate(<target> PREFIX <p> TOP <module> SOURCES <files...> [PARAMS <Name=Value...>])
#
# verilate() with the project's flags: lint warnings are errors (-Wall), assertions run
# (--assert), FST tracing is compiled in (opt-in at run time) and the model is optimized.
# Parameters override the top module's (e.g. PARAMS N=8 becomes -GN=8). A file named twice in
# SOURCES (block lists share rtl/prim/) is read once; `include finds ${TPU_RTL_INCLUDE_DIR}.
# SYNCASYNCNET is waived: with --assert, the assertions' `disable iff (!rst_ni)` samples the
# asynchronous reset synchronously, which is what an assertion should do; the flops themselves
# are checked without --assert by the lint tests. --x-initial unique: registers without reset
# start at zero, or random when a harness asks for it (HarnessOptions::random_init_seed).
function(tpu_verilate target)
  cmake_parse_arguments(ARG "" "PREFIX;TOP" "SOURCES;PARAMS" ${ARGN})
  set(sources ${ARG_SOURCES})
  list(REMOVE_DUPLICATES sources)
  set(gparams)
  foreach(p IN LISTS ARG_PARAMS)
    list(APPEND gparams -G${p})
  endforeach()
  verilate(${target} TRACE_FST
    PREFIX ${ARG_PREFIX}
    TOP_MODULE ${ARG_TOP}
    INCLUDE_DIRS ${TPU_RTL_INCLUDE_DIR}
    VERILATOR_ARGS -Wall -Wno-SYNCASYNCNET --assert -O3 --x-assign fast --x-initial unique
                   ${gparams}
    OPT_FAST -O2
    OPT_SLOW -O1
    SOURCES ${sources})
  if(TPU_SANITIZE)
    target_compile_options(${target} PRIVATE -fno-sanitize=all)
  endif()
endfunction()
