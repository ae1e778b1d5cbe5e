#!/bin/sh
# Runs the libFuzzer targets for SECONDS each on a copy of their seed corpus.
# Usage: [FUZZ_RUNS=N] sh tests/fuzz/run.sh SECONDS [TARGET...]   (default targets: fuzz_parse fuzz_onnx)
# Builds in build-fuzz (clang, -Dfuzz=true), installing clang when it is absent.
# Exits nonzero when a target crashes; the crashing input is saved under
# build-fuzz/fuzz-artifacts/.
set -eu

secs=${1:-}
case "$secs" in
'' | *[!0-9]*)
	echo "usage: sh tests/fuzz/run.sh SECONDS [TARGET...]" >&2
	exit 2
	;;
esac
shift
[ $# -gt 0 ] || set -- fuzz_parse fuzz_onnx

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build=build-fuzz

command -v clang >/dev/null 2>&1 || sh tools/install-deps.sh clang
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" -Dfuzz=true -Dtests=true -Dbench=false
fi

artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
status=0
for target in "$@"; do
	corpus_name=${target#fuzz_}
	seeds="tests/fuzz/corpus/$corpus_name"
	ninja -C "$build" "tests/fuzz/$target"
	work=$(mktemp -d "${TMPDIR:-/tmp}/symshape-$target.XXXXXX")
	cp "$seeds"/* "$work"/
	echo "fuzzing $target for ${secs}s on a copy of $seeds ($work)"
	# FUZZ_RUNS=N makes the run reproducible: N executions from seed 1
	# (SECONDS still caps it), as CI uses; otherwise fuzz for SECONDS
	if ! "$build/tests/fuzz/$target" -max_total_time="$secs" -max_len=4096 \
		${FUZZ_RUNS:+-runs=$FUZZ_RUNS -seed=1} \
		-timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts/" \
		"$work"; then
		echo "$target: crash; the input is in $artifacts/" >&2
		status=1
	fi
	rm -rf "$work"
done
exit $status
