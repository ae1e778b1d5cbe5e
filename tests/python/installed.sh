#!/bin/sh
# The installed prefix works: `meson install --destdir` into a temporary
# directory, then Debian's /usr/bin/python3 imports the installed module (not
# the build tree's: PYTHONPATH names the destdir's site-packages alone, the
# working directory is the destdir) and runs it, the installed CLI runs, and
# a C program builds against the installed headers and library.
# Usage: sh tests/python/installed.sh BUILD_DIR [MESON]
set -eu
build=$(cd "${1:-build}" && pwd)
meson=${2:-meson}
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
"$meson" install -C "$build" --no-rebuild --destdir "$tmp" --quiet >"$tmp/install.log" 2>&1 || {
	cat "$tmp/install.log"
	echo "FAIL meson install --destdir"
	exit 1
}
init=$(find "$tmp" -path '*/symshape/__init__.py' | head -n 1)
[ -n "$init" ] || { echo "FAIL no symshape/__init__.py under the destdir"; exit 1; }
site=$(dirname "$(dirname "$init")")
ls "$site"/symshape/_symshape*.so >/dev/null || { echo "FAIL no extension module in $site/symshape"; exit 1; }
cp "$src/tests/models/diff/conv_reshape.json" "$src/tests/models/diff/conv_pad0.json" "$tmp/"
cd "$tmp"
PYTHONPATH="$site" /usr/bin/python3 - "$site" <<'PY'
import os, sys
import symshape
site = sys.argv[1]
assert os.path.realpath(symshape.__file__).startswith(os.path.realpath(site)), symshape.__file__
h = symshape.symbols("h")
assert str(symshape.simplify((2*h + 4)//2)) == "h + 2"
assert symshape.equal((h - 1)//2 + 1, (h + 1)//2, dims=True)[0] is True
r = symshape.infer("conv_reshape.json")
prog = r.compile()
assert prog.shapes({"x": (1, 3, 9, 9)})["y"] == (1, 200), prog.shapes({"x": (1, 3, 9, 9)})
d = symshape.diff("conv_reshape.json", "conv_pad0.json")
assert d.answer is False and d.witness, d
print("installed module:", os.path.dirname(symshape.__file__))
PY
cli=$(find "$tmp" -path '*/bin/symshape' | head -n 1)
[ -n "$cli" ] || { echo "FAIL no bin/symshape under the destdir"; exit 1; }
[ "$("$cli" diff conv_reshape.json conv_reshape.json)" = same ] || { echo "FAIL installed CLI"; exit 1; }
# A C program against the installed headers and shared library (when a
# compiler is at hand; under sanitizers the library needs their runtimes).
hdr=$(find "$tmp" -path '*/include/symshape/symshape.h' | head -n 1)
lib=$(find "$tmp" -name 'libsymshape.so' | head -n 1)
[ -n "$hdr" ] && [ -n "$lib" ] || { echo "FAIL headers or library not installed"; exit 1; }
if command -v "${CC:-cc}" >/dev/null 2>&1 && [ -z "${LD_PRELOAD:-}" ]; then
	cat >prog.c <<'C'
#include <stdio.h>
#include <symshape/symshape.h>
int main(void)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m = sym_model_load(ctx, "conv_reshape.json");
	sym_graph_result *r = m ? sym_model_infer(ctx, m, NULL) : NULL;
	sym_model_diff *d = r ? sym_graph_diff(ctx, r, r, NULL) : NULL;
	int ok = d && sym_model_diff_answer(d) == SYM_TRUE;
	sym_model_diff_free(d), sym_graph_result_free(r), sym_model_free(m), sym_ctx_free(ctx);
	puts(ok ? "same" : "not same");
	return !ok;
}
C
	"${CC:-cc}" -std=c11 prog.c -I"$(dirname "$(dirname "$hdr")")" -L"$(dirname "$lib")" -lsymshape -o prog
	LD_LIBRARY_PATH="$(dirname "$lib")" ./prog >/dev/null || { echo "FAIL C program against the installed prefix"; exit 1; }
fi
echo "installed prefix: ok"
