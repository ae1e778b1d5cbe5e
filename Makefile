# Thin wrapper around meson; every target installs what it needs first.
BUILD ?= build
# Seconds each fuzz target runs under `make fuzz`.
FUZZ_SECONDS ?= 120

.PHONY: all deps demo test bench fuzz clean

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

deps:
	@sh tools/install-deps.sh

$(BUILD)/build.ninja: | deps
	meson setup $(BUILD)

demo: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)
	sh examples/demo.sh $(BUILD)/symshape

# The tests also read ONNX's node tests and run the Python module's ONNX
# examples: their two packages come with the test set-up.
test: deps $(BUILD)/build.ninja
	@sh tools/install-deps.sh python3-onnx libonnx-testdata
	ninja -C $(BUILD)
	meson test -C $(BUILD) --print-errorlogs

bench:
	@sh tools/install-deps.sh python3-sympy python3-onnx valgrind
	@[ -f build-bench/build.ninja ] || meson setup build-bench --buildtype=release -Db_ndebug=true
	ninja -C build-bench
	python3 bench/compare.py build-bench/bench/bench_expr
	python3 bench/compare_models.py build-bench
	python3 bench/scaling.py build-bench
	python3 bench/bench_onnx.py build-bench
	python3 bench/compare_torch.py build-bench
	build-bench/bench/bench_cache

# Every libFuzzer target for FUZZ_SECONDS each (clang; build-fuzz), on a copy
# of its seed corpus; a crash, timeout or memory blow-up lands in
# build-fuzz/fuzz-artifacts/.
fuzz:
	sh tests/fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) build-bench build-san build-fuzz build-tsan
