/* Emitted C of whole models (SPEC §8): the example models and the models of
 * tests/models/ are emitted with sym_model_program_emit_c, compiled with the
 * system compiler (cc, or $CC) under -std=c11 -Wall -Wextra -Werror -O2
 * together with a generated driver, run on random dims (valid ones, failing
 * guards, dims contradicting the declared shapes, overflowing ones), and
 * compared with sym_model_program_run: return codes of P_check and
 * P_shapes, output dims, P_num_guards and P_guard_text.  Seeded from
 * SYM_TEST_SEED.  A missing compiler is a failure, not a skip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "model_program_private.h"
#include "symshape/symshape.h"
#include "test_util.h"

#define NPOINTS 300
#define MAXDIMS 64

static const char *const models[] = {
    "examples/transformer.json",
    "examples/cnn.json",
    "tests/models/elementwise.json",
    "tests/models/reshape_chain.json",
    "tests/models/concat_split.json",
    "tests/models/slice.json",
    "tests/models/conv_pool.json",
    "tests/models/matmul_gemm.json",
    "tests/models/layernorm.json",
    "tests/models/reduce.json",
    "tests/models/transpose_expand_tile.json",
};
#define NMODELS (sizeof(models) / sizeof(models[0]))

static char tmpdir[4096];

static const char *compiler(void)
{
	const char *cc = getenv("CC");
	return cc && *cc ? cc : "cc";
}

/* Appends to a malloc'd string. */
static void cat(char **s, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;
	char *t;
	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	assert_true(k >= 0);
	t = realloc(*s, *n + (size_t)k + 1);
	assert_non_null(t);
	*s = t;
	va_start(ap, fmt);
	vsnprintf(*s + *n, (size_t)k + 1, fmt, ap);
	va_end(ap);
	*n += (size_t)k;
}

static void write_file(const char *name, const char *text)
{
	char path[4200];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f)
		fail_msg("cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	const char *t = getenv("TMPDIR"), *seed = getenv("SYM_TEST_SEED");
	char cmd[512];
	uint64_t v = seed && *seed ? strtoull(seed, NULL, 10) : 1;
	(void)state;
	rng_state = (v ? v : 1) * 0x9e3779b97f4a7c15ULL + 7;
	snprintf(tmpdir, sizeof(tmpdir), "%s/symshape-model-emit-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "mkdtemp %s failed\n", tmpdir);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "%s --version > /dev/null 2>&1", compiler());
	if (system(cmd) != 0) {
		fprintf(stderr, "no C compiler: '%s' does not run (set CC)\n", compiler());
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[4300];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* One model: its program (outputs only, as emit-c builds it) and points. */
typedef struct mcase {
	sym_ctx *ctx;
	sym_model *m;
	sym_graph_result *r;
	sym_model_program *mp;
	size_t ndims, nout;
	int64_t pts[NPOINTS][MAXDIMS];
} mcase;

static long long draw_dim(void)
{
	switch (rng_range(0, 9)) {
	case 0:
	case 1:
	case 2:
		return rng_range(1, 4);
	case 3:
	case 4:
	case 5:
	case 6:
		return rng_range(1, 64);
	case 7:
		return rng_range(1, 4000);
	case 8: /* products overflow int64 */
		return rng_range(1LL << 20, 1LL << 62);
	default: /* dims no declared shape allows */
		return rng_range(-3, 0);
	}
}

/* Random dims: symbol values (often equal to one another) put into the
 * declared shapes, sometimes with one dim changed. */
static void make_points(mcase *mc)
{
	size_t nsyms = sym_graph_num_symbols(mc->r), i, p, pt;
	const sym_expr *syms[32], *decl[MAXDIMS];
	long long vals[32];
	assert_true(nsyms <= 32);
	for (i = 0; i < nsyms; i++)
		syms[i] = sym_graph_symbol(mc->r, i, NULL, NULL, NULL);
	for (i = 0, p = 0; i < sym_model_num_inputs(mc->m); i++) {
		int rank, d;
		const sym_expr *const *dims;
		sym_graph_tensor(mc->r, sym_graph_find_tensor(mc->r, sym_model_input_name(mc->m, i)), &rank,
		                 &dims, NULL);
		for (d = 0; d < rank; d++)
			decl[p++] = dims[d];
	}
	assert_int_equal(p, mc->ndims);
	for (pt = 0; pt < NPOINTS; pt++) {
		for (i = 0; i < nsyms; i++)
			vals[i] =
			    i && rng_range(0, 2) == 0 ? vals[rng_range(0, (long long)i - 1)] : draw_dim();
		for (i = 0; i < mc->ndims; i++) {
			const sym_expr *e = sym_expr_eval_si(mc->ctx, decl[i], nsyms, syms, vals);
			long long v;
			assert_non_null(e);
			assert_int_equal(sym_expr_get_si(e, &v), 1);
			mc->pts[pt][i] = v;
		}
		if (rng_range(0, 5) == 0)
			mc->pts[pt][rng_range(0, (long long)mc->ndims - 1)] = draw_dim();
	}
}

/* The ABI code of a run (SPEC §8). */
static int abi_code(const sym_model_run *res)
{
	switch (res->status) {
	case SYM_EOK:
		return 0;
	case SYM_EGUARD:
		return (int)res->failed + 1;
	case SYM_EINPUT:
		return -2;
	default:
		return -1;
	}
}

static void emitted_model_c_agrees_with_the_program(void **state)
{
	static mcase mc[NMODELS];
	char *drv = NULL, cmd[9000], line[8192], files[2048];
	size_t dn = 0, k, pt, i, fl = 0;
	int lines = 0, codes[8] = {0};
	FILE *f;
	(void)state;
	files[0] = 0;
	cat(&drv, &dn,
	    "#include <inttypes.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n\n");
	for (k = 0; k < NMODELS; k++) {
		size_t len;
		char *text = read_text(models[k], &len), *code, prefix[32], fname[64];
		mc[k].ctx = sym_ctx_new();
		mc[k].m = sym_model_from_json(mc[k].ctx, text, len);
		free(text);
		assert_non_null(mc[k].m);
		mc[k].r = sym_model_infer(mc[k].ctx, mc[k].m, NULL);
		assert_non_null(mc[k].r);
		mc[k].mp = sym_graph_compile(mc[k].ctx, mc[k].r, 0);
		if (!mc[k].mp)
			fail_msg("%s: %s", models[k], sym_ctx_last_message(mc[k].ctx));
		mc[k].ndims = sym_model_program_num_dims(mc[k].mp);
		mc[k].nout = sym_model_program_num_out_dims(mc[k].mp);
		make_points(&mc[k]);
		snprintf(prefix, sizeof(prefix), "model%zu", k);
		code = sym_model_program_emit_c(mc[k].mp, prefix);
		assert_non_null(code);
		snprintf(fname, sizeof(fname), "%s.c", prefix);
		write_file(fname, code);
		sym_model_program_str_free(mc[k].mp, code);
		fl += (size_t)snprintf(files + fl, sizeof(files) - fl, " %s", fname);
		cat(&drv, &dn,
		    "int %s_check(const int64_t *dims);\nint %s_shapes(const int64_t *dims, int64_t *out);\n"
		    "extern const int %s_num_guards;\nextern const char *const %s_guard_text[];\n",
		    prefix, prefix, prefix, prefix);
		cat(&drv, &dn, "static const int64_t pts%zu[%d][%zu] = {\n", k, NPOINTS, mc[k].ndims);
		for (pt = 0; pt < NPOINTS; pt++) {
			cat(&drv, &dn, "\t{");
			for (i = 0; i < mc[k].ndims; i++)
				cat(&drv, &dn, "%sINT64_C(%lld)", i ? ", " : "", (long long)mc[k].pts[pt][i]);
			cat(&drv, &dn, "},\n");
		}
		cat(&drv, &dn, "};\n\n");
	}
	cat(&drv, &dn, "int main(void)\n{\n\tint64_t out[256];\n\tint i, j, c, s;\n");
	for (k = 0; k < NMODELS; k++) {
		cat(&drv, &dn, "\tprintf(\"G %zu %%d\\n\", model%zu_num_guards);\n", k, k);
		cat(&drv, &dn,
		    "\tfor (i = 0; i < model%zu_num_guards; i++)\n\t\tprintf(\"T %zu %%d %%s\\n\", i, "
		    "model%zu_guard_text[i]);\n",
		    k, k, k);
		cat(&drv, &dn,
		    "\tfor (i = 0; i < %d; i++) {\n\t\tmemset(out, 0x5a, sizeof(out));\n"
		    "\t\tc = model%zu_check(pts%zu[i]);\n\t\ts = model%zu_shapes(pts%zu[i], out);\n"
		    "\t\tprintf(\"P %zu %%d %%d %%d\", i, c, s);\n"
		    "\t\tfor (j = 0; s == 0 && j < %zu; j++)\n\t\t\tprintf(\" %%\" PRId64, out[j]);\n"
		    "\t\tprintf(\"\\n\");\n\t}\n",
		    NPOINTS, k, k, k, k, k, mc[k].nout);
	}
	cat(&drv, &dn, "\treturn 0;\n}\n");
	write_file("driver.c", drv);
	free(drv);
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && %s -std=c11 -Wall -Wextra -Werror -O2 -o drv driver.c%s > cc.log 2>&1 && ./drv "
	         "> out.txt",
	         tmpdir, compiler(), files);
	if (system(cmd) != 0) {
		char log[4200], buf[4096];
		size_t n;
		snprintf(log, sizeof(log), "%s/cc.log", tmpdir);
		f = fopen(log, "r");
		n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		buf[n] = 0;
		if (f)
			fclose(f);
		fail_msg("building or running the driver failed: %s\n%s", cmd, buf);
	}
	snprintf(line, sizeof(line), "%s/out.txt", tmpdir);
	f = fopen(line, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		size_t m, idx;
		int c, s, n, off;
		line[strcspn(line, "\n")] = 0;
		lines++;
		if (line[0] == 'G') {
			assert_int_equal(sscanf(line, "G %zu %d", &m, &n), 2);
			assert_int_equal((size_t)n, sym_graph_num_guards(mc[m].r));
		} else if (line[0] == 'T') {
			char *t;
			assert_int_equal(sscanf(line, "T %zu %zu %n", &m, &idx, &off), 2);
			t = sym_expr_to_str(mc[m].ctx, sym_graph_guard(mc[m].r, idx, NULL, NULL, NULL));
			if (strcmp(t, line + off))
				fail_msg("%s: guard text %zu is '%s', infer prints '%s'", models[m], idx,
				         line + off, t);
			sym_str_free(mc[m].ctx, t);
		} else {
			int64_t out[256];
			sym_model_run res;
			char *p;
			assert_int_equal(sscanf(line, "P %zu %zu %d %d %n", &m, &idx, &c, &s, &off), 4);
			assert_true(mc[m].nout <= 256);
			sym_model_program_run(mc[m].mp, mc[m].pts[idx], out, &res);
			/* P_check stops after the guards: where the program
			 * overflows it may be in the guards (-1) or in the
			 * shapes only (0) */
			if (s != abi_code(&res) || (c != abi_code(&res) && !(res.segment >= 0 && c == 0)))
				fail_msg(
				    "%s point %zu: emitted C returns %d/%d, the program %d (status %d: %s)",
				    models[m], idx, c, s, abi_code(&res), res.status,
				    res.message ? res.message : "");
			codes[s < -2 ? 0 : s > 4 ? 7 : s + 2]++;
			p = line + off;
			for (i = 0; s == 0 && i < mc[m].nout; i++) {
				long long v = strtoll(p, &p, 10);
				if (v != out[i])
					fail_msg(
					    "%s point %zu: output dim %zu is %lld in C, %lld in the program",
					    models[m], idx, i, v, (long long)out[i]);
			}
		}
	}
	fclose(f);
	assert_true(lines >= (int)(NMODELS * NPOINTS));
	/* the points reach every kind of answer */
	assert_true(codes[2] > 0);            /* 0: every guard holds */
	assert_true(codes[3] + codes[4] > 0); /* a guard fails */
	assert_true(codes[0] > 0);            /* -2: the dims contradict the shapes */
	assert_true(codes[1] > 0);            /* -1: overflow */
	print_message("codes -2:%d -1:%d 0:%d 1:%d 2:%d 3+:%d\n", codes[0], codes[1], codes[2], codes[3],
	              codes[4], codes[5] + codes[6] + codes[7]);
	for (k = 0; k < NMODELS; k++) {
		sym_model_program_free(mc[k].mp);
		sym_graph_result_free(mc[k].r);
		sym_model_free(mc[k].m);
		sym_ctx_free(mc[k].ctx);
	}
}

/* The emitted source is deterministic and names its ABI with the prefix. */
static void emitted_model_c_is_deterministic_and_prefixed(void **state)
{
	size_t len;
	char *text = read_text("examples/transformer.json", &len), *a, *b;
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m = sym_model_from_json(ctx, text, len);
	sym_graph_result *r = sym_model_infer(ctx, m, NULL);
	sym_model_program *mp = sym_graph_compile(ctx, r, 0);
	(void)state;
	assert_non_null(mp);
	a = sym_model_program_emit_c(mp, "xf");
	b = sym_model_program_emit_c(mp, "xf");
	assert_string_equal(a, b);
	assert_non_null(strstr(a, "int xf_check(const int64_t *dims)"));
	assert_non_null(strstr(a, "int xf_shapes(const int64_t *dims, int64_t *out)"));
	assert_non_null(strstr(a, "const int xf_num_guards = 4;"));
	assert_non_null(strstr(a, "\"mbatch <= batch\""));
	assert_null(strstr(a, "symshape/"));
	sym_model_program_str_free(mp, a), sym_model_program_str_free(mp, b), free(text);
	sym_model_program_free(mp);
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
}

/* Infers json (hints given as NAME=VALUE pairs) and emits its C with prefix. */
static char *emit_text(const char *json, size_t nhints, const char *const *names, const long long *values,
                       const char *prefix)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m = sym_model_from_json(ctx, json, strlen(json));
	sym_infer_options opt;
	sym_graph_result *r = NULL;
	sym_model_program *mp = NULL;
	char *code, *emitted;
	memset(&opt, 0, sizeof(opt));
	opt.nhints = nhints, opt.hint_names = names, opt.hint_values = values;
	if (!m || !(r = sym_model_infer(ctx, m, &opt)) || !(mp = sym_graph_compile(ctx, r, 0)))
		fail_msg("%s", sym_ctx_last_message(ctx));
	emitted = sym_model_program_emit_c(mp, prefix);
	assert_non_null(emitted);
	code = malloc(strlen(emitted) + 1); /* the caller's copy: the text goes back to mp's hook */
	assert_non_null(code);
	memcpy(code, emitted, strlen(emitted) + 1);
	sym_model_program_str_free(mp, emitted);
	sym_model_program_free(mp);
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
	return code;
}

/* Builds the emitted files with driver.c in tmpdir and returns its output. */
static char *build_and_run(const char *files)
{
	char cmd[4600], *out = calloc(1, 8192);
	FILE *f;
	assert_non_null(out);
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && %s -std=c11 -Wall -Wextra -Werror -O2 -o drv driver.c %s > cc.log 2>&1 && ./drv "
	         "> out.txt",
	         tmpdir, compiler(), files);
	if (system(cmd) != 0)
		fail_msg("building or running the driver failed: %s", cmd);
	snprintf(cmd, sizeof(cmd), "%s/out.txt", tmpdir);
	f = fopen(cmd, "r");
	assert_non_null(f);
	assert_true(fread(out, 1, 8191, f) > 0);
	fclose(f);
	return out;
}

static void emitted_model_c_checks_ranges_and_exports_guard_kinds(void **state)
{
	static const char relu[] =
	    "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"n\", \"2*h\"]}],"
	    " \"nodes\": [{\"name\": \"r\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}],"
	    " \"outputs\": [\"y\"]}";
	const char *names[] = {"batch", "mbatch"};
	const long long values[] = {2, 2};
	size_t len;
	char *text = read_text("examples/transformer.json", &len), *code, *out;
	(void)state;
	code = emit_text(relu, 0, NULL, NULL, "rl");
	write_file("rl.c", code);
	free(code);
	code = emit_text(text, 2, names, values, "ht");
	assert_non_null(strstr(code, "const char *const ht_guard_kind[] = {"));
	write_file("ht.c", code);
	free(code), free(text);
	write_file(
	    "driver.c",
	    "#include <stdint.h>\n#include <stdio.h>\n"
	    "int rl_check(const int64_t *dims);\nint rl_shapes(const int64_t *dims, int64_t *out);\n"
	    "int ht_check(const int64_t *dims);\nextern const int ht_num_guards;\n"
	    "extern const char *const ht_guard_text[];\nextern const char *const ht_guard_kind[];\n"
	    "int main(void)\n{\n"
	    "\tstatic const int64_t rl[][2] = {{3, 4}, {0, 4}, {3, 0}, {-1, 4}, {3, 3},\n"
	    "\t\t{INT64_MAX, 4}, {4611686018427387905, 4}, {3, INT64_MAX - 1}, {4611686018427387904, 4},\n"
	    "\t\t{3, 4611686018427387904}};\n"
	    "\tstatic const int64_t ht[][7] = {{2, 128, 768, 2, 1, 1, 128}, {3, 128, 768, 2, 1, 1, 128},\n"
	    "\t\t{3, 128, 768, 1, 1, 1, 128}, {0, 128, 768, 0, 1, 1, 128}};\n"
	    "\tint64_t out[2];\n\tint i, r;\n"
	    "\tfor (i = 0; i < 10; i++)\n\t\tprintf(\"rl %d %d\\n\", rl_check(rl[i]), rl_shapes(rl[i], "
	    "out));\n"
	    "\tfor (i = 0; i < 4; i++) {\n\t\tr = ht_check(ht[i]);\n"
	    "\t\tprintf(\"ht %d %s\\n\", r, r > 0 ? ht_guard_kind[r - 1] : \"-\");\n\t}\n"
	    "\tfor (i = 0; i < ht_num_guards; i++)\n"
	    "\t\tprintf(\"kind %s %s\\n\", ht_guard_kind[i], ht_guard_text[i]);\n"
	    "\treturn ht_guard_kind[ht_num_guards] != 0;\n}\n");
	out = build_and_run("rl.c ht.c");
	/* dims >= 1: n == 0, h == 0 and n == -1 are invalid input (-2); an odd
	 * dim is no 2*h */
	assert_non_null(strstr(out, "rl 0 0\nrl -2 -2\nrl -2 -2\nrl -2 -2\nrl -2 -2\n"));
	/* no dim above 2**62 (SYM_DIM_MAX): n beyond it, and the dim 2*h beyond
	 * it, are invalid input; both at 2**62 are dims */
	assert_non_null(strstr(out, "rl -2 -2\nrl -2 -2\nrl -2 -2\nrl 0 0\nrl 0 0\n"));
	/* hinted on batch == mbatch: a broadcast that can never hold is a
	 * failed assert, mbatch == 1 a failed expect, a 0 batch invalid */
	if (!strstr(out, "ht 0 -\nht 3 assert\nht 5 expect\nht -2 -\n"))
		fail_msg("emitted hinted program answers:\n%s", out);
	assert_non_null(strstr(out, "kind assert batch == 1 || batch == mbatch || mbatch == 1\n"));
	assert_non_null(strstr(out, "kind expect batch == mbatch\n"));
	free(out);
}

static void emit_c_refuses_a_prefix_that_is_no_c_identifier(void **state)
{
	size_t len, i;
	char *text = read_text("examples/cnn.json", &len), *c;
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m = sym_model_from_json(ctx, text, len);
	sym_graph_result *r = sym_model_infer(ctx, m, NULL);
	sym_model_program *mp = sym_graph_compile(ctx, r, 0);
	const sym_expr *s = sym_expr_symbol(ctx, "s"), *o = sym_expr_from_str(ctx, "s + 1");
	sym_program *p = sym_program_compile(ctx, 1, &s, 0, NULL, 1, &o);
	const char *const bad[] = {"a b", "x*/y", "1x", "a-b", "caf\xc3\xa9"};
	(void)state;
	assert_non_null(mp);
	assert_non_null(p);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(sym_program_is_c_identifier(bad[i]));
		assert_null(sym_model_program_emit_c(mp, bad[i]));
		assert_null(sym_program_emit_c(p, bad[i], NULL));
	}
	assert_true(sym_program_is_c_identifier("_Cnn_2"));
	c = sym_model_program_emit_c(mp, "_Cnn_2");
	assert_non_null(strstr(c, "int _Cnn_2_check(const int64_t *dims)"));
	sym_model_program_str_free(mp, c);
	/* no prefix: the default */
	c = sym_model_program_emit_c(mp, NULL);
	assert_non_null(strstr(c, "int symshape_check(const int64_t *dims)"));
	sym_model_program_str_free(mp, c);
	sym_program_free(p);
	sym_model_program_free(mp);
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
	free(text);
}

/* A data-dependent dim's source goes whole into the comment that lists
 * them (it was once cut at 200 bytes); a "*" and a "/" that meet in a node
 * name get a backslash between them, so that the comment neither closes
 * early nor opens another, and the code compiles. */
static void data_dependent_sources_are_whole_in_a_comment_that_stays_closed(void **state)
{
	char name[320], json[1200], want[1200], *code, *out;
	(void)state;
	snprintf(name, sizeof(name), "nz*/a/*b/*/");
	memset(name + strlen(name), 'k', 300);
	name[11 + 300] = 0;
	snprintf(json, sizeof(json),
	         "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"n\", 4]}],"
	         " \"nodes\": [{\"name\": \"%s\", \"op\": \"NonZero\", \"inputs\": [\"x\"], "
	         "\"outputs\": [\"idx\"]}], \"outputs\": [\"idx\"]}",
	         name);
	code = emit_text(json, 0, NULL, NULL, "nzc");
	snprintf(want, sizeof(want),
	         " *   u0: the data-dependent size of node 'nz*\\/a/\\*b/\\*\\/%s' (NonZero) */\n",
	         name + 11);
	if (!strstr(code, want))
		fail_msg("no line '%s' in the emitted code:\n%s", want, code);
	assert_null(strstr(code, "nz*/"));
	write_file("nzc.c", code);
	free(code);
	write_file("driver.c", "#include <stdint.h>\n#include <stdio.h>\n"
	                       "int nzc_check(const int64_t *dims);\n"
	                       "int main(void)\n{\n"
	                       "\tstatic const int64_t ok[3] = {3, 4, 5}, bad[3] = {3, 4, 13};\n"
	                       "\tprintf(\"nzc %d %d\\n\", nzc_check(ok), nzc_check(bad));\n"
	                       "\treturn 0;\n}\n");
	out = build_and_run("nzc.c");
	assert_string_equal(out, "nzc 0 -2\n");
	free(out);
}

/* Counts the lines "return TEXT;" in code. */
static size_t count_returns(const char *code, const char *text)
{
	char want[64];
	size_t n = 0;
	const char *s = code;
	snprintf(want, sizeof(want), "\treturn %s;\n", text);
	while ((s = strstr(s, want)) != NULL)
		n++, s += strlen(want);
	return n;
}

/* One program: a run of every segment and each emitted entry point
 * evaluate every check and every guard once.  The interpreter counts its
 * GUARD instructions; the emitted text holds each guard's return once (the
 * entry points share one body), and no inner program or remapping. */
static void run_and_emitted_c_evaluate_every_guard_once(void **state)
{
	static const struct {
		const char *model;
		int64_t dims[8];
	} cases[] = {
	    {"examples/cnn.json", {8, 3, 224, 224}},
	    {"examples/transformer.json", {2, 128, 768, 2, 1, 1, 128}},
	};
	size_t k;
	(void)state;
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		size_t len, g, nchecks, nguards;
		char *text = read_text(cases[k].model, &len), *code, num[32];
		sym_ctx *ctx = sym_ctx_new();
		sym_model *m = sym_model_from_json(ctx, text, len);
		sym_graph_result *r = sym_model_infer(ctx, m, NULL);
		sym_model_program *mp = sym_graph_compile(ctx, r, 1);
		const sym_program *p;
		int64_t *shapes, *storage, *bytes;
		sym__run_count count = {0, 0};
		sym_model_run res;
		assert_non_null(mp);
		p = sym__model_program_code(mp);
		nguards = sym_graph_num_guards(r);
		nchecks = sym_program_num_guards(p) - nguards;
		shapes = calloc(sym_model_program_num_out_dims(mp) + 1, sizeof(*shapes));
		storage = calloc(sym_model_program_num_storage_dims(mp) + 1, sizeof(*storage));
		bytes = calloc(sym_model_program_num_tensors(mp) + 2, sizeof(*bytes));
		{
			int64_t *const outs[SYM_SEGMENT_COUNT] = {shapes, storage, bytes};
			sym__model_program_run_counted(mp, cases[k].dims, outs, &res, &count);
		}
		assert_int_equal(res.status, SYM_EOK);
		assert_int_equal(res.segment, -1);
		assert_int_equal(count.guards, nchecks + nguards);
		assert_true(count.insns <= sym_program_num_instructions(p));
		/* a run of one segment evaluates them once too */
		memset(&count, 0, sizeof(count));
		{
			int64_t *const outs[SYM_SEGMENT_COUNT] = {NULL, NULL, bytes};
			sym__model_program_run_counted(mp, cases[k].dims, outs, &res, &count);
		}
		assert_int_equal(res.status, SYM_EOK);
		assert_int_equal(count.guards, nchecks + nguards);
		code = sym_model_program_emit_c(mp, "P");
		assert_non_null(code);
		/* the one body: from its definition to its closing brace (the
		 * helpers before it return 1 too) */
		{
			char *body = strstr(code, "static int P__run("),
			     *end = body ? strstr(body, "\n}\n") : NULL;
			assert_non_null(end);
			end[1] = 0;
			assert_int_equal(count_returns(body, "-2"), nchecks);
			for (g = 0; g < nguards; g++) {
				snprintf(num, sizeof(num), "%zu", g + 1);
				assert_int_equal(count_returns(body, num), 1);
			}
			end[1] = '}';
		}
		assert_int_equal(count_returns(code, "-2"), nchecks);
		assert_null(strstr(code, "__prog"));
		assert_null(strstr(code, "__map"));
		assert_null(strstr(code, "P_check(dims)")); /* no entry point calls another */
		sym_model_program_str_free(mp, code);
		free(shapes), free(storage), free(bytes);
		sym_model_program_free(mp);
		sym_graph_result_free(r);
		sym_model_free(m);
		sym_ctx_free(ctx);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(run_and_emitted_c_evaluate_every_guard_once),
	    cmocka_unit_test(emitted_model_c_is_deterministic_and_prefixed),
	    cmocka_unit_test(emitted_model_c_agrees_with_the_program),
	    cmocka_unit_test(emit_c_refuses_a_prefix_that_is_no_c_identifier),
	    cmocka_unit_test(emitted_model_c_checks_ranges_and_exports_guard_kinds),
	    cmocka_unit_test(data_dependent_sources_are_whole_in_a_comment_that_stays_closed),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
