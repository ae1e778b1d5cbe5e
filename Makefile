# Thin wrapper around meson; every target installs what it needs first.
BUILD ?= build

.PHONY: all deps demo test bench clean

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

deps:
	@sh tools/install-deps.sh

$(BUILD)/build.ninja: | deps
	meson setup $(BUILD)

demo: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)
	sh examples/demo.sh $(BUILD)/symshape

test: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)
	meson test -C $(BUILD) --print-errorlogs

bench:
	@sh tools/install-deps.sh python3-sympy
	@[ -f build-bench/build.ninja ] || meson setup build-bench --buildtype=release -Db_ndebug=true
	ninja -C build-bench
	python3 bench/compare.py build-bench/bench/bench_expr
	python3 bench/compare_models.py build-bench
	@sh tools/install-deps.sh python3-onnx && python3 bench/bench_onnx.py build-bench

clean:
	rm -rf $(BUILD) build-bench build-san build-fuzz
