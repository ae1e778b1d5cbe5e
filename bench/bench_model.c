/* Model workloads (BENCH.md): inference time of generated models, and the
 * guard check and shape evaluation per call of a model's runtime program
 * and of the C it emits (compiled at bench time with cc -O2 into a driver
 * that times its own loop).
 *
 * Usage: bench_model [--reps N] [--calls N] [--program MODEL] [MODEL...]
 *   MODEL...         time sym_model_load + sym_model_infer (median of N runs)
 *   --program MODEL  time the runtime program and the emitted C of MODEL
 *
 * Output lines ("key value" pairs, parsed by compare_models.py):
 *   infer PATH nodes N load_ms X infer_ms Y total_ms Z ns_per_node W guards G unknown_dims U
 *   program MODEL guards G dims D outs O
 *   call interp_run_ns X emitted_check_ns Y emitted_shapes_ns Z
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symshape/symshape.h"

#include "bench_common.h"

static double now_ns(void)
{
	return now_sec() * 1e9;
}

static int bench_infer(const char *path, int reps)
{
	double tl[64], ti[64], tt[64];
	size_t nodes = 0, guards = 0, unknown = 0, exprs = 0, expr_bytes = 0;
	int k;
	for (k = 0; k < reps; k++) {
		sym_ctx *ctx = sym_ctx_new();
		double t0 = now_ns(), t1, t2;
		sym_model *m = sym_model_load(ctx, path);
		sym_graph_result *r;
		t1 = now_ns();
		if (!m) {
			fprintf(stderr, "bench_model: %s: %s\n", path, sym_ctx_last_message(ctx));
			sym_ctx_free(ctx);
			return 1;
		}
		r = sym_model_infer(ctx, m, NULL);
		t2 = now_ns();
		if (!r || sym_graph_num_errors(r)) {
			fprintf(stderr, "bench_model: %s: %s\n", path,
			        r ? sym_graph_error(r, 0, NULL) : sym_ctx_last_message(ctx));
			sym_graph_result_free(r);
			sym_model_free(m);
			sym_ctx_free(ctx);
			return 1;
		}
		/* nodes: tensors minus inputs and initializers is not exact for
		 * multi-output nodes; merge keys list every inferred node once */
		nodes = 0;
		{
			size_t i;
			for (i = 0; i < sym_graph_num_merge_keys(r); i++) {
				size_t nn;
				sym_graph_merge_key(r, i, &nn, NULL);
				nodes += nn;
			}
		}
		guards = sym_graph_num_guards(r);
		/* a tensor of unknown rank or not inferred counts as one unknown dim */
		unknown = 0;
		{
			size_t i;
			for (i = 0; i < sym_graph_num_tensors(r); i++) {
				int rank;
				sym_graph_tensor(r, i, &rank, NULL, NULL);
				unknown += rank < 0;
			}
		}
		tl[k] = (t1 - t0) / 1e6, ti[k] = (t2 - t1) / 1e6, tt[k] = (t2 - t0) / 1e6;
		exprs = sym_ctx_node_count(ctx, &expr_bytes);
		sym_graph_result_free(r);
		sym_model_free(m);
		sym_ctx_free(ctx);
	}
	{
		double l = median(tl, reps), i = median(ti, reps), t = median(tt, reps);
		printf("infer %s nodes %zu load_ms %.3f infer_ms %.3f total_ms %.3f ns_per_node %.0f guards "
		       "%zu unknown_dims %zu expr_nodes %zu expr_bytes_per_node %.1f\n",
		       path, nodes, l, i, t, t * 1e6 / (double)(nodes ? nodes : 1), guards, unknown, exprs,
		       (double)expr_bytes / (double)(exprs ? exprs : 1));
	}
	fflush(stdout);
	return 0;
}

/* Valid dims for the transformer-like inputs (x [batch, seq, 768], mask
 * [mbatch, 1, 1, mseq]): every dim a binding symbol takes the value of its
 * first occurrence; batches of points vary batch and seq. */
#define NPTS 64

static int bench_program(const char *path, int reps, long calls)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m = sym_model_load(ctx, path);
	sym_graph_result *r = m ? sym_model_infer(ctx, m, NULL) : NULL;
	sym_model_program *mp = r ? sym_graph_compile(ctx, r, 0) : NULL;
	int64_t pts[NPTS][64], *out;
	size_t nd, no, i;
	double tc[64], trun[64];
	char dir[] = "/tmp/symshape-bench-XXXXXX", cmd[8192], file[4200];
	char *code;
	FILE *f;
	int k, p, status = 1;
	double emitted_check = -1, emitted_shapes = -1;
	if (!mp) {
		fprintf(stderr, "bench_model: %s: %s\n", path, sym_ctx_last_message(ctx));
		goto out;
	}
	nd = sym_model_program_num_dims(mp);
	no = sym_model_program_num_out_dims(mp);
	if (nd > 64) {
		fprintf(stderr, "bench_model: too many input dims\n");
		goto out;
	}
	out = calloc(no + 1, sizeof(*out));
	/* points: the symbols of the inputs at valid values; the declared
	 * constants as declared */
	{
		size_t nsyms = sym_graph_num_symbols(r), q = 0;
		const sym_expr *syms[32];
		long long vals[32];
		const sym_expr *decl[64];
		for (i = 0; i < sym_model_num_inputs(m); i++) {
			int rank, d;
			const sym_expr *const *dims;
			sym_graph_tensor(r, sym_graph_find_tensor(r, sym_model_input_name(m, i)), &rank,
			                 &dims, NULL);
			for (d = 0; d < rank; d++)
				decl[q++] = dims[d];
		}
		for (i = 0; i < nsyms && i < 32; i++)
			syms[i] = sym_graph_symbol(r, i, NULL, NULL, NULL);
		for (p = 0; p < NPTS; p++) {
			long long v = 1 + (p * 37) % 512, b = 1 + p % 16;
			for (i = 0; i < nsyms; i++) {
				const char *n = sym_expr_symbol_name(syms[i]);
				/* batch-like and sequence-like symbols agree, so every
				 * guard holds: the timed path checks all of them */
				vals[i] = strstr(n, "batch") || n[0] == 'N' ? b : v;
			}
			for (i = 0; i < nd; i++) {
				long long x;
				sym_expr_get_si(sym_expr_eval_si(ctx, decl[i], nsyms, syms, vals), &x);
				pts[p][i] = x;
			}
		}
	}
	for (k = 0; k < reps; k++) {
		sym_model_run res;
		double t0 = now_ns(), t1;
		long c;
		int64_t sink = 0;
		for (c = 0; c < calls; c++) {
			sym_model_program_run(mp, pts[c % NPTS], out, &res);
			sink += (res.status != SYM_EOK) + out[0];
		}
		t1 = now_ns();
		trun[k] = (t1 - t0) / (double)calls;
		if (sink == 42)
			printf(" ");
		tc[k] = trun[k];
	}
	{
		sym_model_run res;
		sym_model_program_run(mp, pts[0], out, &res);
		if (res.status != SYM_EOK) {
			fprintf(stderr, "bench_model: the benchmark point fails: %s\n", res.message);
			goto out;
		}
	}
	/* the emitted C, compiled with cc -O2, timing its own loop */
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		goto out;
	}
	code = sym_model_program_emit_c(mp, "bm");
	snprintf(file, sizeof(file), "%s/bm.c", dir);
	f = fopen(file, "w");
	fputs(code, f);
	fclose(f);
	sym_model_program_str_free(mp, code);
	snprintf(file, sizeof(file), "%s/drv.c", dir);
	f = fopen(file, "w");
	fprintf(
	    f,
	    "#define _POSIX_C_SOURCE 200809L\n#include <stdint.h>\n#include <stdio.h>\n#include <time.h>\n"
	    "int bm_check(const int64_t *dims);\nint bm_shapes(const int64_t *dims, int64_t *out);\n"
	    "static const int64_t pts[%d][%zu] = {\n",
	    NPTS, nd);
	for (p = 0; p < NPTS; p++) {
		fprintf(f, "\t{");
		for (i = 0; i < nd; i++)
			fprintf(f, "%s%lld", i ? ", " : "", (long long)pts[p][i]);
		fprintf(f, "},\n");
	}
	fprintf(
	    f,
	    "};\nstatic double now(void)\n{\n\tstruct timespec ts;\n\tclock_gettime(CLOCK_MONOTONIC, &ts);\n"
	    "\treturn (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;\n}\n"
	    "int main(void)\n{\n\tstatic int64_t out[%zu];\n\tvolatile long sink = 0;\n\tint k;\n"
	    "\tfor (k = 0; k < %d; k++) {\n\t\tlong c;\n\t\tdouble t0 = now(), t1, t2;\n"
	    "\t\tfor (c = 0; c < %ld; c++)\n\t\t\tsink += bm_check(pts[c %% %d]);\n\t\tt1 = now();\n"
	    "\t\tfor (c = 0; c < %ld; c++)\n\t\t\tsink += bm_shapes(pts[c %% %d], out) + out[0];\n"
	    "\t\tt2 = now();\n\t\tprintf(\"%%.3f %%.3f\\n\", (t1 - t0) / %ld, (t2 - t1) / %ld);\n\t}\n"
	    "\treturn sink == 42;\n}\n",
	    no + 1, reps, calls, NPTS, calls, NPTS, calls, calls);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd %s && %s -std=c11 -O2 -o drv bm.c drv.c 2> cc.log && ./drv", dir,
	         getenv("CC") && *getenv("CC") ? getenv("CC") : "cc");
	f = popen(cmd, "r");
	if (f) {
		double ec[64], es[64];
		int n = 0;
		while (n < reps && fscanf(f, "%lf %lf", &ec[n], &es[n]) == 2)
			n++;
		if (pclose(f) == 0 && n == reps) {
			emitted_check = median(ec, n);
			emitted_shapes = median(es, n);
		} else {
			fprintf(stderr, "bench_model: the emitted C did not build or run (%s)\n", cmd);
		}
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_model: cannot remove %s\n", dir);
	printf("program %s guards %zu dims %zu outs %zu\n", path, sym_graph_num_guards(r), nd, no);
	/* the interpreter has one entry point (guards then shapes): the same
	 * number is its check and its run */
	printf("call interp_run_ns %.3f emitted_check_ns %.3f emitted_shapes_ns %.3f\n", median(trun, reps),
	       emitted_check, emitted_shapes);
	(void)tc;
	free(out);
	status = 0;
out:
	sym_model_program_free(mp);
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
	return status;
}

int main(int argc, char **argv)
{
	int reps = 5, i, st = 0;
	long calls = 2000000;
	const char *program = NULL;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
			if (reps < 1 || reps > 64)
				reps = 5;
		} else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
			calls = atol(argv[++i]);
			if (calls < 1)
				calls = 1;
		} else if (!strcmp(argv[i], "--program") && i + 1 < argc) {
			program = argv[++i];
		}
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") || !strcmp(argv[i], "--calls") ||
		    !strcmp(argv[i], "--program")) {
			i++;
			continue;
		}
		st |= bench_infer(argv[i], reps);
	}
	if (program)
		st |= bench_program(program, reps, calls);
	return st;
}
