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

echo
echo "== a transformer block with batch and sequence dims (examples/transformer.json)"
"$S" infer "$DIR/transformer.json" | sed -n '/^symbols:/,/^tensors:/p;/^guards:/,$p'
echo
echo "== run at batch 2, sequence 128"
"$S" run "$DIR/transformer.json" --shape x=2,128,768 --shape mask=2,1,1,128 | grep -E '^ok|  (x|mask|qkv_5d|scores|y) '
echo
echo "== a CNN with strided convs and pooling (examples/cnn.json)"
"$S" infer "$DIR/cnn.json" | sed -n '/^tensors:/,$p'
echo
echo "== run at 224x224, then at 8x8 (too small for the network)"
"$S" run "$DIR/cnn.json" --shape x=8,3,224,224 | grep -E '^ok|  (c1|p1|c3|p2|logits) '
"$S" run "$DIR/cnn.json" --shape x=8,3,8,8 || true
echo
echo "== the guard cache: a variant specialised for mask sequence == sequence"
"$S" cache "$DIR/transformer.json" --jit --variant 'batch=2,mbatch=2,seq=128,mseq=128' \
	--query 'x=2,128,768;mask=2,1,1,128' \
	--query 'x=4,128,768;mask=4,1,1,128' \
	--query 'x=2,128,768;mask=2,1,1,1' \
	--query 'x=2,64,768;mask=2,1,1,1' \
	--query 'x=2,128,512;mask=2,1,1,128' \
	--query 'x=2,128,768;mask=3,1,1,128'

echo
echo "== storage formats and byte sizes (examples/storage.json)"
"$S" infer "$DIR/storage.json" | grep -E '^  (x|w|m) |storage|bytes|total' | head -12
"$S" run "$DIR/storage.json" --shape x=8,3,224,224 --shape w=16,3,3,3 --shape b=16 \
	--shape m=2,100,40 --shape q=8,3,224,224 --shape v=8,3,4,224,224 --shape z=8,224,224,3 |
	sed -n '/^storage shapes:/,/^  m /p;/^total/p'

echo
echo "== an exported ONNX model (tests/fixtures/onnx/transformer.onnx)"
ONNX="$DIR/../tests/fixtures/onnx/transformer.onnx"
if [ -f "$ONNX" ]; then
	"$S" infer "$ONNX" | sed -n '/^symbols:/,/^tensors:/p' | head -8
	"$S" infer "$ONNX" --json | grep -c '"shape"' | sed 's/^/  tensors with a shape: /'
fi
