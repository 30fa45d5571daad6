# Place and route on Lattice iCE40 parts (make fpga, docs/fpga.md).
#
# tpu_add_fpga_block(<name> TOP <module> SOURCES <files...> [PARAMS <Name=Value...>]
#                    DEVICE <hx8k|up5k> FREQ <MHz> [TEST_MIN_FMAX <MHz> [TEST_LABELS <labels>]])
#
# One row of the `fpga` target's table: the sources are read as tpu_synth_read() reads them for
# the synthesis checks, then scripts/fpga_flow.py synthesizes them with synth_ice40, places and
# routes with nextpnr-ice40 (FREQ: the clock constraint its timing-driven placement aims at),
# packs a bitstream and writes fpga/<name>.result.json in the build tree. The sources are read
# with TPU_FPGA_CARRY_CHAIN defined: the adds written as prefix adders for the logic-depth
# budget (tpu_add_ks.svh) are then plain `+`, which synth_ice40 maps to the fabric's carry
# chain (synth.add_ks proves the two equal). With TEST_MIN_FMAX,
# also a ctest `fpga.<name>` that runs the same flow and fails when the design no longer routes
# or its Fmax falls below TEST_MIN_FMAX (labels: TEST_LABELS, default "long;fpga").
set(TPU_FPGA_FLOW ${CMAKE_SOURCE_DIR}/scripts/fpga_flow.py)
set(TPU_FPGA_DIR ${CMAKE_BINARY_DIR}/fpga)
set_property(GLOBAL PROPERTY TPU_FPGA_BLOCKS "")

function(tpu_add_fpga_block name)
  cmake_parse_arguments(ARG "" "TOP;DEVICE;FREQ;TEST_MIN_FMAX" "SOURCES;PARAMS;TEST_LABELS"
                        ${ARGN})
  tpu_synth_read(body "${ARG_SOURCES}" "${ARG_PARAMS}" ${ARG_TOP})
  string(REPLACE "-DSYNTHESIS" "-DSYNTHESIS -DTPU_FPGA_CARRY_CHAIN" body "${body}")
  set(read ${TPU_FPGA_DIR}/${name}.read.ys)
  file(WRITE ${read} "${body}")
  set(cmd ${Python3_EXECUTABLE} ${TPU_FPGA_FLOW} run --name ${name} --read ${read}
      --top ${ARG_TOP} --device ${ARG_DEVICE} --freq ${ARG_FREQ} --out ${TPU_FPGA_DIR})
  set_property(GLOBAL APPEND PROPERTY TPU_FPGA_BLOCKS ${name})
  set_property(GLOBAL APPEND PROPERTY TPU_FPGA_COMMANDS COMMAND ${cmd})
  if(ARG_TEST_MIN_FMAX)
    if(NOT ARG_TEST_LABELS)
      set(ARG_TEST_LABELS long fpga)
    endif()
    add_test(NAME fpga.${name}
      COMMAND ${cmd} --must-route --min-fmax ${ARG_TEST_MIN_FMAX})
    set_tests_properties(fpga.${name} PROPERTIES LABELS "${ARG_TEST_LABELS}" TIMEOUT 1800)
  endif()
endfunction()

# tpu_add_fpga_target(): the `fpga` target, every block added so far in order, then the table.
function(tpu_add_fpga_target)
  get_property(blocks GLOBAL PROPERTY TPU_FPGA_BLOCKS)
  get_property(commands GLOBAL PROPERTY TPU_FPGA_COMMANDS)
  add_custom_target(fpga ${commands}
    COMMAND ${Python3_EXECUTABLE} ${TPU_FPGA_FLOW} table ${TPU_FPGA_DIR} ${blocks}
    COMMENT "iCE40 synthesis, place and route of every block (docs/fpga.md)"
    VERBATIM USES_TERMINAL)
endfunction()
