#!/bin/sh
# Runs the libFuzzer targets for SECONDS each on a copy of their seed corpus.
# Usage: [FUZZ_RUNS=N] sh tests/fuzz/run.sh SECONDS [TARGET...]
# The default targets are every target of tests/fuzz/meson.build.
# Builds in build-fuzz (clang, -Dfuzz=true), installing clang when it is absent.
# Exits nonzero when a target crashes, times out or runs out of memory; the
# input is saved under build-fuzz/fuzz-artifacts/.
set -eu

secs=${1:-}
case "$secs" in
'' | *[!0-9]*)
	echo "usage: sh tests/fuzz/run.sh SECONDS [TARGET...]" >&2
	exit 2
	;;
esac
shift

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build=build-fuzz
[ $# -gt 0 ] || set -- $(sed -n "s/^ *\['\(fuzz_[a-z_]*\)', '[a-z_]*', .*\],*$/\1/p" tests/fuzz/meson.build)

command -v clang >/dev/null 2>&1 || sh tools/install-deps.sh clang
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" -Dfuzz=true -Dtests=true -Dbench=false
fi

# Limits: the goal is that an input of up to 270 bytes takes at most a
# second and 100 MB in the release build.  The fuzzers run under ASan and
# UBSan, which make the code several times slower and keep freed memory in
# a quarantine, so the limits here are that goal scaled: 5 s per input, and
# 512 MB for one allocation (-malloc_limit_mb; -rss_limit_mb counts the
# quarantine too, so it is left at its default).  An input over either
# limit is a finding like a crash.  -max_len keeps the expression targets'
# inputs at that size (the model targets get 4096 bytes for a graph); the
# seed files may be longer and are read whole.
timeout=${FUZZ_TIMEOUT:-5}
malloc_mb=${FUZZ_MALLOC_MB:-512}

artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
ninja -C "$build" $(for t in "$@"; do echo "tests/fuzz/$t"; done)
status=0
for target in "$@"; do
	corpus_name=${target#fuzz_}
	seeds="tests/fuzz/corpus/$corpus_name"
	work=$(mktemp -d "${TMPDIR:-/tmp}/symshape-$target.XXXXXX")
	cp "$seeds"/* "$work"/
	# the expression targets get inputs of the size the limits are about;
	# models need room for a graph
	case "$target" in
	fuzz_parse | fuzz_decide | fuzz_cli_args) max_len=${FUZZ_MAX_LEN:-270} ;;
	*) max_len=${FUZZ_MAX_LEN:-4096} ;;
	esac
	echo "fuzzing $target for ${secs}s on a copy of $seeds ($work)"
	# FUZZ_RUNS=N makes the run reproducible: N executions from seed 1
	# (SECONDS still caps it), as CI uses; otherwise fuzz for SECONDS
	if ! "$build/tests/fuzz/$target" -max_total_time="$secs" -max_len="$max_len" \
		${FUZZ_RUNS:+-runs=$FUZZ_RUNS -seed=1} \
		-timeout="$timeout" -malloc_limit_mb="$malloc_mb" \
		-print_final_stats=1 -artifact_prefix="$artifacts/$target-" \
		"$work"; then
		echo "$target: crash, timeout or out of memory; the input is in $artifacts/" >&2
		status=1
	fi
	rm -rf "$work"
done
exit $status
