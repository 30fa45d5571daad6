# tpu_synth_read(<var> <sources> <params> <top>): sets <var> to the Yosys commands that read the
# sources as a synthesis flow would (-DSYNTHESIS; a file named twice is read once) and set the
# top's parameters (Name=Value each).
function(tpu_synth_read var sources params top)
  list(REMOVE_DUPLICATES sources)
  string(JOIN " " files ${sources})
  set(body "read_verilog -sv -DSYNTHESIS -I${TPU_RTL_INCLUDE_DIR} ${files}\n")
  foreach(p IN LISTS params)
    string(REPLACE "=" ";" kv ${p})
    list(GET kv 0 key)
    list(GET kv 1 value)
    string(APPEND body "chparam -set ${key} ${value} ${top}\n")
  endforeach()
  set(${var} "${body}" PARENT_SCOPE)
endfunction()

# tpu_add_synth_test(<name> TOP <module> SOURCES <files...> [PARAMS <Name=Value...>]
#                    [CHECKS <yosys commands...>] [LABEL <label>])
#
# A ctest `synth.<name>` (label `synth`) that reads the files with Yosys 0.23 the way a
# synthesis flow would (-DSYNTHESIS: per-cycle assertions vanish, parameter checks are
# elaboration errors), sets the parameters, synthesizes the top generically and fails if the
# design does not elaborate, has a problem `check` finds, or infers a latch. CHECKS are extra
# Yosys commands run after synthesis, e.g. "select -assert-min 1 t:$mem_v2". A file named twice
# in SOURCES (block lists share rtl/prim/) is read once. The cell statistics are written to
# synth/<name>.stat.txt in the build tree (make synth prints them). LABEL replaces the label
# `synth`, e.g. `long` for the large sizes.
function(tpu_add_synth_test name)
  cmake_parse_arguments(ARG "" "TOP;FLOW;LABEL" "SOURCES;PARAMS;CHECKS" ${ARGN})
  if(NOT YOSYS)
    message(WARNING "yosys not found: synth.${name} not added")
    return()
  endif()
  set(dir ${CMAKE_BINARY_DIR}/synth)
  set(script ${dir}/${name}.ys)
  tpu_synth_read(body "${ARG_SOURCES}" "${ARG_PARAMS}" ${ARG_TOP})
  if(NOT ARG_FLOW)
    set(ARG_FLOW "synth -top ${ARG_TOP}")
  endif()
  string(APPEND body
    "hierarchy -check -top ${ARG_TOP}\n"
    "${ARG_FLOW}\n"
    "check -assert\n"
    "select -assert-none t:$dlatch t:$adlatch t:$dlatchsr t:$_DLATCH_* t:$_DLATCHSR_*\n")
  foreach(c IN LISTS ARG_CHECKS)
    string(APPEND body "${c}\n")
  endforeach()
  string(APPEND body "tee -q -o ${dir}/${name}.stat.txt stat\n")
  file(WRITE ${script} "${body}")
  add_test(NAME synth.${name}
    COMMAND ${YOSYS} -q -l ${dir}/${name}.log -s ${script})
  if(NOT ARG_LABEL)
    set(ARG_LABEL synth)
  endif()
  # synth.top_n16 and synth.core_n16 took 704 - 777 s on the 2-core CI machines (2026-11-27),
  # creeping up to 900: twice that leaves room for a slower machine.
  set(timeout 1800)
  if(ARG_LABEL STREQUAL "long")
    set(timeout 3600)
  endif()
  set_tests_properties(synth.${name} PROPERTIES LABELS ${ARG_LABEL} TIMEOUT ${timeout})
endfunction()

# tpu_add_synth_reject_test(<name> TOP <module> SOURCES <files...> PARAMS <Name=Value...>
#                           EXPECT <check name>)
#
# A ctest `synth.<name>` (label `synth`) that reads the files as tpu_add_synth_test() does, sets
# parameters that violate one of the design's parameter checks (TPU_ASSERT_INIT, a
# generate-time $error under SYNTHESIS) and passes only if Yosys stops elaboration with
# "parameter check <EXPECT> failed" (and fails if the design elaborates).
function(tpu_add_synth_reject_test name)
  cmake_parse_arguments(ARG "" "TOP;EXPECT" "SOURCES;PARAMS" ${ARGN})
  if(NOT YOSYS)
    message(WARNING "yosys not found: synth.${name} not added")
    return()
  endif()
  set(dir ${CMAKE_BINARY_DIR}/synth)
  set(script ${dir}/${name}.ys)
  tpu_synth_read(body "${ARG_SOURCES}" "${ARG_PARAMS}" ${ARG_TOP})
  string(APPEND body "hierarchy -check -top ${ARG_TOP}\n")
  file(WRITE ${script} "${body}")
  add_test(NAME synth.${name} COMMAND ${YOSYS} -q -l ${dir}/${name}.log -s ${script})
  # PASS_REGULAR_EXPRESSION ignores the exit status: Yosys's error message is the verdict.
  set_tests_properties(synth.${name} PROPERTIES LABELS synth TIMEOUT 900
    PASS_REGULAR_EXPRESSION "ERROR: parameter check ${ARG_EXPECT} failed")
endfunction()

# tpu_add_depth_test(<name> TOP <module> SOURCES <files...> [PARAMS <Name=Value...>]
#                    [LABEL <label>])
#
# A ctest `depth.<name>` (label `synth`, or LABEL) for the logic-depth budget (docs/fpga.md):
# scripts/logic_depth.py synthesizes the top generically, flattened, maps it to two-input gates
# (`abc -g`), measures its longest path between flip-flops and ports (`ltp -noff`) and fails
# above the block's ceiling: the 64-level budget, or the higher ceiling the list
# TPU_DEPTH_CEILINGS names for a block not yet pipelined. Results in depth/<name>.depth.json
# in the build tree (make depth prints them).
set(TPU_DEPTH_SCRIPT ${CMAKE_SOURCE_DIR}/scripts/logic_depth.py)
set(TPU_DEPTH_CEILINGS ${CMAKE_SOURCE_DIR}/tests/synth/depth_ceilings.txt)
set_property(GLOBAL PROPERTY TPU_DEPTH_BLOCKS "")
function(tpu_add_depth_test name)
  cmake_parse_arguments(ARG "" "TOP;LABEL" "SOURCES;PARAMS" ${ARGN})
  if(NOT YOSYS)
    message(WARNING "yosys not found: depth.${name} not added")
    return()
  endif()
  set(dir ${CMAKE_BINARY_DIR}/depth)
  tpu_synth_read(body "${ARG_SOURCES}" "${ARG_PARAMS}" ${ARG_TOP})
  file(WRITE ${dir}/${name}.read.ys "${body}")
  add_test(NAME depth.${name}
    COMMAND ${Python3_EXECUTABLE} ${TPU_DEPTH_SCRIPT} check --name ${name}
            --read ${dir}/${name}.read.ys --top ${ARG_TOP} --ceilings ${TPU_DEPTH_CEILINGS}
            --out ${dir})
  if(NOT ARG_LABEL)
    set(ARG_LABEL synth)
  endif()
  set_tests_properties(depth.${name} PROPERTIES LABELS ${ARG_LABEL} TIMEOUT 1800)
  set_property(GLOBAL APPEND PROPERTY TPU_DEPTH_BLOCKS ${name})
endfunction()

# tpu_add_equiv_test(<name> <primitive.sv|.svh> <gold> <gate> [SEQUENTIAL])
#
# A ctest `synth.<name>` (label `synth`): Yosys SAT proves two modules equal for every input,
# `gold` (the plain operator) and `gate` (the primitive under test around it), both given as
# Verilog text with the same ports. A primitive that is a function in a .svh file is not read
# on its own: `gate` includes it. Combinational by default; SEQUENTIAL proves the outputs
# equal in every cycle, by induction from zeroed registers.
function(tpu_add_equiv_test name prim gold gate)
  if(NOT YOSYS)
    message(WARNING "yosys not found: synth.${name} not added")
    return()
  endif()
  set(sat "sat -verify -prove-asserts")
  if("${ARGV4}" STREQUAL "SEQUENTIAL")
    string(APPEND sat " -tempinduct -set-init-zero")
  endif()
  set(script ${CMAKE_BINARY_DIR}/synth/${name}.ys)
  set(read_prim "read_verilog -sv -DSYNTHESIS -I${TPU_RTL_INCLUDE_DIR} ${prim}\n")
  if(prim MATCHES "\\.svh$")
    set(read_prim "")
  endif()
  file(WRITE ${script}
    "${read_prim}"
    "read_verilog -sv -DSYNTHESIS -I${TPU_RTL_INCLUDE_DIR} <<EOT\n${gold}\n${gate}\nEOT\n"
    "hierarchy -check\n"
    "proc\n"
    "flatten\n"
    "miter -equiv -flatten -make_assert gold gate miter\n"
    "hierarchy -top miter\n"
    "${sat} miter\n")
  add_test(NAME synth.${name}
    COMMAND ${YOSYS} -q -l ${CMAKE_BINARY_DIR}/synth/${name}.log -s ${script})
  set_tests_properties(synth.${name} PROPERTIES LABELS synth TIMEOUT 300)
endfunction()
