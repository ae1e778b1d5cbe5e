#!/bin/sh
# Shows canonical forms, exact values and equivalence checks on the bundled
# example shape expressions.
set -e
S=${1:-build/symshape}
DIR=$(dirname "$0")
echo "== canonical forms (examples/shapes.txt, every symbol >= 1)"
while IFS= read -r line; do
	[ -n "$line" ] || continue
	printf '  %-32s -> %s\n' "$line" "$("$S" simplify --dims "$line")"
done < "$DIR/shapes.txt"
echo
echo "== exact values"
for args in "(h - 1)//2 + 1 h=224" "ceil(seq/8)*8 seq=77" "s0*s0*s0 s0=10000000000" "-7 % 3" "7 // -2"; do
	# shellcheck disable=SC2086
	set -- $args
	expr=$1; shift
	while [ $# -gt 0 ] && ! echo "$1" | grep -q '='; do expr="$expr $1"; shift; done
	printf '  %-32s %-16s = %s\n' "$expr" "$*" "$("$S" eval "$expr" "$@")"
done
echo
echo "== equivalence"
check() {
	printf '  %-28s vs %-24s : ' "$1" "$2"
	"$S" equal --dims "$1" "$2" | tr '\n' ' '
	echo
}
check "((h + 1)//2 + 1)//2" "(h + 3)//4"
check "ceil(seq/8)*8" "((seq + 7)//8)*8"
check "(s0//2)*2" "s0"
check "x - (x//4)*4" "x % 4"
echo
echo "== decisions (every symbol >= 1)"
for p in "s0*s1 >= s0" "s0 < 0" "s0 >= 2"; do
	printf '  %-28s : %s\n' "$p" "$("$S" prove --dims "$p")"
done
