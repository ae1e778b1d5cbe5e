/* Storage shapes, byte sizes, shape ranges, unknown rank and data-dependent
 * dims: the format definitions as table vectors (concrete and symbolic
 * dims), byte sizes with alignment, and the models of tests/models/storage_ranges
 * through inference and the runtime program, compared with exact
 * evaluation at random dims (seeded from SYM_TEST_SEED). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "infer/passes.h"
#include "infer/storage.h"
#include "test_util.h"

/* Parses "[a, b, c]" (top-level commas) into dims; returns the rank. */
static int parse_dims(sym_ctx *ctx, const char *text, const sym_expr **dims)
{
	char buf[512], *p, *start;
	int depth = 0, n = 0;
	snprintf(buf, sizeof(buf), "%s", text + 1);
	buf[strlen(buf) - 1] = 0;
	if (!*buf)
		return 0;
	for (p = start = buf;; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		if ((*p == ',' && !depth) || !*p) {
			int end = !*p;
			*p = 0;
			dims[n] = sym_expr_from_str(ctx, start);
			assert_non_null(dims[n]);
			n++;
			if (end)
				break;
			start = p + 1;
		}
	}
	return n;
}

static char *print_dims(sym_ctx *ctx, int rank, const sym_expr *const *dims)
{
	static char buf[1024];
	size_t len = 0;
	int d;
	buf[len++] = '[';
	for (d = 0; d < rank; d++) {
		char *t = sym_expr_to_str(ctx, dims[d]);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", d ? ", " : "", t);
		sym_str_free(ctx, t);
	}
	snprintf(buf + len, sizeof(buf) - len, "]");
	return buf;
}

static const struct svec {
	const char *origin, *storage, *dtype, *shape, *want;
} vectors[] = {
    /* the seed's example */
    {"NCHW", "NC1HWC0", "float16", "[8, 3, 224, 224]", "[8, 1, 224, 224, 16]"},
    {"NCHW", "NC1HWC0", "float32", "[N, C, H, W]", "[N, (C + 15)//16, H, W, 16]"},
    {"NCHW", "NC1HWC0", "bfloat16", "[2, 17, 5, 5]", "[2, 2, 5, 5, 16]"},
    {"NCHW", "NC1HWC0", "int8", "[N, C, H, W]", "[N, (C + 31)//32, H, W, 32]"},
    {"NCHW", "NC1HWC0", "uint8", "[1, 64, 7, 7]", "[1, 2, 7, 7, 32]"},
    {"NCHW", "NC1HWC0", "float16", "[N, 2*C, H, W]", "[N, (C + 7)//8, H, W, 16]"},
    {"NHWC", "NC1HWC0", "float16", "[N, H, W, C]", "[N, (C + 15)//16, H, W, 16]"},
    {"NHWC", "NC1HWC0", "float16", "[2, 5, 5, 33]", "[2, 3, 5, 5, 16]"},
    {"HWCN", "NC1HWC0", "float16", "[H, W, C, N]", "[N, (C + 15)//16, H, W, 16]"},
    /* lower ranks expand around the channel axis first */
    {"NCHW", "NC1HWC0", "float16", "[C]", "[1, (C + 15)//16, 1, 1, 16]"},
    {"NCHW", "NC1HWC0", "float16", "[40]", "[1, 3, 1, 1, 16]"},
    {"NCHW", "NC1HWC0", "float16", "[C, H]", "[1, (C + 15)//16, H, 1, 16]"},
    {"NCHW", "NC1HWC0", "float16", "[C, H, W]", "[1, (C + 15)//16, H, W, 16]"},
    {"NCHW", "NC1HWC0", "float16", "[]", "[1, 1, 1, 1, 16]"},
    {"NHWC", "NC1HWC0", "float16", "[C]", "[1, (C + 15)//16, 1, 1, 16]"},
    {"NHWC", "NC1HWC0", "float16", "[W, C]", "[1, (C + 15)//16, 1, W, 16]"},
    {"NCDHW", "NDC1HWC0", "float16", "[N, C, D, H, W]", "[N, D, (C + 15)//16, H, W, 16]"},
    {"NDHWC", "NDC1HWC0", "float32", "[2, 4, 8, 8, 33]", "[2, 4, 3, 8, 8, 16]"},
    {"NDHWC", "NDC1HWC0", "int8", "[N, D, H, W, C]", "[N, D, (C + 31)//32, H, W, 32]"},
    {"NCDHW", "NDC1HWC0", "float16", "[C]", "[1, 1, (C + 15)//16, 1, 1, 16]"},
    {"NCHW", "FRACTAL_Z", "float16", "[K, C, 3, 3]", "[9*((C + 15)//16), (K + 15)//16, 16, 16]"},
    {"NCHW", "FRACTAL_Z", "float16", "[64, 3, 7, 7]", "[49, 4, 16, 16]"},
    {"NCHW", "FRACTAL_Z", "int8", "[64, 64, 3, 3]", "[18, 4, 16, 32]"},
    {"NCHW", "FRACTAL_Z", "float32", "[K, C, R, S]", "[R*S*((C + 15)//16), (K + 15)//16, 16, 16]"},
    {"HWCN", "FRACTAL_Z", "float16", "[3, 3, C, K]", "[9*((C + 15)//16), (K + 15)//16, 16, 16]"},
    {"NHWC", "FRACTAL_Z", "float16", "[K, 1, 1, 20]", "[2, (K + 15)//16, 16, 16]"},
    {"ND", "FRACTAL_NZ", "float16", "[M, K]", "[(K + 15)//16, (M + 15)//16, 16, 16]"},
    {"ND", "FRACTAL_NZ", "float16", "[100, 33]", "[3, 7, 16, 16]"},
    {"ND", "FRACTAL_NZ", "float32", "[B, S, M, K]", "[B, S, (K + 15)//16, (M + 15)//16, 16, 16]"},
    {"ND", "FRACTAL_NZ", "int8", "[M, K]", "[(K + 31)//32, (M + 15)//16, 16, 32]"},
    {"ND", "FRACTAL_NZ", "float16", "[K]", "[(K + 15)//16, 1, 16, 16]"},
    {"NCHW", "FRACTAL_NZ", "float16", "[N, C, H, W]", "[N, C, (W + 15)//16, (H + 15)//16, 16, 16]"},
    {"NCHW", "NHWC", "float16", "[N, C, H, W]", "[N, H, W, C]"},
    {"NHWC", "NCHW", "float16", "[N, H, W, C]", "[N, C, H, W]"},
    {"NCHW", "HWCN", "float16", "[N, C, H, W]", "[H, W, C, N]"},
    {"NCHW", "NHWC", "float16", "[C]", "[1, 1, 1, C]"},
    {"NCDHW", "NDHWC", "float16", "[N, C, D, H, W]", "[N, D, H, W, C]"},
    {"NCHW", "NCHW", "float16", "[C]", "[C]"},
    {"NCHW", "ND", "float16", "[N, C, H, W]", "[N, C, H, W]"},
    {"ND", "ND", "float16", "[a, b, c]", "[a, b, c]"},
};

static void storage_shapes_follow_the_format_definitions(void **state)
{
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const struct svec *v = &vectors[i];
		sym_ctx *ctx = sym_ctx_new();
		const sym_expr *dims[8], *out[8];
		int rank = parse_dims(ctx, v->shape, dims), orank = -1;
		int of = sym__format_from_name(v->origin), sf = sym__format_from_name(v->storage);
		int rc =
		    sym__storage_shape(ctx, of, sf, sym__dtype_from_name(v->dtype), rank, dims, out, &orank);
		const char *got = rc == 0 ? print_dims(ctx, orank, out) : sym_ctx_last_message(ctx);
		if (rc != 0 || strcmp(got, v->want))
			fail_msg("%s %s -> %s (%s): got %s, want %s", v->shape, v->origin, v->storage,
			         v->dtype, got, v->want);
		sym_ctx_free(ctx);
	}
}

static void storage_shapes_agree_with_concrete_dims(void **state)
{
	/* the symbolic result evaluated at random dims equals the result for
	 * those dims written in */
	size_t i;
	int k, round;
	(void)state;
	rng_seed(seed_from_env());
	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const struct svec *v = &vectors[i];
		for (round = 0; round < 20; round++) {
			sym_ctx *ctx = sym_ctx_new();
			const sym_expr *dims[8], *cdims[8], *out[8], *cout[8], *syms[16];
			long long vals[16];
			int rank = parse_dims(ctx, v->shape, dims), orank, crank,
			    dt = sym__dtype_from_name(v->dtype);
			int of = sym__format_from_name(v->origin), sf = sym__format_from_name(v->storage);
			size_t ns = 0, j;
			for (k = 0; k < rank; k++)
				ns += sym_expr_symbols(ctx, dims[k], syms + ns, 16 - ns);
			for (j = 0; j < ns; j++)
				vals[j] = rng_range(1, 100);
			for (k = 0; k < rank; k++)
				cdims[k] = sym_expr_eval_si(ctx, dims[k], ns, syms, vals);
			assert_int_equal(sym__storage_shape(ctx, of, sf, dt, rank, dims, out, &orank), 0);
			assert_int_equal(sym__storage_shape(ctx, of, sf, dt, rank, cdims, cout, &crank), 0);
			assert_int_equal(orank, crank);
			for (k = 0; k < orank; k++)
				assert_ptr_equal(sym_expr_eval_si(ctx, out[k], ns, syms, vals), cout[k]);
			sym_ctx_free(ctx);
		}
	}
}

static void storage_errors_name_the_formats(void **state)
{
	static const struct {
		const char *origin, *storage, *shape, *msg;
	} bad[] = {
	    {"NCHW", "NC1HWC0", "[1, 2, 3, 4, 5]", "rank 5"},
	    {"ND", "NC1HWC0", "[N, C, H, W]", "ND to NC1HWC0"},
	    {"NCDHW", "NC1HWC0", "[N, C, D, H, W]", "NCDHW to NC1HWC0"},
	    {"NCHW", "NDC1HWC0", "[N, C, H, W]", "NCHW to NDC1HWC0"},
	    {"NCDHW", "FRACTAL_Z", "[N, C, D, H, W]", "NCDHW to FRACTAL_Z"},
	    {"NCHW", "NCDHW", "[N, C, H, W]", "NCHW to NCDHW"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		const sym_expr *dims[8], *out[8];
		int rank = parse_dims(ctx, bad[i].shape, dims), orank;
		assert_int_equal(sym__storage_shape(ctx, sym__format_from_name(bad[i].origin),
		                                    sym__format_from_name(bad[i].storage), SYM_DT_FLOAT16,
		                                    rank, dims, out, &orank),
		                 -1);
		if (!strstr(sym_ctx_last_message(ctx), bad[i].msg))
			fail_msg("%s -> %s: '%s' lacks '%s'", bad[i].origin, bad[i].storage,
			         sym_ctx_last_message(ctx), bad[i].msg);
		sym_ctx_free(ctx);
	}
	assert_int_equal(sym__format_from_name("NCHW4"), -1);
	assert_int_equal(sym__format_from_name("FZ"), SYM_FMT_FRACTAL_Z);
	assert_int_equal(sym__format_from_name("NZ"), SYM_FMT_FRACTAL_NZ);
}

static void byte_sizes_align_up(void **state)
{
	static const struct {
		const char *dtype, *shape;
		long long align;
		const char *want;
	} vec[] = {
	    {"float32", "[N, 3]", 32, "32*((3*N + 7)//8)"},
	    {"float32", "[N, 3]", 1, "12*N"},
	    {"float16", "[n]", 512, "512*((n + 255)//256)"},
	    {"float16", "[8, 1, 224, 224, 16]", 32, "12845056"},
	    {"int8", "[5]", 32, "32"},
	    {"int64", "[]", 32, "32"},
	    {"float32", "[0, 4]", 32, "0"},
	    {"float16", "[N, 16]", 32, "32*N"},
	    /* a dim that is itself a quotient: (t + 1)//2 elements of 4 bytes in
	     * blocks of 32 is one block per 16 of t, rounded up */
	    {"float32", "[(t + 1)//2]", 32, "32*((t + 15)//16)"},
	    /* alignments the element size does not divide */
	    {"float32", "[N]", 6, "6*(N - N//3)"},
	    {"int64", "[N]", 3, "N % 3 + 8*N"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		const sym_expr *dims[8];
		int rank = parse_dims(ctx, vec[i].shape, dims);
		const sym_expr *b =
		    sym__storage_bytes(ctx, sym__dtype_from_name(vec[i].dtype), rank, dims, vec[i].align);
		char *t;
		assert_non_null(b);
		t = sym_expr_to_str(ctx, b);
		if (strcmp(t, vec[i].want))
			fail_msg("%s %s align %lld: got %s, want %s", vec[i].dtype, vec[i].shape,
			         vec[i].align, t, vec[i].want);
		sym_str_free(ctx, t);
		sym_ctx_free(ctx);
	}
	{
		sym_ctx *ctx = sym_ctx_new();
		const sym_expr *d = sym_expr_from_si(ctx, 4);
		assert_null(sym__storage_bytes(ctx, SYM_DT_STRING, 1, &d, 32));
		sym_ctx_free(ctx);
	}
}

/* ---- models ------------------------------------------------------------- */

typedef struct fx {
	sym_ctx *ctx;
	sym_model *m;
	sym_graph_result *r;
} fx;

static void fx_load(fx *f, const char *rel, const sym_infer_options *opt)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/tests/models/storage_ranges/%s", SYM_TEST_ROOT, rel);
	f->ctx = sym_ctx_new();
	f->m = sym_model_load(f->ctx, path);
	if (!f->m)
		fail_msg("%s: %s", rel, sym_ctx_last_message(f->ctx));
	f->r = sym_model_infer(f->ctx, f->m, opt);
	if (!f->r)
		fail_msg("%s: %s", rel, sym_ctx_last_message(f->ctx));
}

static void fx_free(fx *f)
{
	sym_graph_result_free(f->r);
	sym_model_free(f->m);
	sym_ctx_free(f->ctx);
}

static const char *text(fx *f, const sym_expr *e)
{
	static char buf[4][2048];
	static int k;
	char *t;
	if (!e)
		return "(null)";
	t = sym_expr_to_str(f->ctx, e);
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s", t);
	sym_str_free(f->ctx, t);
	return buf[k];
}

static const char *storage_of(fx *f, const char *name)
{
	const sym_expr *const *dims;
	int rank = sym_graph_tensor_storage(f->r, sym_graph_find_tensor(f->r, name), &dims);
	return rank < 0 ? "(unknown)" : print_dims(f->ctx, rank, dims);
}

static void seed_model_shows_origin_and_storage_shapes(void **state)
{
	fx f;
	size_t x;
	const char *sf;
	sym_model_program *mp;
	int64_t dims[4] = {8, 3, 224, 224}, out[16];
	sym_model_run res;
	(void)state;
	fx_load(&f, "seed.json", NULL);
	x = sym_graph_find_tensor(f.r, "x");
	assert_string_equal(sym_graph_tensor_format(f.r, x, &sf), "NCHW");
	assert_string_equal(sf, "NC1HWC0");
	assert_string_equal(storage_of(&f, "x"), "[8, 1, 224, 224, 16]");
	assert_string_equal(text(&f, sym_graph_tensor_bytes(f.r, x)), "12845056");
	assert_string_equal(text(&f, sym_graph_total_bytes(f.r)), "25690112");
	mp = sym_graph_compile(f.ctx, f.r, 0);
	assert_non_null(mp);
	assert_int_equal(sym_model_program_num_storage_dims(mp), 5);
	sym_model_program_run_storage(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EOK);
	assert_int_equal(out[1], 1);
	assert_int_equal(out[4], 16);
	sym_model_program_run_bytes(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EOK);
	assert_int_equal(out[0], 12845056);
	assert_int_equal(out[1], 25690112);
	/* the guards come first: dims that contradict the model fail */
	dims[1] = 4;
	sym_model_program_run_bytes(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EINPUT);
	sym_model_program_free(mp);
	fx_free(&f);
}

static void every_format_has_a_symbolic_storage_shape_in_a_model(void **state)
{
	fx f;
	(void)state;
	fx_load(&f, "storage.json", NULL);
	assert_string_equal(storage_of(&f, "x"), "[N, (C + 15)//16, H, W, 16]");
	assert_string_equal(storage_of(&f, "w"), "[9*((C + 15)//16), (K + 15)//16, 16, 16]");
	assert_string_equal(storage_of(&f, "b"), "[1, (K + 15)//16, 1, 1, 16]");
	assert_string_equal(storage_of(&f, "y"), "[N, (K + 15)//16, H - 2, W - 2, 16]");
	assert_string_equal(storage_of(&f, "r"), "[N, H - 2, W - 2, K]");
	assert_string_equal(storage_of(&f, "m"), "[B, (L + 15)//16, (M + 15)//16, 16, 16]");
	assert_string_equal(storage_of(&f, "p"), "[B, (M + 15)//16, (M + 15)//16, 16, 16]");
	assert_string_equal(storage_of(&f, "q"), "[N, (C + 31)//32, H, W, 32]");
	assert_string_equal(storage_of(&f, "v"), "[N, D, (C + 15)//16, H, W, 16]");
	assert_string_equal(storage_of(&f, "z"), "[N, (C + 15)//16, H, W, 16]");
	assert_string_equal(storage_of(&f, "z2"), "[N, H, W, C]");
	/* no format: the storage shape is the origin shape */
	assert_null(sym_graph_tensor_format(f.r, sym_graph_find_tensor(f.r, "m_t"), NULL));
	assert_string_equal(storage_of(&f, "m_t"), "[B, L, M]");
	assert_string_equal(text(&f, sym_graph_tensor_bytes(f.r, sym_graph_find_tensor(f.r, "x"))),
	                    "32*H*N*W*((C + 15)//16)");
	assert_string_equal(text(&f, sym_graph_tensor_bytes(f.r, sym_graph_find_tensor(f.r, "b"))),
	                    "32*((K + 15)//16)");
	assert_non_null(sym_graph_total_bytes(f.r));
	fx_free(&f);
}

/* The runtime program's storage dims and byte sizes equal exact evaluation
 * of the inferred expressions at random dims. */
static void storage_program_agrees_with_exact_evaluation(void **state)
{
	static const char *const names[] = {"N", "C", "H", "W", "K", "B", "M", "L", "D"};
	fx f;
	sym_model_program *mp;
	const sym_expr *syms[9];
	int round;
	size_t i;
	(void)state;
	rng_seed(seed_from_env());
	fx_load(&f, "storage.json", NULL);
	mp = sym_graph_compile(f.ctx, f.r, 1);
	assert_non_null(mp);
	for (i = 0; i < 9; i++)
		syms[i] = sym_expr_symbol(f.ctx, names[i]);
	for (round = 0; round < 200; round++) {
		long long v[9];
		int64_t dims[64], sto[256], bytes[64];
		size_t p = 0, q = 0, t;
		sym_model_run res;
		for (i = 0; i < 9; i++)
			v[i] = rng_range(i == 2 || i == 3 ? 3 : 1, round < 100 ? 40 : 300);
		/* x [N,C,H,W], w [K,C,3,3], b [K], m [B,M,L], q [N,C,H,W],
		 * v [N,C,D,H,W], z [N,H,W,C] */
		{
			static const int layout[][5] = {
			    {0, 1, 2, 3, -1}, {4, 1, -3, -3, -1}, {4, -1, 0, 0, 0}, {5, 6, 7, -1, 0},
			    {0, 1, 2, 3, -1}, {0, 1, 8, 2, 3},    {0, 2, 3, 1, -1}};
			static const int rank[] = {4, 4, 1, 3, 4, 5, 4};
			int k, d;
			for (k = 0; k < 7; k++)
				for (d = 0; d < rank[k]; d++)
					dims[p++] = layout[k][d] >= 0 ? v[layout[k][d]] : -layout[k][d];
		}
		assert_int_equal(p, sym_model_program_num_dims(mp));
		sym_model_program_run_storage(mp, dims, sto, &res);
		assert_int_equal(res.status, SYM_EOK);
		sym_model_program_run_bytes(mp, dims, bytes, &res);
		assert_int_equal(res.status, SYM_EOK);
		for (i = 0; i < sym_model_program_num_tensors(mp); i++) {
			int r, d;
			const char *name = sym_model_program_tensor(mp, i, NULL);
			const sym_expr *const *sd;
			sym_model_program_tensor_storage(mp, i, &r);
			t = sym_graph_find_tensor(f.r, name);
			assert_int_equal(sym_graph_tensor_storage(f.r, t, &sd), r);
			for (d = 0; d < r; d++) {
				long long want;
				assert_int_equal(
				    sym_expr_get_si(sym_expr_eval_si(f.ctx, sd[d], 9, syms, v), &want), 1);
				if (sto[q] != want)
					fail_msg("%s storage dim %d: program %lld, exact %lld", name, d,
					         (long long)sto[q], want);
				q++;
			}
			{
				long long want;
				assert_int_equal(
				    sym_expr_get_si(
				        sym_expr_eval_si(f.ctx, sym_graph_tensor_bytes(f.r, t), 9, syms, v),
				        &want),
				    1);
				assert_int_equal(bytes[i], want);
			}
		}
		{
			long long want;
			assert_int_equal(
			    sym_expr_get_si(sym_expr_eval_si(f.ctx, sym_graph_total_bytes(f.r), 9, syms, v),
			                    &want),
			    1);
			assert_int_equal(bytes[sym_model_program_num_tensors(mp)], want);
		}
	}
	sym_model_program_free(mp);
	fx_free(&f);
}

static void alignment_is_an_option(void **state)
{
	fx f;
	sym_infer_options opt;
	(void)state;
	memset(&opt, 0, sizeof(opt));
	opt.align = 1;
	fx_load(&f, "storage.json", &opt);
	assert_string_equal(text(&f, sym_graph_tensor_bytes(f.r, sym_graph_find_tensor(f.r, "b"))),
	                    "32*((K + 15)//16)");
	assert_string_equal(text(&f, sym_graph_tensor_bytes(f.r, sym_graph_find_tensor(f.r, "z2"))),
	                    "4*C*H*N*W");
	fx_free(&f);
	opt.align = 512;
	fx_load(&f, "seed.json", &opt);
	assert_string_equal(text(&f, sym_graph_tensor_bytes(f.r, 0)), "12845056");
	fx_free(&f);
	opt.align = -3;
	{
		sym_ctx *ctx = sym_ctx_new();
		char path[1024];
		sym_model *m;
		snprintf(path, sizeof(path), "%s/tests/models/storage_ranges/seed.json", SYM_TEST_ROOT);
		m = sym_model_load(ctx, path);
		assert_null(sym_model_infer(ctx, m, &opt));
		assert_non_null(strstr(sym_ctx_last_message(ctx), "alignment"));
		sym_model_free(m);
		sym_ctx_free(ctx);
	}
}

/* ---- ranges --------------------------------------------------------------- */

static void ranges_give_dim_ranges_and_drop_implied_guards(void **state)
{
	fx f;
	sym_infer_options opt;
	const char *names[] = {"H", "W", "batch"};
	const sym_expr *lo[3], *hi[3], *mn, *mx;
	sym_model_program *mp;
	int64_t dims[4] = {2, 3, 8, 64}, out[8];
	sym_model_run res;
	size_t y;
	(void)state;
	fx_load(&f, "guard_range.json", NULL);
	assert_int_equal(sym_graph_num_guards(f.r), 2);
	fx_free(&f);
	memset(&opt, 0, sizeof(opt));
	opt.nranges = 3, opt.range_names = names, opt.range_lo = lo, opt.range_hi = hi;
	f.ctx = NULL;
	{
		/* the ends live in the context of the model's fixture */
		char path[1024];
		snprintf(path, sizeof(path), "%s/tests/models/storage_ranges/guard_range.json",
		         SYM_TEST_ROOT);
		f.ctx = sym_ctx_new();
		lo[0] = sym_expr_from_si(f.ctx, 8), hi[0] = sym_expr_from_si(f.ctx, 64);
		lo[1] = sym_expr_from_si(f.ctx, 8), hi[1] = NULL;
		lo[2] = sym_expr_from_si(f.ctx, 1), hi[2] = sym_expr_from_si(f.ctx, 64);
		f.m = sym_model_load(f.ctx, path);
		f.r = sym_model_infer(f.ctx, f.m, &opt);
		assert_non_null(f.r);
	}
	assert_int_equal(sym_graph_num_guards(f.r), 0);
	y = sym_graph_find_tensor(f.r, "y");
	assert_int_equal(sym_graph_dim_range(f.r, y, 0, &mn, &mx), 0);
	assert_string_equal(text(&f, mn), "1");
	assert_string_equal(text(&f, mx), "64");
	assert_int_equal(sym_graph_dim_range(f.r, y, 2, &mn, &mx), 0);
	assert_string_equal(text(&f, mn), "1");
	assert_string_equal(text(&f, mx), "29");
	assert_int_equal(sym_graph_dim_range(f.r, y, 3, &mn, &mx), 0);
	assert_string_equal(text(&f, mn), "1");
	assert_null(mx);
	/* the program checks the ranges it was compiled for */
	mp = sym_graph_compile(f.ctx, f.r, 0);
	assert_non_null(mp);
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EOK);
	assert_int_equal(out[2], 1);
	dims[2] = 7;
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EINPUT);
	assert_non_null(strstr(res.message, "H must be in the range [8, 64]"));
	dims[2] = 8, dims[0] = 65;
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EINPUT);
	sym_model_program_free(mp);
	fx_free(&f);
}

static void a_range_of_an_unknown_symbol_is_an_error(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_infer_options opt;
	const char *names[] = {"nope"};
	const sym_expr *lo[1], *hi[1] = {NULL};
	char path[1024];
	sym_model *m;
	(void)state;
	snprintf(path, sizeof(path), "%s/tests/models/storage_ranges/guard_range.json", SYM_TEST_ROOT);
	m = sym_model_load(ctx, path);
	lo[0] = sym_expr_from_si(ctx, 1);
	memset(&opt, 0, sizeof(opt));
	opt.nranges = 1, opt.range_names = names, opt.range_lo = lo, opt.range_hi = hi;
	assert_null(sym_model_infer(ctx, m, &opt));
	assert_non_null(strstr(sym_ctx_last_message(ctx), "'nope'"));
	sym_ctx_clear_error(ctx);
	names[0] = "H";
	lo[0] = sym_expr_from_si(ctx, 9);
	hi[0] = sym_expr_from_si(ctx, 8);
	assert_null(sym_model_infer(ctx, m, &opt));
	assert_non_null(strstr(sym_ctx_last_message(ctx), "'H'"));
	sym_model_free(m);
	sym_ctx_free(ctx);
}

/* Bad "formats" are load errors naming the tensor: named twice, naming no
 * tensor of the graph, an unknown format, an entry that is not an object. */
static void bad_formats_are_errors_naming_the_tensor(void **state)
{
	static const struct {
		const char *formats, *want, *want2;
	} cases[] = {
	    {"{\"x\": {\"format\": \"NCHW\", \"storage_format\": \"NC1HWC0\"},"
	     " \"x\": {\"format\": \"NCHW\", \"storage_format\": \"NC1HWC0\"}}",
	     "'x'", "twice"},
	    {"{\"y\": {\"format\": \"NCHW\", \"storage_format\": \"NC1HWC0\"},"
	     " \"y\": {\"format\": \"NCHW\"}}",
	     "'y'", "twice"},
	    {"{\"z\": {\"format\": \"NCHW\"}}", "'z'", "not a tensor of the graph"},
	    {"{\"x\": {\"format\": \"NCWH\"}}", "'x'", "unknown origin format 'NCWH'"},
	    {"{\"x\": {\"format\": \"NCHW\", \"storage_format\": \"NC2HWC0\"}}", "'x'",
	     "unknown storage format 'NC2HWC0'"},
	    {"{\"x\": \"NCHW\"}", "'x'", "expected {"},
	    {"{\"x\": {\"format\": 4}}", "'x'", "expected {"},
	    {"[\"x\"]", "\"formats\"", "object"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char json[1024];
		sym_ctx *ctx = sym_ctx_new();
		sym_model *m;
		sym_graph_result *r = NULL;
		const char *msg;
		snprintf(json, sizeof(json),
		         "{\"inputs\": [{\"name\": \"x\", \"shape\": [\"n\", 20, 7, 7]}],"
		         " \"nodes\": [{\"name\": \"r\", \"op\": \"Relu\", \"inputs\": [\"x\"],"
		         " \"outputs\": [\"y\"]}], \"outputs\": [\"y\"], \"formats\": %s}",
		         cases[i].formats);
		m = sym_model_from_json(ctx, json, strlen(json));
		if (m)
			r = sym_model_infer(ctx, m, NULL);
		if (r)
			fail_msg("case %zu: no error", i);
		msg = sym_ctx_last_message(ctx);
		if (!strstr(msg, cases[i].want) || !strstr(msg, cases[i].want2))
			fail_msg("case %zu: '%s' lacks %s / %s", i, msg, cases[i].want, cases[i].want2);
		sym_model_free(m);
		sym_ctx_free(ctx);
	}
}

/* The memory total is a summary: past a limit of the expressions (here a
 * number of more than SYM_MAX_BITS bits, the sum of 9 byte sizes just
 * under it) only the total is left out, with its reason; the byte sizes and
 * the rest of the result stand. */
static void a_total_past_a_limit_is_left_out_with_its_reason(void **state)
{
	enum { N = 9 };
	size_t cap = 64 * N + 256, len = 0, i;
	char *json = malloc(cap);
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m;
	sym_graph_result *r;
	const char *why;
	(void)state;
	assert_non_null(json);
	assert_non_null(ctx);
	len += (size_t)snprintf(json + len, cap - len, "{\"inputs\": [");
	for (i = 0; i < N; i++)
		len += (size_t)snprintf(
		    json + len, cap - len,
		    "%s{\"name\": \"x%zu\", \"dtype\": \"float32\", \"shape\": [\"2**1048571 + %zu\"]}",
		    i ? ", " : "", i, i);
	snprintf(json + len, cap - len, "], \"nodes\": [], \"outputs\": [\"x0\"]}");
	m = sym_model_from_json(ctx, json, strlen(json));
	assert_non_null(m);
	r = sym_model_infer(ctx, m, NULL);
	if (!r)
		fail_msg("inference failed: %s", sym_ctx_last_message(ctx));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EOK);
	assert_null(sym_graph_total_bytes(r));
	why = sym_graph_total_bytes_error(r);
	assert_non_null(why);
	assert_non_null(strstr(why, "number too large"));
	for (i = 0; i < N; i++)
		assert_non_null(sym_graph_tensor_bytes(r, i));
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
	free(json);
}

/* ---- unknown rank and data-dependent dims --------------------------------- */

static void unknown_rank_branches_infer_around_the_node_that_needs_a_rank(void **state)
{
	fx f;
	int rank;
	const char *node;
	(void)state;
	fx_load(&f, "unknown_rank.json", NULL);
	sym_graph_tensor(f.r, sym_graph_find_tensor(f.r, "a"), &rank, NULL, NULL);
	assert_int_equal(rank, -1); /* elementwise passes it on */
	sym_graph_tensor(f.r, sym_graph_find_tensor(f.r, "b"), &rank, NULL, NULL);
	assert_int_equal(rank, -1); /* broadcast with an unknown rank */
	sym_graph_tensor(f.r, sym_graph_find_tensor(f.r, "c"), &rank, NULL, NULL);
	assert_int_equal(rank, -2); /* Flatten needs the rank */
	sym_graph_tensor(f.r, sym_graph_find_tensor(f.r, "d"), &rank, NULL, NULL);
	assert_int_equal(rank, -2);
	sym_graph_tensor(f.r, sym_graph_find_tensor(f.r, "f"), &rank, NULL, NULL);
	assert_int_equal(rank, 2); /* the known branch goes on */
	assert_string_equal(storage_of(&f, "f"), "[3, n]");
	assert_int_equal(sym_graph_num_errors(f.r), 2);
	assert_non_null(strstr(sym_graph_error(f.r, 0, &node), "unknown rank"));
	assert_string_equal(node, "flat");
	sym_graph_error(f.r, 1, &node);
	assert_string_equal(node, "after_flat");
	{
		/* the same list, structured: node, operator, tensor at fault */
		const char *op, *tensor, *msg;
		assert_int_equal(sym_graph_num_diagnostics(f.r), 2);
		msg = sym_graph_diagnostic(f.r, 1, &node, &op, &tensor);
		assert_string_equal(node, "after_flat");
		assert_non_null(op);
		assert_string_equal(tensor, "c");
		assert_non_null(strstr(msg, "not inferred: input 'c' is unknown"));
		sym_graph_diagnostic(f.r, 0, NULL, &op, &tensor);
		assert_string_equal(op, "Flatten");
		assert_null(tensor);
		assert_null(sym_graph_diagnostic(f.r, 2, NULL, NULL, NULL));
	}
	assert_null(sym_graph_tensor_bytes(f.r, sym_graph_find_tensor(f.r, "a")));
	assert_null(sym_graph_total_bytes(f.r));
	/* a program needs the input rank */
	assert_null(sym_graph_compile(f.ctx, f.r, 0));
	assert_non_null(strstr(sym_ctx_last_message(f.ctx), "unknown rank"));
	fx_free(&f);
}

static void nonzero_reshape_uses_a_fresh_symbol_bound_at_run_time(void **state)
{
	fx f;
	size_t i, k = (size_t)-1;
	const char *src;
	const sym_expr *mn, *mx;
	sym_model_program *mp;
	int64_t dims[3] = {3, 4, 5}, out[16], bytes[16];
	sym_model_run res;
	int rank;
	const sym_expr *const *d;
	(void)state;
	fx_load(&f, "nonzero.json", NULL);
	for (i = 0; i < sym_graph_num_symbols(f.r); i++)
		if (!strcmp(sym_expr_symbol_name(sym_graph_symbol(f.r, i, &src, &mn, &mx)), "u0"))
			k = i;
	assert_true(k != (size_t)-1);
	sym_graph_symbol(f.r, k, &src, &mn, &mx);
	assert_non_null(strstr(src, "'nz' (NonZero)"));
	assert_string_equal(text(&f, mn), "0");
	assert_null(mx);
	assert_string_equal(text(&f, sym_graph_symbol_bound(f.r, k)), "4*n");
	sym_graph_tensor(f.r, sym_graph_find_tensor(f.r, "pairs"), &rank, &d, NULL);
	assert_string_equal(print_dims(f.ctx, rank, d), "[u0, 2]");
	assert_int_equal(sym_graph_num_errors(f.r), 0);
	mp = sym_graph_compile(f.ctx, f.r, 1);
	assert_non_null(mp);
	assert_int_equal(sym_model_program_num_dims(mp), 3);
	assert_int_equal(sym_model_program_num_bound(mp), 1);
	assert_string_equal(sym_model_program_bound(mp, 0, &src), "u0");
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EOK);
	/* x [3, 4], target [2], idx [2, 5], pairs [5, 2], pf [5, 2] */
	assert_int_equal(out[4], 5);
	assert_int_equal(out[5], 5);
	assert_int_equal(out[6], 2);
	sym_model_program_run_bytes(mp, dims, bytes, &res);
	assert_int_equal(res.status, SYM_EOK);
	assert_int_equal(bytes[2], 96); /* 2*5 int64 = 80, aligned */
	dims[2] = 13;                   /* more than numel(x) */
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EINPUT);
	assert_non_null(strstr(res.message, "u0"));
	sym_model_program_free(mp);
	fx_free(&f);
	/* with a range for n the symbol gets a constant bound */
	{
		sym_infer_options opt;
		const char *names[] = {"n"};
		char path[1024];
		const sym_expr *lo[1], *hi[1];
		memset(&opt, 0, sizeof(opt));
		snprintf(path, sizeof(path), "%s/tests/models/storage_ranges/nonzero.json", SYM_TEST_ROOT);
		f.ctx = sym_ctx_new();
		lo[0] = sym_expr_from_si(f.ctx, 1), hi[0] = sym_expr_from_si(f.ctx, 64);
		opt.nranges = 1, opt.range_names = names, opt.range_lo = lo, opt.range_hi = hi;
		f.m = sym_model_load(f.ctx, path);
		f.r = sym_model_infer(f.ctx, f.m, &opt);
		assert_non_null(f.r);
		sym_graph_symbol(f.r, k, &src, &mn, &mx);
		assert_string_equal(text(&f, mx), "256");
		assert_int_equal(sym_graph_dim_range(f.r, sym_graph_find_tensor(f.r, "idx"), 1, &mn, &mx), 0);
		assert_string_equal(text(&f, mx), "256");
		fx_free(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(storage_shapes_follow_the_format_definitions),
	    cmocka_unit_test(storage_shapes_agree_with_concrete_dims),
	    cmocka_unit_test(storage_errors_name_the_formats),
	    cmocka_unit_test(byte_sizes_align_up),
	    cmocka_unit_test(seed_model_shows_origin_and_storage_shapes),
	    cmocka_unit_test(every_format_has_a_symbolic_storage_shape_in_a_model),
	    cmocka_unit_test(storage_program_agrees_with_exact_evaluation),
	    cmocka_unit_test(alignment_is_an_option),
	    cmocka_unit_test(ranges_give_dim_ranges_and_drop_implied_guards),
	    cmocka_unit_test(a_range_of_an_unknown_symbol_is_an_error),
	    cmocka_unit_test(bad_formats_are_errors_naming_the_tensor),
	    cmocka_unit_test(a_total_past_a_limit_is_left_out_with_its_reason),
	    cmocka_unit_test(unknown_rank_branches_infer_around_the_node_that_needs_a_rank),
	    cmocka_unit_test(nonzero_reshape_uses_a_fresh_symbol_bound_at_run_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
