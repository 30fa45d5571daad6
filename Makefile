# Thin front end over CMake and ctest. Every target installs missing Debian packages first
# (scripts/install-deps.sh, quick when all are present), then configures build/ if needed.
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CTEST_ARGS ?=

.PHONY: all deps configure run example-fashion example-deep example-mnist test test-long sanitize fuzz lint synth fpga depth waves bench bench-scale coverage format clean help

# Every build runs each model's Verilator step first (target `verilated`), then the build
# proper in a second call: an RTL change can change the list of files Verilator generates,
# which CMake reads when it configures, and the second call configures again when it did
# (cmake/TpuVerilate.cmake, tpu_verilate_step).
# $(call verilate_then_build,DIR,STEP) --target T: STEP (verilated or verilated_bench), then T.
verilate_then_build = cmake --build $(1) -j $(JOBS) --target $(2) && cmake --build $(1) -j $(JOBS)
BUILD_CMD = $(call verilate_then_build,$(BUILD),verilated)

all: configure  ## build everything the tests need
	$(BUILD_CMD)

deps:  ## install the Debian packages the project needs (idempotent)
	@bash scripts/install-deps.sh

# DEVICES: the device configurations to verilate (CMake's TPU_BUILD_DEVICES, README.md), e.g.
# DEVICES='ci;n64'; applied when given (an existing build is reconfigured), else CMake's default.
DEVICES ?=
configure: deps
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	@if [ -n "$(DEVICES)" ]; then cmake -B $(BUILD) -DTPU_BUILD_DEVICES='$(DEVICES)'; fi

RUN_DIR ?= $(BUILD)/run
run: configure  ## the main job: a dense layer on the RTL over the modeled PCIe link, checked vs golden
	$(BUILD_CMD) --target tpu
	python3 scripts/make_dense_inputs.py --m 256 --k 512 --n 256 --seed 1 $(RUN_DIR)
	$(BUILD)/host_driver/cli/tpu dense --input $(RUN_DIR)/x.npy --weights $(RUN_DIR)/w.npy \
	  --bias $(RUN_DIR)/b.npy --scale 0.0005 --activation relu --output $(RUN_DIR)/y.npy \
	  --backend rtl --pcie gen3x16 --check

test: all  ## build and run the whole test suite (unit, lint, synth)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE long $(CTEST_ARGS)

test-long: all  ## the nightly suite (label long)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L long $(CTEST_ARGS)

# The host tests (label host: no Verilated model) built in their own tree with AddressSanitizer
# and UndefinedBehaviorSanitizer (CMake option TPU_SANITIZE), any finding fatal. Only the devices
# that are always built are verilated there, uninstrumented, for the `tpu` binary the CLI tests run.
SANITIZE_BUILD ?= build-sanitize
# The one test ASan cannot judge (docs/robustness.md): its `tpu run` throws and catches an
# exception on the main stack after a SystemC simulation ran in the process; SystemC's
# coroutines switch stacks without telling ASan, which then leaves the unwound frames poisoned
# and reports the next use of that stack. It runs in `make test` as every other test.
SANITIZE_SKIP ?= ^TpuRunDataset.RtlPartialLastBatchChecked$$
sanitize: deps  ## the host tests under ASan + UBSan, in build-sanitize
	@test -f $(SANITIZE_BUILD)/CMakeCache.txt || cmake -S . -B $(SANITIZE_BUILD) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTPU_SANITIZE=ON -DTPU_BUILD_DEVICES=
	$(call verilate_then_build,$(SANITIZE_BUILD),verilated) --target host_tests
	cd $(SANITIZE_BUILD) && ctest --output-on-failure -j $(JOBS) -L host -E '$(SANITIZE_SKIP)' $(CTEST_ARGS)

# libFuzzer on the same readers (tests/fuzz), FUZZ_SECONDS each, in a clang build of its own.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
fuzz: deps  ## libFuzzer on the .npy reader, network parser and ISA decoder/assembler (clang), FUZZ_SECONDS each
	bash scripts/install-deps.sh --fuzz
	@test -f $(FUZZ_BUILD)/CMakeCache.txt || CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTPU_LIBFUZZER=ON -DTPU_BUILD_DEVICES=
	cmake -B $(FUZZ_BUILD) -DTPU_FUZZ_SECONDS=$(FUZZ_SECONDS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz

lint: configure  ## verilator --lint-only -Wall on every RTL module
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L lint

synth: configure  ## Yosys synthesis checks, then the cell statistics
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L synth
	@for f in $(BUILD)/synth/*.stat.txt; do echo "== $$f"; grep -E "Number of cells|mem_v2|DFF|Chip area" $$f | tail -8; done

# iCE40 place and route (docs/fpga.md): each block behind its serial-I/O wrapper (fpga/) on an
# HX8K or UP5K, a bitstream each, then the table (cells, DSPs, RAMs, flip-flops, Fmax, path).
fpga: configure  ## iCE40 HX8K/UP5K synthesis, place and route of each block, then the table
	cmake --build $(BUILD) --target fpga

# The logic-depth budget (docs/fpga.md): the ctests depth.* (labels synth and long), then the table.
depth: configure  ## deepest gate path of every block against the 64-level budget, then the table
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -R '^depth\.' $(CTEST_ARGS); \
	  status=$$?; cmake --build . --target depth_report; exit $$status

example-fashion: configure  ## the Fashion-MNIST CNN (examples/) on the RTL, checked vs golden
	$(BUILD_CMD) --target tpu
	BUILD=$(BUILD) examples/run.sh fashion_mnist_cnn

example-deep: configure  ## the deeper CNN (examples/) on the RTL, checked vs golden
	$(BUILD_CMD) --target tpu
	BUILD=$(BUILD) examples/run.sh deep_cnn

# MNIST_MODEL: seed (default) or deep; BACKEND=model runs the model device instead of the RTL.
MNIST_MODEL ?= seed
example-mnist: configure  ## real MNIST digits (examples/mnist): fetch, train, quantize, import, 2,000 test digits on the RTL with accuracy
	@bash scripts/install-deps.sh --mnist
	$(BUILD_CMD) --target tpu
	BUILD=$(BUILD) examples/mnist/run.sh $(MNIST_MODEL)

WAVES_DIR ?= $(BUILD)/waves
# WAVES_DEVICE: the device traced (a built one, `tpu --device`; default: the list's default). The
# system layouts are generated from its trace into $(WAVES_DIR), so they hold its signal widths;
# waveforms/*.gtkw are the same layouts for the default device.
WAVES_DEVICE ?=
waves_device = $(if $(WAVES_DEVICE),--device $(WAVES_DEVICE),)
waves: configure  ## system traces of a dense and a sliding-window conv layer (WAVES_DEVICE=NAME picks the device) with their layouts, an MXU trace
	$(BUILD_CMD) --target tpu mxu_demo
	python3 scripts/make_dense_inputs.py --m 64 --k 64 --n 32 --seed 1 $(WAVES_DIR)
	$(BUILD)/host_driver/cli/tpu dense --input $(WAVES_DIR)/x.npy --weights $(WAVES_DIR)/w.npy \
	  --bias $(WAVES_DIR)/b.npy --scale 0.0005 --activation relu --output $(WAVES_DIR)/y.npy \
	  --backend rtl --check --trace $(WAVES_DIR)/system_demo.fst $(waves_device)
	python3 scripts/make_dense_inputs.py --m 1 --k 32 --n 32 --conv 8,8,3,3 --seed 1 $(WAVES_DIR)/conv
	$(BUILD)/host_driver/cli/tpu conv2d --input $(WAVES_DIR)/conv/x.npy --weights $(WAVES_DIR)/conv/w.npy \
	  --bias $(WAVES_DIR)/conv/b.npy --padding same --scale 0.0005 --activation relu \
	  --output $(WAVES_DIR)/conv/y.npy --backend rtl --conv-lowering window --check \
	  --trace $(WAVES_DIR)/conv_demo.fst $(waves_device)
	python3 scripts/gen_pcie_dma_gtkw.py $(WAVES_DIR)/system_demo.fst $(WAVES_DIR)/pcie_dma.gtkw
	python3 scripts/gen_controller_gtkw.py $(WAVES_DIR)/system_demo.fst $(WAVES_DIR)/controller.gtkw
	$(BUILD)/bench/mxu_demo --m 24 --k 32 --n 16 --size 8 --seed 1 --trace $(WAVES_DIR)/mxu_demo.fst
	@echo "Layouts:  gtkwave $(WAVES_DIR)/system_demo.fst $(WAVES_DIR)/pcie_dma.gtkw"
	@echo "          gtkwave $(WAVES_DIR)/system_demo.fst $(WAVES_DIR)/controller.gtkw"
	@echo "          gtkwave $(WAVES_DIR)/conv_demo.fst $(WAVES_DIR)/controller.gtkw   (sliding-window conv)"
	@echo "          gtkwave $(WAVES_DIR)/mxu_demo.fst waveforms/mxu.gtkw"
	@if [ -n "$$DISPLAY" ]; then gtkwave $(WAVES_DIR)/system_demo.fst $(WAVES_DIR)/pcie_dma.gtkw & fi

bench: configure  ## benchmarks (not tests): utilization, throughput, simulation speed
	$(call verilate_then_build,$(BUILD),verilated_bench) --target bench

bench-scale: configure  ## every built device size side by side (DEVICES='ci;n64;v1' adds sizes): build time, speed, utilization
	$(call verilate_then_build,$(BUILD),verilated_bench) --target bench-scale

# COVERAGE_BUILD: the coverage build's folder (its own configuration: TPU_COVERAGE=ON, n16_small).
COVERAGE_BUILD ?= build-coverage
coverage: deps  ## line/toggle coverage of rtl/ over the RTL regression: report, annotated sources, docs/coverage.md
	COVERAGE_BUILD=$(COVERAGE_BUILD) JOBS=$(JOBS) bash scripts/coverage.sh

format:  ## clang-format every C++ source
	find host_driver testbench tests bench -name '*.cpp' -o -name '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD)

help:  ## this list
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 12
