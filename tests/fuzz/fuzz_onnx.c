/* libFuzzer target for the ONNX loader and the write-back.
 *
 * The input bytes are read as a ModelProto.  A rejected file must give an
 * error of one line; an accepted one is inferred (nodes that cannot be
 * inferred are reported, never a crash), and when inference succeeds the
 * model written back with the result must load again with as many nodes,
 * inputs and outputs. */
#include "model/ir.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                                                     \
	do {                                                                                                 \
		if (!(cond)) {                                                                               \
			fprintf(stderr, "fuzz_onnx: check failed: %s: ", #cond);                             \
			fprintf(stderr, __VA_ARGS__);                                                        \
			fprintf(stderr, "\n");                                                               \
			abort();                                                                             \
		}                                                                                            \
	} while (0)

static void check_error(sym_ctx *ctx)
{
	const char *msg = sym_ctx_last_message(ctx);
	CHECK(sym_ctx_last_error(ctx) != SYM_EOK, "NULL without an error");
	CHECK(msg && *msg && !strchr(msg, '\n'), "message is not one line: '%s'", msg ? msg : "(null)");
}

static void write_back(sym_ctx *ctx, const sym_model *m, const sym_graph_result *r, const uint8_t *data,
                       size_t size)
{
	size_t n = 0;
	unsigned char *out = sym_graph_to_onnx(ctx, r, data, size, &n);
	sym_model *back;
	if (!out) {
		check_error(ctx);
		sym_ctx_clear_error(ctx);
		return;
	}
	back = sym_model_from_onnx(ctx, out, n);
	CHECK(back != NULL, "the written model does not load: %s", sym_ctx_last_message(ctx));
	CHECK(back->nnodes == m->nnodes && back->ninputs == m->ninputs && back->noutputs == m->noutputs,
	      "the written model has %zu nodes, %zu inputs, %zu outputs; the original %zu, %zu, %zu",
	      back->nnodes, back->ninputs, back->noutputs, m->nnodes, m->ninputs, m->noutputs);
	sym_model_free(back);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m;
	sym_graph_result *r;
	if (!ctx)
		return 0;
	m = sym_model_from_onnx(ctx, data, size);
	if (!m) {
		check_error(ctx);
		sym_ctx_free(ctx);
		return 0;
	}
	r = sym_model_infer(ctx, m, NULL);
	if (!r) {
		check_error(ctx);
		sym_ctx_clear_error(ctx);
	} else {
		write_back(ctx, m, r, data, size);
		sym_graph_result_free(r);
	}
	sym_model_free(m);
	sym_ctx_free(ctx);
	return 0;
}
