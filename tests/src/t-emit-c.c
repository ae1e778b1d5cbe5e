/* Emitted C: random programs are emitted, compiled with the system C
 * compiler (cc, or $CC) under -std=c11 -Wall -Wextra -Werror -O2, run on
 * random inputs by a generated driver, and compared with the interpreter.
 * A missing compiler is a failure, not a skip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "prog_gen.h"

#define NPROGS 30
#define NPOINTS 40
#define MAXG 3
#define MAXO 3

static char tmpdir[4096];

static const char *compiler(void)
{
	const char *cc = getenv("CC");
	return cc && *cc ? cc : "cc";
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

static void remove_file(const char *name)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	unlink(path);
}

/* Compiles the files (space-separated, in tmpdir) into exe with extra flags;
 * fails the test with the compiler's output on error. */
static void build(const char *files, const char *exe, const char *flags)
{
	char cmd[8192], log[4200];
	int rc;
	snprintf(log, sizeof(log), "%s/cc.log", tmpdir);
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && %s -std=c11 -Wall -Wextra -Werror -O2 %s -o %s %s > cc.log 2>&1", tmpdir,
	         compiler(), flags, exe, files);
	rc = system(cmd);
	if (rc != 0) {
		FILE *f = fopen(log, "r");
		char buf[2048];
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		buf[n] = 0;
		if (f)
			fclose(f);
		fail_msg("C compiler failed (%d): %s\n%s", rc, cmd, buf);
	}
}

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");
	char cmd[512];
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/symshape-emit-XXXXXX", t && *t ? t : "/tmp");
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
	static const char *const files[] = {"progs.c", "driver.c",     "drv", "drv_portable",
	                                    "one.c",   "one_driver.c", "one", "cc.log"};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		remove_file(files[i]);
	rmdir(tmpdir);
	return 0;
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

/* The driver's hash of a guard text (the same code runs there). */
static unsigned long text_hash(const char *s)
{
	unsigned long h = 7;
	for (; *s; s++)
		h = (h * 31 + (unsigned char)*s) % 1000000007ul;
	return h;
}

static int code_of(sym_status st, size_t failed)
{
	return st == SYM_EOK ? 0 : st == SYM_EGUARD ? (int)failed + 1 : -1;
}

static void random_point(int64_t *in)
{
	int i, kind = (int)rng_range(0, 5);
	for (i = 0; i < NSYMS; i++) {
		switch (kind) {
		case 0:
			in[i] = (int64_t)(rng_next() >> rng_range(1, 63)) * (rng_range(0, 1) ? 1 : -1);
			break;
		case 1:
			in[i] = rng_range(0, 3) ? rng_range(-3000000000LL, 3000000000LL) : INT64_MIN;
			break;
		default:
			in[i] = rng_range(-8, 8);
		}
	}
}

static void literal(char **s, size_t *n, int64_t v)
{
	if (v == INT64_MIN)
		cat(s, n, "INT64_MIN");
	else
		cat(s, n, "INT64_C(%lld)", (long long)v);
}

static void emitted_c_agrees_with_the_interpreter(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	gen g;
	sym_program *progs[NPROGS];
	size_t ng[NPROGS], no[NPROGS], i, j, n = 0, dn = 0;
	int64_t pts[NPOINTS][NSYMS];
	char *src = NULL, *drv = NULL, *gtexts[NPROGS][MAXG];
	char cmd[4400], line[1024];
	FILE *f;
	int pass, lines = 0, nonzero = 0, failing = 0;
	(void)state;
	gen_init(&g, ctx);
	memset(gtexts, 0, sizeof(gtexts));
	for (i = 0; i < NPROGS; i++) {
		const sym_expr *gd[MAXG], *o[MAXO];
		char prefix[32];
		char *c;
		for (;;) {
			int bad = 0;
			ng[i] = (size_t)rng_range(0, MAXG);
			no[i] = (size_t)rng_range(0, MAXO);
			for (j = 0; j < ng[i]; j++)
				bad |= !(gd[j] = gen_pred(&g, 1));
			for (j = 0; j < no[i]; j++)
				bad |= !(o[j] = gen_expr(&g, (int)rng_range(1, 4)));
			if (!bad)
				break;
			sym_ctx_clear_error(ctx);
		}
		progs[i] = sym_program_compile(ctx, NSYMS, g.s, ng[i], gd, no[i], o);
		assert_non_null(progs[i]);
		for (j = 0; j < ng[i]; j++) {
			char *t = sym_expr_to_str(ctx, gd[j]);
			/* the texts carry characters C must escape */
			gtexts[i][j] = malloc(strlen(t) + 16);
			sprintf(gtexts[i][j], "%s\t\"\\?%zu", t, j);
			sym_str_free(ctx, t);
		}
		snprintf(prefix, sizeof(prefix), "p%zu", i);
		c = sym_program_emit_c(progs[i], prefix, (const char *const *)gtexts[i]);
		assert_non_null(c);
		cat(&src, &n, "%s\n", c);
		sym_program_str_free(progs[i], c);
	}
	write_file("progs.c", src);
	/* the driver: every program at every point */
	cat(&drv, &dn,
	    "#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n\n"
	    "static unsigned long text_hash(const char *s)\n{\n\tunsigned long h = 7;\n"
	    "\tfor (; *s; s++)\n\t\th = (h * 31 + (unsigned char)*s) %% 1000000007ul;\n\treturn h;\n}\n\n");
	for (i = 0; i < NPROGS; i++)
		cat(&drv, &dn,
		    "int p%zu_check(const int64_t *dims);\nint p%zu_shapes(const int64_t *dims, int64_t "
		    "*out);\n"
		    "extern const int p%zu_num_guards;\nextern const char *const p%zu_guard_text[];\n",
		    i, i, i, i);
	cat(&drv, &dn, "static const int64_t pts[%d][%d] = {\n", NPOINTS, NSYMS);
	for (j = 0; j < NPOINTS; j++) {
		int s;
		random_point(pts[j]);
		cat(&drv, &dn, "\t{");
		for (s = 0; s < NSYMS; s++) {
			literal(&drv, &dn, pts[j][s]);
			cat(&drv, &dn, s + 1 < NSYMS ? ", " : "},\n");
		}
	}
	cat(&drv, &dn, "};\n\nint main(void)\n{\n\tint64_t out[%d];\n\tint i, k;\n", MAXO + 1);
	for (i = 0; i < NPROGS; i++) {
		cat(&drv, &dn, "\tprintf(\"G %zu %%d\\n\", p%zu_num_guards);\n", i, i);
		cat(&drv, &dn,
		    "\tfor (k = 0; k < p%zu_num_guards; k++)\n\t\tprintf(\"T %zu %%d %%lu\\n\", k, "
		    "text_hash(p%zu_guard_text[k]));\n",
		    i, i, i);
		cat(&drv, &dn,
		    "\tfor (i = 0; i < %d; i++) {\n\t\tint c = p%zu_check(pts[i]), s;\n"
		    "\t\tmemset(out, 0, sizeof(out));\n\t\ts = p%zu_shapes(pts[i], out);\n"
		    "\t\tprintf(\"R %zu %%d %%d %%d %%lld %%lld %%lld\\n\", i, c, s, (long long)out[0], "
		    "(long long)out[1], (long long)out[2]);\n\t}\n",
		    NPOINTS, i, i, i);
	}
	cat(&drv, &dn, "\treturn 0;\n}\n");
	write_file("driver.c", drv);
	build("progs.c driver.c", "drv", "");
	/* the portable helpers (no builtins) must agree as well, pedantically */
	build("progs.c driver.c", "drv_portable", "-Wpedantic -DSYMSHAPE_NO_BUILTINS");
	for (pass = 0; pass < 2; pass++) {
		snprintf(cmd, sizeof(cmd), "'%s/%s'", tmpdir, pass ? "drv_portable" : "drv");
		f = popen(cmd, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			size_t pi, pt, gk;
			unsigned long glen;
			int c, s, ngd;
			long long o[3];
			if (sscanf(line, "G %zu %d", &pi, &ngd) == 2) {
				assert_true(pi < NPROGS);
				assert_int_equal(ngd, ng[pi]);
				continue;
			}
			if (sscanf(line, "T %zu %zu %lu", &pi, &gk, &glen) == 3) {
				assert_true(pi < NPROGS && gk < ng[pi]);
				assert_int_equal(glen, text_hash(gtexts[pi][gk]));
				continue;
			}
			if (sscanf(line, "R %zu %zu %d %d %lld %lld %lld", &pi, &pt, &c, &s, &o[0], &o[1],
			           &o[2]) == 7) {
				int64_t out[MAXO + 1] = {0}, *scratch;
				size_t failed = 0, cf = 0;
				sym_status st, cs;
				assert_true(pi < NPROGS && pt < NPOINTS);
				scratch =
				    malloc((sym_program_scratch_size(progs[pi]) + 1) * sizeof(*scratch));
				st = sym_program_run(progs[pi], pts[pt], out, scratch, &failed);
				cs = sym_program_check(progs[pi], pts[pt], scratch, &cf);
				free(scratch);
				if (c != code_of(cs, cf) || s != code_of(st, failed))
					fail_msg("program %zu point %zu: C gives check %d shapes %d, "
					         "interpreter %d %d",
					         pi, pt, c, s, code_of(cs, cf), code_of(st, failed));
				if (st == SYM_EOK)
					for (j = 0; j < no[pi]; j++)
						if (out[j] != o[j])
							fail_msg("program %zu point %zu output %zu: C %lld, "
							         "interpreter %lld",
							         pi, pt, j, o[j], (long long)out[j]);
				lines++;
				nonzero += s > 0;
				failing += s < 0;
				continue;
			}
			fail_msg("unexpected driver output: %s", line);
		}
		assert_int_equal(pclose(f), 0);
	}
	assert_int_equal(lines, 2 * NPROGS * NPOINTS);
	print_message("compared %d runs: %d failed a guard, %d overflowed or divided by zero\n", lines,
	              nonzero, failing);
	assert_true(nonzero > 0);
	assert_true(failing > 0);
	for (i = 0; i < NPROGS; i++) {
		for (j = 0; j < ng[i]; j++)
			free(gtexts[i][j]);
		sym_program_free(progs[i]);
	}
	free(src);
	free(drv);
	sym_ctx_free(ctx);
}

/* Every opcode alone (handwritten programs, MOD included) at operands
 * around the ends of int64, emitted with the portable helpers too. */
static void every_opcode_matches_the_interpreter(void **state)
{
	static const int64_t edge[] = {
	    0,         1,           -1, 2, -2, 3, -7, 7, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
	    1LL << 32, -(1LL << 31)};
	enum { NE = sizeof(edge) / sizeof(edge[0]) };
	sym_program *p[SYM_OP_COUNT];
	char *src = NULL, *drv = NULL, line[256], cmd[4400];
	size_t n = 0, dn = 0;
	int op, pass, lines = 0;
	FILE *f;
	(void)state;
	cat(&drv, &dn, "#include <stdint.h>\n#include <stdio.h>\n\nstatic const int64_t e[%d] = {", NE);
	for (op = 0; op < NE; op++) {
		literal(&drv, &dn, edge[op]);
		cat(&drv, &dn, op + 1 < NE ? ", " : "};\n");
	}
	for (op = 0; op < SYM_OP_COUNT; op++) {
		char prefix[16], *c;
		p[op] = handwritten(op);
		assert_non_null(p[op]);
		snprintf(prefix, sizeof(prefix), "op%d", op);
		c = sym_program_emit_c(p[op], prefix, NULL);
		assert_non_null(c);
		cat(&src, &n, "%s\n", c);
		sym_program_str_free(p[op], c);
		cat(&drv, &dn,
		    "int op%d_check(const int64_t *dims);\nint op%d_shapes(const int64_t *dims, int64_t "
		    "*out);\n",
		    op, op);
	}
	cat(&drv, &dn,
	    "int main(void)\n{\n\tint i, j, k;\n\tfor (i = 0; i < %d; i++)\n\t\tfor (j = 0; j < %d; j++)\n"
	    "\t\t\tfor (k = 0; k < 3; k++) {\n\t\t\t\tconst int64_t d[3] = {e[i], e[j], e[k]};\n"
	    "\t\t\t\tint64_t out[1] = {0};\n\t\t\t\tint s;\n",
	    NE, NE);
	for (op = 0; op < SYM_OP_COUNT; op++)
		cat(&drv, &dn,
		    "\t\t\t\ts = op%d_shapes(d, out);\n\t\t\t\tprintf(\"%d %%d %%d %%d %%d %%d %%lld\\n\", "
		    "i, j, k, "
		    "op%d_check(d), s, (long long)out[0]);\n",
		    op, op, op);
	cat(&drv, &dn, "\t\t\t}\n\treturn 0;\n}\n");
	write_file("progs.c", src);
	write_file("driver.c", drv);
	build("progs.c driver.c", "drv", "");
	build("progs.c driver.c", "drv_portable", "-Wpedantic -DSYMSHAPE_NO_BUILTINS");
	for (pass = 0; pass < 2; pass++) {
		snprintf(cmd, sizeof(cmd), "'%s/%s'", tmpdir, pass ? "drv_portable" : "drv");
		f = popen(cmd, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			int o, i, j, kk, c, s;
			long long v;
			int64_t in[3], out[1] = {0}, scratch[8];
			size_t failed = 0, cf = 0;
			sym_status st, cs;
			if (sscanf(line, "%d %d %d %d %d %d %lld", &o, &i, &j, &kk, &c, &s, &v) != 7 ||
			    o < 0 || o >= SYM_OP_COUNT || i < 0 || i >= NE || j < 0 || j >= NE || kk < 0 ||
			    kk >= 3)
				fail_msg("unexpected driver output: %s", line);
			in[0] = edge[i], in[1] = edge[j], in[2] = edge[kk];
			st = sym_program_run(p[o], in, out, scratch, &failed);
			cs = sym_program_check(p[o], in, scratch, &cf);
			if (c != code_of(cs, cf) || s != code_of(st, failed) ||
			    (st == SYM_EOK && out[0] != v && o != SYM_OP_GUARD))
				fail_msg(
				    "opcode %d at (%lld, %lld, %lld): C %d %d %lld, interpreter %d %d %lld",
				    o, (long long)in[0], (long long)in[1], (long long)in[2], c, s, v,
				    code_of(cs, cf), code_of(st, failed), (long long)out[0]);
			lines++;
		}
		assert_int_equal(pclose(f), 0);
	}
	assert_int_equal(lines, 2 * SYM_OP_COUNT * NE * NE * 3);
	for (op = 0; op < SYM_OP_COUNT; op++)
		sym_program_free(p[op]);
	free(src);
	free(drv);
}

/* One program alone, default prefix, no guard texts: the ABI of SPEC §8. */
static void emitted_c_has_the_documented_abi(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	gen g;
	const sym_expr *gd[2], *o[2];
	sym_program *p;
	char *c, cmd[4400], line[256];
	FILE *f;
	(void)state;
	gen_init(&g, ctx);
	gd[0] = sym_expr_from_str(ctx, "s0 >= 1 && s1 >= 1");
	gd[1] = sym_expr_from_str(ctx, "s0 % 8 == 0");
	o[0] = sym_expr_from_str(ctx, "(s0 - 1)//2 + 1");
	o[1] = sym_expr_from_str(ctx, "s0*s1*s2*s3");
	p = sym_program_compile(ctx, NSYMS, g.s, 2, gd, 2, o);
	assert_non_null(p);
	c = sym_program_emit_c(p, NULL, NULL);
	assert_non_null(c);
	assert_null(strstr(c, "symshape/"));
	assert_non_null(strstr(c, "int symshape_check(const int64_t *dims)"));
	assert_non_null(strstr(c, "int symshape_shapes(const int64_t *dims, int64_t *out)"));
	write_file("one.c", c);
	sym_program_str_free(p, c);
	write_file(
	    "one_driver.c",
	    "#include <stdint.h>\n#include <stdio.h>\n"
	    "int symshape_check(const int64_t *dims);\n"
	    "int symshape_shapes(const int64_t *dims, int64_t *out);\n"
	    "extern const int symshape_num_guards;\nextern const char *const symshape_guard_text[];\n"
	    "int main(void)\n{\n"
	    "\tconst int64_t a[4] = {16, 3, 2, 5}, b[4] = {12, 3, 2, 5}, z[4] = {0, 3, 2, 5};\n"
	    "\tconst int64_t big[4] = {INT64_C(1) << 40, INT64_C(1) << 20, 8, 1};\n"
	    "\tint64_t out[2];\n"
	    "\tint s = symshape_shapes(a, out);\n"
	    "\tprintf(\"%d %d %s|%d %lld %lld|%d %d|%d|%d\\n\", symshape_num_guards, symshape_check(a),\n"
	    "\t       symshape_guard_text[0], s, (long long)out[0], (long long)out[1], symshape_check(b),\n"
	    "\t       symshape_shapes(b, out), symshape_check(z), symshape_shapes(big, out));\n"
	    "\treturn 0;\n}\n");
	build("one.c one_driver.c", "one", "");
	snprintf(cmd, sizeof(cmd), "'%s/one'", tmpdir);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_int_equal(pclose(f), 0);
	/* 2 guards; all hold at a; empty texts; (16-1)//2+1 = 8 and 480; guard 1
	 * fails at b; guard 0 at z; 2**40 * 2**20 * 8 overflows */
	assert_string_equal(line, "2 0 |0 8 480|2 2|1|-1\n");
	sym_program_free(p);
	sym_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(emitted_c_agrees_with_the_interpreter),
	    cmocka_unit_test(every_opcode_matches_the_interpreter),
	    cmocka_unit_test(emitted_c_has_the_documented_abi),
	};
	uint64_t seed = seed_from_env();
	printf("SYM_TEST_SEED=%llu\n", (unsigned long long)seed);
	rng_seed(seed);
	return cmocka_run_group_tests(tests, setup, teardown);
}
