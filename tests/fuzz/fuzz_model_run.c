/* libFuzzer target for a whole model run: bytes -> model -> infer ->
 * compile -> run.
 *
 * The input bytes describe a small model that the target writes as JSON
 * (SPEC §6): the first bytes give the inputs (rank, then each dim a
 * constant, a symbol or a linear expression of the symbols a, b, c, d), the
 * rest a chain of nodes, each an operator from a table with its operands
 * taken from the tensors before it and its attributes and constant inputs
 * (int64 initializers) from the following bytes.  Every node output is a
 * model output.  The model is inferred, compiled with every tensor, and run
 * at points derived from the input's hash; fuzz_check_model_program
 * compares each run with the exact evaluation of the inferred shapes.
 *
 * FUZZ_MODEL_RUN_PRINT=1 in the environment prints the JSON of each input,
 * to turn a crashing input into a model file. */
#define FUZZ_NAME "fuzz_model_run"
#include "fuzz_util.h"

#include <stdarg.h>

#define MAX_INPUTS 3
#define MAX_NODES 10

typedef struct reader {
	const uint8_t *p;
	size_t n;
} reader;

/* The next byte; 0 once the input is used up. */
static unsigned next_byte(reader *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

/* A small signed value in [-2, 5] */
static int small(reader *r)
{
	return (int)(next_byte(r) % 8) - 2;
}

typedef struct buf {
	char *s;
	size_t n, cap;
	int failed;
} buf;

static void put(buf *b, const char *f, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(buf *b, const char *f, ...)
{
	va_list ap;
	int k;
	if (b->failed)
		return;
	va_start(ap, f);
	k = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	if (k < 0) {
		b->failed = 1;
		return;
	}
	if (b->n + (size_t)k + 1 > b->cap) {
		size_t nc = (b->n + (size_t)k + 1) * 2;
		char *ns = realloc(b->s, nc);
		if (!ns) {
			b->failed = 1;
			return;
		}
		b->s = ns, b->cap = nc;
	}
	va_start(ap, f);
	vsnprintf(b->s + b->n, (size_t)k + 1, f, ap);
	va_end(ap);
	b->n += (size_t)k;
}

static const char *const symbols[] = {"a", "b", "c", "d"};
static const char *const dim_forms[] = {"2*a", "a+1", "b+c", "3*c-1", "a*b", "(d+1)//2"};

/* The JSON of one input dim. */
static void put_dim(buf *b, reader *r)
{
	unsigned v = next_byte(r);
	switch (v % 4) {
	case 0:
		put(b, "%u", 1 + (v >> 2) % 8);
		break;
	case 1:
	case 2:
		put(b, "\"%s\"", symbols[(v >> 2) % 4]);
		break;
	default:
		put(b, "\"%s\"", dim_forms[(v >> 2) % 6]);
		break;
	}
}

/* An int64 initializer "k<id>" of n values, each small(r) + bias. */
static void put_ints(buf *inits, int id, int n, reader *r, int bias)
{
	int i;
	put(inits, ",{\"name\":\"k%d\",\"dtype\":\"int64\",\"shape\":[%d],\"data\":[", id, n);
	for (i = 0; i < n; i++)
		put(inits, "%s%d", i ? "," : "", small(r) + bias);
	put(inits, "]}");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	reader rd = {data, size};
	buf b = {0}, inits = {0}, nodes = {0}, outs = {0};
	int ninputs = 1 + (int)(next_byte(&rd) % MAX_INPUTS), ntensors = ninputs, nnodes, i, kid = 0;
	uint64_t seed = fuzz_hash(data, size);
	sym_ctx *ctx;
	sym_model *m;
	sym_graph_result *r;

	put(&b, "{\"inputs\":[");
	for (i = 0; i < ninputs; i++) {
		int rank = (int)(next_byte(&rd) % 5), d;
		put(&b, "%s{\"name\":\"t%d\",\"dtype\":\"float32\",\"shape\":[", i ? "," : "", i);
		for (d = 0; d < rank; d++) {
			if (d)
				put(&b, ",");
			put_dim(&b, &rd);
		}
		put(&b, "]}");
	}
	put(&inits, "{\"name\":\"one\",\"dtype\":\"float32\",\"shape\":[]}");
	nnodes = 1 + (int)(next_byte(&rd) % MAX_NODES);
	for (i = 0; i < nnodes && rd.n; i++) {
		unsigned op = next_byte(&rd);
		int x = (int)(next_byte(&rd) % (unsigned)ntensors),
		    y = (int)(next_byte(&rd) % (unsigned)ntensors);
		int out = ntensors++;
		const char *sep = i ? "," : "";
		switch (op % 18) {
		case 0:
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Add\",\"inputs\":[\"t%d\",\"t%d\"],\"outputs\":["
			    "\"t%d\"]}",
			    sep, i, x, y, out);
			break;
		case 1:
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Mul\",\"inputs\":[\"t%d\",\"one\"],\"outputs\":["
			    "\"t%d\"]}",
			    sep, i, x, out);
			break;
		case 2:
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"MatMul\",\"inputs\":[\"t%d\",\"t%d\"],\"outputs\":["
			    "\"t%d\"]}",
			    sep, i, x, y, out);
			break;
		case 3:
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Concat\",\"inputs\":[\"t%d\",\"t%d\"],\"outputs\":["
			    "\"t%d\"],"
			    "\"attrs\":{\"axis\":%d}}",
			    sep, i, x, y, out, small(&rd));
			break;
		case 4:
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Transpose\",\"inputs\":[\"t%d\"],\"outputs\":[\"t%"
			    "d\"]}",
			    sep, i, x, out);
			break;
		case 5:
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Flatten\",\"inputs\":[\"t%d\"],\"outputs\":[\"t%"
			    "d\"],"
			    "\"attrs\":{\"axis\":%d}}",
			    sep, i, x, out, small(&rd));
			break;
		case 6: {
			int n = 1 + (int)(next_byte(&rd) % 4);
			put_ints(&inits, kid, n, &rd, -1);
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Reshape\",\"inputs\":[\"t%d\",\"k%d\"],\"outputs\":"
			    "[\"t%d\"]}",
			    sep, i, x, kid++, out);
			break;
		}
		case 7:
			put_ints(&inits, kid, 1, &rd, 0);
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Unsqueeze\",\"inputs\":[\"t%d\",\"k%d\"],"
			    "\"outputs\":[\"t%d\"]}",
			    sep, i, x, kid++, out);
			break;
		case 8:
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Squeeze\",\"inputs\":[\"t%d\"],\"outputs\":[\"t%"
			    "d\"]}",
			    sep, i, x, out);
			break;
		case 9:
			put_ints(&inits, kid, 1, &rd, 0);
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"ReduceSum\",\"inputs\":[\"t%d\",\"k%d\"],"
			    "\"outputs\":[\"t%d\"],"
			    "\"attrs\":{\"keepdims\":%u}}",
			    sep, i, x, kid++, out, next_byte(&rd) % 2);
			break;
		case 10:
			/* starts, ends, axes, steps */
			put_ints(&inits, kid, 1, &rd, 0);
			put_ints(&inits, kid + 1, 1, &rd, 1);
			put_ints(&inits, kid + 2, 1, &rd, 0);
			put_ints(&inits, kid + 3, 1, &rd, 0);
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Slice\",\"inputs\":[\"t%d\",\"k%d\",\"k%d\",\"k%"
			    "d\",\"k%d\"],"
			    "\"outputs\":[\"t%d\"]}",
			    sep, i, x, kid, kid + 1, kid + 2, kid + 3, out);
			kid += 4;
			break;
		case 11:
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Shape\",\"inputs\":[\"t%d\"],\"outputs\":[\"t%d\"]"
			    "}",
			    sep, i, x, out);
			break;
		case 12:
			put_ints(&inits, kid, 1 + (int)(next_byte(&rd) % 2), &rd, 0);
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Gather\",\"inputs\":[\"t%d\",\"k%d\"],\"outputs\":["
			    "\"t%d\"],"
			    "\"attrs\":{\"axis\":%d}}",
			    sep, i, x, kid++, out, small(&rd) % 2);
			break;
		case 13:
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Expand\",\"inputs\":[\"t%d\",\"t%d\"],\"outputs\":["
			    "\"t%d\"]}",
			    sep, i, x, y, out);
			break;
		case 14: {
			int k = 1 + (int)(next_byte(&rd) % 3), s = 1 + (int)(next_byte(&rd) % 3),
			    p = (int)(next_byte(&rd) % 2);
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"MaxPool\",\"inputs\":[\"t%d\"],\"outputs\":[\"t%"
			    "d\"],"
			    "\"attrs\":{\"kernel_shape\":[%d,%d],\"strides\":[%d,%d],\"pads\":[%d,%d,%d,%d],"
			    "\"ceil_mode\":%u}}",
			    sep, i, x, out, k, k, s, s, p, p, p, p, next_byte(&rd) % 2);
			break;
		}
		case 15: {
			int o = 1 + (int)(next_byte(&rd) % 4), c = 1 + (int)(next_byte(&rd) % 4),
			    k = 1 + (int)(next_byte(&rd) % 3), dl = 1 + (int)(next_byte(&rd) % 2);
			put(&inits, ",{\"name\":\"w%d\",\"dtype\":\"float32\",\"shape\":[%d,%d,%d,%d]}", kid,
			    o, c, k, k);
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Conv\",\"inputs\":[\"t%d\",\"w%d\"],\"outputs\":["
			    "\"t%d\"],"
			    "\"attrs\":{\"dilations\":[%d,%d],\"strides\":[%d,%d]}}",
			    sep, i, x, kid++, out, dl, dl, dl, 1);
			break;
		}
		case 16: {
			int n = 1 + (int)(next_byte(&rd) % 3);
			put_ints(&inits, kid, n, &rd, 0);
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Tile\",\"inputs\":[\"t%d\",\"k%d\"],\"outputs\":["
			    "\"t%d\"]}",
			    sep, i, x, kid++, out);
			break;
		}
		default:
			put(&nodes,
			    "%s{\"name\":\"n%d\",\"op\":\"Split\",\"inputs\":[\"t%d\"],\"outputs\":[\"t%d\","
			    "\"t%d_b\"],"
			    "\"attrs\":{\"axis\":%d,\"num_outputs\":2}}",
			    sep, i, x, out, out, small(&rd) % 3);
			break;
		}
		put(&outs, "%s\"t%d\"", i ? "," : "", out);
	}
	put(&b, "],\"initializers\":[%s],\"nodes\":[%s],\"outputs\":[%s]}", inits.s ? inits.s : "",
	    nodes.s ? nodes.s : "", outs.s ? outs.s : "");
	if (b.failed || inits.failed || nodes.failed || outs.failed)
		goto done;
	if (getenv("FUZZ_MODEL_RUN_PRINT"))
		printf("%s\n", b.s);
	ctx = sym_ctx_new();
	if (!ctx)
		goto done;
	m = sym_model_from_json(ctx, b.s, b.n);
	if (!m) {
		fuzz_check_error(ctx);
	} else {
		r = sym_model_infer(ctx, m, NULL);
		if (!r) {
			fuzz_check_error(ctx);
			sym_ctx_clear_error(ctx);
		} else {
			fuzz_check_model_program(ctx, r, 1, seed, 8);
			sym_graph_result_free(r);
		}
		sym_model_free(m);
	}
	sym_ctx_free(ctx);
done:
	free(b.s);
	free(inits.s);
	free(nodes.s);
	free(outs.s);
	return 0;
}
