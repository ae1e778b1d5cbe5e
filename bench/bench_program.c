/* bench_program: workload W4 of BENCH.md through the runtime program and
 * through the C it emits.
 *
 * The 1,000 expressions e = (s_a + c1)*(s_b*s_c + c2) and their values
 * s0..s7 = rand(1,100) come from MT19937 (init_genrand(0)) exactly as in
 * bench_expr.  Each expression is compiled into its own program (outside
 * the timing); the time per call of sym_program_run is the median over the
 * repetitions of PASSES passes over the 1,000 programs.  The same programs
 * are emitted as C, compiled with `$CC -O2` (default cc) into a separate
 * executable in a temporary directory, and timed there the same way.
 *
 * Prints `W4 METRIC VALUE` lines and `check W4 ...` lines; exits 1 when a
 * checksum fails or a step fails.
 *
 * Usage: bench_program [--reps N]   (default 11 repetitions) */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symshape/program.h"
#include "symshape/symshape.h"

#include "bench_common.h"

#define NSYMS 8
#define W4_EXPRS 1000
#define W4_SUM 159174571LL
#define PASSES 200
#define MAX_REPS 101

static int reps = 11;

static void die(const char *what, const char *msg)
{
	printf("error %s: %s\n", what, msg);
	fflush(stdout);
	exit(1);
}

static int shp[W4_EXPRS][5];
static int64_t vals[W4_EXPRS][NSYMS];
static sym_program *progs[W4_EXPRS];

/* Appends to a growing string. */
typedef struct sbuf {
	char *s;
	size_t n, cap;
} sbuf;

static void add(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void add(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0)
		die("bench", "vsnprintf");
	if (b->n + (size_t)k + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 1 << 16;
		char *t;

		while (nc < b->n + (size_t)k + 1)
			nc *= 2;
		t = realloc(b->s, nc);
		if (!t)
			die("bench", "out of memory");
		b->s = t;
		b->cap = nc;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)k;
}

static void build_programs(void)
{
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr *s[NSYMS];
	size_t insns = 0;
	double t0;

	if (!ctx)
		die("sym_ctx_new", "out of memory");
	for (int i = 0; i < NSYMS; i++) {
		char name[8];

		snprintf(name, sizeof name, "s%d", i);
		s[i] = sym_expr_symbol(ctx, name);
	}
	t0 = now_sec();
	for (int i = 0; i < W4_EXPRS; i++) {
		const int *q = shp[i];
		const sym_expr *e = sym_expr_mul(
		    ctx, sym_expr_add(ctx, s[q[0]], sym_expr_from_si(ctx, q[3])),
		    sym_expr_add(ctx, sym_expr_mul(ctx, s[q[1]], s[q[2]]), sym_expr_from_si(ctx, q[4])));

		progs[i] = sym_program_compile(ctx, NSYMS, s, 0, NULL, 1, &e);
		if (!progs[i])
			die("sym_program_compile", sym_ctx_last_message(ctx));
		insns += sym_program_num_instructions(progs[i]);
	}
	printf("W4 compile_us %.4g\n", (now_sec() - t0) / W4_EXPRS * 1e6);
	printf("W4 program_insns_avg %.3g\n", (double)insns / W4_EXPRS);
	sym_ctx_free(ctx);
}

static void time_programs(void)
{
	double t[MAX_REPS];
	size_t scratch_size = 0;
	int64_t *scratch, out;
	long long sum = 0, sink = 0;

	for (int i = 0; i < W4_EXPRS; i++)
		if (sym_program_scratch_size(progs[i]) > scratch_size)
			scratch_size = sym_program_scratch_size(progs[i]);
	scratch = malloc((scratch_size + 1) * sizeof(*scratch));
	if (!scratch)
		die("bench", "out of memory");
	for (int i = 0; i < W4_EXPRS; i++) {
		if (sym_program_run(progs[i], vals[i], &out, scratch, NULL) != SYM_EOK)
			die("sym_program_run", "not OK");
		sum += out;
	}
	check_si("W4", "program_value_sum", sum, W4_SUM);
	for (int r = 0; r < reps; r++) {
		double t0 = now_sec();

		for (int pass = 0; pass < PASSES; pass++)
			for (int i = 0; i < W4_EXPRS; i++) {
				sym_status st = sym_program_run(progs[i], vals[i], &out, scratch, NULL);

				sink += out + (long long)st;
			}
		t[r] = now_sec() - t0;
	}
	if (sink != W4_SUM * PASSES * reps)
		check_si("W4", "program_sink", sink, W4_SUM * PASSES * reps);
	printf("W4 program_ns %.3g\n", median(t, reps) / ((double)PASSES * W4_EXPRS) * 1e9);
	free(scratch);
}

/* Emits every program as C with a timing driver, compiles it with cc -O2
 * and runs it. */
static void time_emitted_c(void)
{
	char dir[] = "/tmp/symshape-bench-XXXXXX", path[512], cmd[2048], line[256];
	const char *cc = getenv("CC");
	sbuf b = {NULL, 0, 0};
	FILE *f;
	double t0;

	if (!cc || !*cc)
		cc = "cc";
	if (!mkdtemp(dir))
		die("mkdtemp", dir);
	add(&b,
	    "#define _POSIX_C_SOURCE 200809L\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
	    "#include <time.h>\n\n");
	for (int i = 0; i < W4_EXPRS; i++) {
		char prefix[16], *c;

		snprintf(prefix, sizeof prefix, "w4_%d", i);
		c = sym_program_emit_c(progs[i], prefix, NULL);
		if (!c)
			die("sym_program_emit_c", "out of memory");
		add(&b, "%s\n", c);
		sym_program_str_free(progs[i], c);
	}
	add(&b, "static const int64_t vals[%d][%d] = {\n", W4_EXPRS, NSYMS);
	for (int i = 0; i < W4_EXPRS; i++) {
		add(&b, "\t{");
		for (int m = 0; m < NSYMS; m++)
			add(&b, "%lld%s", (long long)vals[i][m], m + 1 < NSYMS ? ", " : "},\n");
	}
	add(&b, "};\n\nstatic int (*fns[%d])(const int64_t *, int64_t *) = {\n", W4_EXPRS);
	for (int i = 0; i < W4_EXPRS; i++)
		add(&b, "\tw4_%d_shapes,\n", i);
	add(&b,
	    "};\n\n"
	    "static double now_sec(void)\n{\n\tstruct timespec ts;\n\tclock_gettime(CLOCK_MONOTONIC, &ts);\n"
	    "\treturn (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;\n}\n\n"
	    "static int cmp(const void *a, const void *b)\n{\n"
	    "\tdouble x = *(const double *)a, y = *(const double *)b;\n\treturn (x > y) - (x < y);\n}\n\n"
	    "int main(int argc, char **argv)\n{\n"
	    "\tint reps = argc > 1 ? atoi(argv[1]) : 11, r, p, i;\n"
	    "\tdouble t[%d];\n\tlong long sum = 0, sink = 0;\n\tint64_t out;\n"
	    "\tfor (i = 0; i < %d; i++) {\n\t\tif (fns[i](vals[i], &out) != 0)\n\t\t\treturn 1;\n"
	    "\t\tsum += out;\n\t}\n"
	    "\tfor (r = 0; r < reps; r++) {\n\t\tdouble t0 = now_sec();\n"
	    "\t\tfor (p = 0; p < %d; p++)\n\t\t\tfor (i = 0; i < %d; i++) {\n"
	    "\t\t\t\tint st = fns[i](vals[i], &out);\n\t\t\t\tsink += out + st;\n\t\t\t}\n"
	    "\t\tt[r] = now_sec() - t0;\n\t}\n"
	    "\tqsort(t, (size_t)reps, sizeof(t[0]), cmp);\n"
	    "\tprintf(\"%%lld %%lld %%.3g\\n\", sum, sink, (reps %% 2 ? t[reps / 2] : (t[reps / 2 - 1] + "
	    "t[reps / 2]) / 2) / "
	    "(%d.0 * %d) * 1e9);\n\treturn 0;\n}\n",
	    MAX_REPS, W4_EXPRS, PASSES, W4_EXPRS, PASSES, W4_EXPRS);
	snprintf(path, sizeof path, "%s/w4.c", dir);
	f = fopen(path, "w");
	if (!f)
		die("fopen", path);
	fwrite(b.s, 1, b.n, f);
	fclose(f);
	free(b.s);
	t0 = now_sec();
	snprintf(cmd, sizeof cmd, "cd '%s' && %s -std=c11 -O2 -o w4 w4.c > cc.log 2>&1", dir, cc);
	if (system(cmd) != 0) {
		printf("note W4 emitted C not measured: `%s` failed (see %s/cc.log)\n", cmd, dir);
		failed = 1;
		return;
	}
	printf("W4 emitted_c_build_s %.3g\n", now_sec() - t0);
	snprintf(cmd, sizeof cmd, "'%s/w4' %d", dir, reps);
	f = popen(cmd, "r");
	if (!f || !fgets(line, sizeof line, f)) {
		printf("note W4 emitted C driver failed\n");
		failed = 1;
	} else {
		long long sum, sink;
		double ns;

		if (sscanf(line, "%lld %lld %lf", &sum, &sink, &ns) != 3)
			die("emitted C driver", line);
		check_si("W4", "emitted_c_value_sum", sum, W4_SUM);
		printf("W4 emitted_c_ns %.3g\n", ns);
	}
	if (f)
		pclose(f);
	snprintf(cmd, sizeof cmd, "rm -f '%s/w4' '%s/w4.c' '%s/cc.log' && rmdir '%s'", dir, dir, dir, dir);
	if (system(cmd) != 0)
		printf("note could not remove %s\n", dir);
}

int main(int argc, char **argv)
{
	mt19937 g;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
			if (reps < 1 || reps > MAX_REPS) {
				fprintf(stderr, "bench_program: --reps takes 1..%d\n", MAX_REPS);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: bench_program [--reps N]\n");
			return 2;
		}
	}
	/* Every expression's parameters first, then every expression's
	 * values: the order that gives BENCH.md's checksum. */
	mt_init(&g, 0);
	for (int i = 0; i < W4_EXPRS; i++) {
		for (int m = 0; m < 3; m++)
			shp[i][m] = mt_rand(&g, 0, 7);
		shp[i][3] = mt_rand(&g, 1, 9);
		shp[i][4] = mt_rand(&g, 1, 9);
	}
	for (int i = 0; i < W4_EXPRS; i++)
		for (int m = 0; m < NSYMS; m++)
			vals[i][m] = mt_rand(&g, 1, 100);
	printf("W4 n %d\n", W4_EXPRS);
	build_programs();
	time_programs();
	time_emitted_c();
	for (int i = 0; i < W4_EXPRS; i++)
		sym_program_free(progs[i]);
	return failed;
}
