/* libFuzzer target for the JSON model loader.
 *
 * The input bytes are read as a JSON model (SPEC §6).  A rejected model must
 * give an error of one line; an accepted one is inferred (with empty dims
 * allowed or not, chosen from the input's hash) and every part of the result
 * is walked and printed.  When inference succeeds the result is compiled
 * into a model program and run at a few points, checked against the exact
 * evaluation of the inferred shapes (fuzz_check_model_program). */
#define FUZZ_NAME "fuzz_json_model"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t seed = fuzz_hash(data, size);
	sym_infer_options opt;
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m;
	sym_graph_result *r;
	if (!ctx)
		return 0;
	m = sym_model_from_json(ctx, (const char *)data, size);
	if (!m) {
		fuzz_check_error(ctx);
		sym_ctx_free(ctx);
		return 0;
	}
	memset(&opt, 0, sizeof(opt));
	opt.allow_empty = (int)(seed & 1);
	r = sym_model_infer(ctx, m, &opt);
	if (!r) {
		fuzz_check_error(ctx);
		sym_ctx_clear_error(ctx);
	} else {
		fuzz_walk_result(ctx, r);
		fuzz_check_model_program(ctx, r, (int)((seed >> 1) & 1), seed, 4);
		sym_graph_result_free(r);
	}
	sym_model_free(m);
	sym_ctx_free(ctx);
	return 0;
}
