/* The model commands: infer (and, with the runtime program, run and emit-c). */
#include "args.h"
#include "cli.h"
#include "storage_cli.h"
#include "symshape/cache.h"
#include "symshape/model.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The hints of --hint NAME=INT,... (or --variant), as parallel arrays. */
typedef struct hintset {
	char **names;
	long long *values;
	size_t n;
} hintset;

static void hintset_free(hintset *h)
{
	size_t i;
	for (i = 0; i < h->n; i++)
		free(h->names[i]);
	free(h->names);
	free(h->values);
}

/* Points the hint fields of opt at h (borrowed). */
static void hintset_apply(const hintset *h, sym_infer_options *opt)
{
	opt->nhints = h->n;
	opt->hint_names = (const char *const *)h->names;
	opt->hint_values = h->values;
}

typedef struct mopts {
	const char *model;
	const char *out_file; /* infer -o: the ONNX model with the shapes */
	int json;
	int allow_empty;
	hintset h;
	cli_extra x; /* --range, --align */
} mopts;

static void mopts_free(mopts *o)
{
	hintset_free(&o->h);
	cli_extra_free(&o->x);
}

/* Adds the hints "NAME=INT,NAME=INT" of option what ("--hint") to o; a
 * name hinted again takes the new value. */
static int add_hints(hintset *o, const char *what, const char *arg)
{
	char **names, err[256];
	int64_t *values;
	size_t n, k, j;
	if (cli_parse_hints(arg, &names, &values, &n, err, sizeof(err)) < 0) {
		cli_error("%s %s: %s", what, arg, err);
		return CLI_FAIL;
	}
	for (k = 0; k < n; k++) {
		for (j = 0; j < o->n && strcmp(o->names[j], names[k]); j++)
			;
		if (j == o->n) {
			char **nn = realloc(o->names, (o->n + 1) * sizeof(*nn));
			long long *nv = nn ? realloc(o->values, (o->n + 1) * sizeof(*nv)) : NULL;
			if (nn)
				o->names = nn;
			if (!nv) {
				cli_hints_free(names, values, n);
				cli_error("out of memory");
				return CLI_FAIL;
			}
			o->values = nv;
			o->names[o->n++] = names[k];
			names[k] = NULL;
		}
		o->values[j] = values[k];
	}
	cli_hints_free(names, values, n);
	return CLI_OK;
}

static int parse_mopts(int argc, char **argv, mopts *o)
{
	int i, xs;
	memset(o, 0, sizeof(*o));
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) {
			o->json = 1;
		} else if (!strcmp(a, "--allow-empty")) {
			o->allow_empty = 1;
		} else if ((xs = cli_extra_parse(&o->x, argc, argv, &i, 0)) >= 0) {
			if (xs != CLI_OK)
				return xs;
		} else if (!strcmp(a, "-o")) {
			if (i + 1 >= argc)
				return cli_usage("-o needs a file name");
			o->out_file = argv[++i];
		} else if (!strcmp(a, "--hint") || !strncmp(a, "--hint=", 7)) {
			const char *v = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);
			int st;
			if (!v)
				return cli_usage("--hint needs NAME=INT");
			if ((st = add_hints(&o->h, "--hint", v)) != CLI_OK)
				return st;
		} else if (a[0] == '-' && a[1] == '-') {
			return cli_unknown_option(a);
		} else if (!o->model) {
			o->model = a;
		} else {
			return cli_usage("infer takes one model");
		}
	}
	if (!o->model)
		return cli_usage("infer needs a model file");
	return CLI_OK;
}

static void print_text(sym_ctx *ctx, const sym_graph_result *r)
{
	size_t i, n;
	printf("symbols:\n");
	for (i = 0; i < sym_graph_num_symbols(r); i++) {
		const char *src;
		const sym_expr *lo, *hi, *s = sym_graph_symbol(r, i, &src, &lo, &hi);
		char *l = lo ? cli_expr_text(ctx, lo) : NULL, *h = hi ? cli_expr_text(ctx, hi) : cli_extra_symbol_bound(ctx, r, i);
		printf("  %-12s %-24s [%s, %s%s\n", sym_expr_symbol_name(s), src, l ? l : "-inf", h ? h : "inf",
		       h ? "]" : ")");
		free(l), free(h);
	}
	printf("tensors:\n");
	for (i = 0; i < sym_graph_num_tensors(r); i++) {
		int rank;
		const sym_expr *const *dims;
		const char *dt, *name = sym_graph_tensor(r, i, &rank, &dims, &dt);
		printf("  %-16s %-8s ", name, dt);
		if (rank == -2) {
			printf("(not inferred)\n");
			continue;
		}
		if (rank < 0) {
			printf("(unknown rank)\n");
			continue;
		}
		cli_print_dims(ctx, rank, dims);
		printf("\n");
		cli_extra_tensor_text(ctx, r, i);
	}
	n = sym_graph_num_guards(r);
	printf("guards:%s\n", n ? "" : " (none)");
	for (i = 0; i < n; i++) {
		const char *kind, *node, *reason;
		char *t = cli_expr_text(ctx, sym_graph_guard(r, i, &kind, &node, &reason));
		printf("  %zu. %-6s %s    (node %s: %s)\n", i + 1, kind, t ? t : "?", node, reason);
		free(t);
	}
	printf("merge keys:\n");
	for (i = 0; i < sym_graph_num_merge_keys(r); i++) {
		size_t nn, k;
		const char *const *nodes;
		const char *key = sym_graph_merge_key(r, i, &nn, &nodes);
		printf("  %s:", key);
		for (k = 0; k < nn; k++)
			printf("%s %s", k ? "," : "", nodes[k]);
		printf("\n");
	}
	cli_extra_total_text(ctx, r);
}

static void print_json(sym_ctx *ctx, const sym_graph_result *r)
{
	cJSON *root = cJSON_CreateObject(), *arr, *obj;
	size_t i;
	char *s;
	arr = cJSON_AddArrayToObject(root, "symbols");
	for (i = 0; i < sym_graph_num_symbols(r); i++) {
		const char *src;
		const sym_expr *lo, *hi, *sym = sym_graph_symbol(r, i, &src, &lo, &hi);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", sym_expr_symbol_name(sym));
		cJSON_AddStringToObject(o, "source", src);
		cJSON_AddItemToObject(o, "min", cli_expr_json(ctx, lo));
		cJSON_AddItemToObject(o, "max", cli_expr_json(ctx, hi));
		cli_extra_symbol_json(ctx, r, i, o);
		cJSON_AddItemToArray(arr, o);
	}
	obj = cJSON_AddObjectToObject(root, "tensors");
	for (i = 0; i < sym_graph_num_tensors(r); i++) {
		int rank, d;
		const sym_expr *const *dims;
		const char *dt, *name = sym_graph_tensor(r, i, &rank, &dims, &dt);
		cJSON *o = cJSON_CreateObject(), *sh;
		if (rank == -2) {
			cJSON_AddNullToObject(o, "shape");
			cJSON_AddBoolToObject(o, "inferred", 0);
		} else if (rank < 0) {
			cJSON_AddNullToObject(o, "shape");
		} else {
			sh = cJSON_AddArrayToObject(o, "shape");
			for (d = 0; d < rank; d++) {
				char *t = cli_expr_text(ctx, dims[d]);
				cJSON_AddItemToArray(sh, cJSON_CreateString(t ? t : "?"));
				free(t);
			}
		}
		cJSON_AddStringToObject(o, "dtype", dt);
		cli_extra_tensor_json(ctx, r, i, o);
		cJSON_AddItemToObject(obj, name, o);
	}
	arr = cJSON_AddArrayToObject(root, "guards");
	for (i = 0; i < sym_graph_num_guards(r); i++) {
		const char *kind, *node, *reason;
		char *t = cli_expr_text(ctx, sym_graph_guard(r, i, &kind, &node, &reason));
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "expr", t ? t : "?");
		cJSON_AddStringToObject(o, "kind", kind);
		cJSON_AddStringToObject(o, "node", node);
		cJSON_AddStringToObject(o, "reason", reason);
		cJSON_AddItemToArray(arr, o);
		free(t);
	}
	obj = cJSON_AddObjectToObject(root, "merge_keys");
	for (i = 0; i < sym_graph_num_merge_keys(r); i++) {
		size_t nn, k;
		const char *const *nodes;
		const char *key = sym_graph_merge_key(r, i, &nn, &nodes);
		cJSON *a = cJSON_CreateArray();
		for (k = 0; k < nn; k++)
			cJSON_AddItemToArray(a, cJSON_CreateString(nodes[k]));
		cJSON_AddItemToObject(obj, key, a);
	}
	cli_extra_total_json(ctx, r, root);
	if (sym_graph_num_errors(r)) {
		arr = cJSON_AddArrayToObject(root, "errors");
		for (i = 0; i < sym_graph_num_errors(r); i++) {
			const char *node, *msg = sym_graph_error(r, i, &node);
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "node", node);
			cJSON_AddStringToObject(o, "message", msg);
			cJSON_AddItemToArray(arr, o);
		}
	}
	s = cJSON_Print(root);
	if (s)
		puts(s);
	free(s);
	cJSON_Delete(root);
}

int cli_infer(int argc, char **argv)
{
	mopts o;
	sym_ctx *ctx = NULL;
	sym_model *m = NULL;
	sym_graph_result *r = NULL;
	sym_infer_options opt;
	size_t i;
	int st = parse_mopts(argc, argv, &o);
	if (st != CLI_OK)
		goto out;
	st = CLI_FAIL;
	ctx = sym_ctx_new();
	if (!ctx) {
		cli_error("out of memory");
		goto out;
	}
	m = sym_model_load(ctx, o.model);
	if (!m) {
		cli_error("%s: %s", o.model, sym_ctx_last_message(ctx));
		goto out;
	}
	memset(&opt, 0, sizeof(opt));
	opt.allow_empty = o.allow_empty;
	hintset_apply(&o.h, &opt);
	if (cli_extra_apply(&o.x, ctx, &opt) != CLI_OK)
		goto out;
	r = sym_model_infer(ctx, m, &opt);
	if (!r) {
		cli_error("%s: %s", o.model, sym_ctx_last_message(ctx));
		goto out;
	}
	if (o.json)
		print_json(ctx, r);
	else
		print_text(ctx, r);
	for (i = 0; i < sym_graph_num_errors(r); i++) {
		const char *node, *msg = sym_graph_error(r, i, &node);
		cli_error("%s", msg);
		(void)node;
	}
	st = sym_graph_num_errors(r) ? CLI_FAIL : CLI_OK;
	if (o.out_file && sym_graph_save_onnx(ctx, r, o.model, o.out_file) < 0) {
		cli_error("%s: %s", o.out_file, sym_ctx_last_message(ctx));
		st = CLI_FAIL;
	}
out:
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
	mopts_free(&o);
	return st;
}

/* ---- run and emit-c ------------------------------------------------------ */

typedef struct ropts {
	const char *model;
	int json;
	int allow_empty;
	const char *out_file;
	const char *prefix;
	char **shape_names;
	int64_t **shape_dims;
	size_t *shape_rank;
	size_t nshapes;
	hintset h; /* --hint: the program of the variant specialised to them */
	cli_extra x; /* --range, --align, --bind */
} ropts;

static int parse_ropts(int argc, char **argv, ropts *o, int emit)
{
	int i, xs;
	memset(o, 0, sizeof(*o));
	o->prefix = "symshape";
	o->shape_names = calloc((size_t)argc + 1, sizeof(*o->shape_names));
	o->shape_dims = calloc((size_t)argc + 1, sizeof(*o->shape_dims));
	o->shape_rank = calloc((size_t)argc + 1, sizeof(*o->shape_rank));
	if (!o->shape_names || !o->shape_dims || !o->shape_rank) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!emit && !strcmp(a, "--json")) {
			o->json = 1;
		} else if (!strcmp(a, "--allow-empty")) {
			o->allow_empty = 1;
		} else if ((xs = cli_extra_parse(&o->x, argc, argv, &i, !emit)) >= 0) {
			if (xs != CLI_OK)
				return xs;
		} else if (!emit && (!strcmp(a, "--shape") || !strncmp(a, "--shape=", 8))) {
			const char *v = a[7] == '=' ? a + 8 : (i + 1 < argc ? argv[++i] : NULL);
			const char *eq = v ? strchr(v, '=') : NULL;
			char err[256];
			if (!eq || eq == v)
				return cli_usage("--shape takes INPUT=D0,D1,...");
			if (!(o->shape_names[o->nshapes] = strndup(v, (size_t)(eq - v)))) {
				cli_error("out of memory");
				return CLI_FAIL;
			}
			if (cli_parse_dims(eq + 1, &o->shape_dims[o->nshapes], &o->shape_rank[o->nshapes], err,
					   sizeof(err)) < 0) {
				cli_error("--shape %s: %s", v, err);
				free(o->shape_names[o->nshapes]);
				return CLI_FAIL;
			}
			o->nshapes++;
		} else if (!strcmp(a, "--hint") || !strncmp(a, "--hint=", 7)) {
			const char *v = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);
			int st;
			if (!v)
				return cli_usage("--hint needs NAME=INT");
			if ((st = add_hints(&o->h, "--hint", v)) != CLI_OK)
				return st;
		} else if (emit && !strcmp(a, "-o")) {
			if (i + 1 >= argc)
				return cli_usage("-o needs a file name");
			o->out_file = argv[++i];
		} else if (emit && !strcmp(a, "--prefix")) {
			if (i + 1 >= argc)
				return cli_usage("--prefix needs a name");
			o->prefix = argv[++i];
			if (!sym_program_is_c_identifier(o->prefix))
				return cli_usage("--prefix must be a C identifier");
		} else if (a[0] == '-' && a[1] == '-') {
			return cli_unknown_option(a);
		} else if (!o->model) {
			o->model = a;
		} else {
			return cli_usage("one model at a time");
		}
	}
	if (!o->model)
		return cli_usage("a model file is needed");
	return CLI_OK;
}

static void ropts_free(ropts *o)
{
	size_t i;
	for (i = 0; i < o->nshapes; i++) {
		free(o->shape_names[i]);
		free(o->shape_dims[i]);
	}
	free(o->shape_names);
	free(o->shape_dims);
	free(o->shape_rank);
	hintset_free(&o->h);
	cli_extra_free(&o->x);
}

/* Loads, infers and compiles; returns the program or NULL (message printed). */
static sym_model_program *load_program(sym_ctx *ctx, const char *path, int allow_empty, const hintset *h, int all,
				       sym_model **m, sym_graph_result **r, cli_extra *x)
{
	sym_infer_options opt;
	sym_model_program *mp;
	size_t i;
	*m = sym_model_load(ctx, path);
	if (!*m) {
		cli_error("%s: %s", path, sym_ctx_last_message(ctx));
		return NULL;
	}
	memset(&opt, 0, sizeof(opt));
	opt.allow_empty = allow_empty;
	hintset_apply(h, &opt);
	if (cli_extra_apply(x, ctx, &opt) != CLI_OK)
		return NULL;
	*r = sym_model_infer(ctx, *m, &opt);
	if (!*r) {
		cli_error("%s: %s", path, sym_ctx_last_message(ctx));
		return NULL;
	}
	for (i = 0; i < sym_graph_num_errors(*r); i++)
		cli_error("%s", sym_graph_error(*r, i, NULL));
	mp = sym_graph_compile(ctx, *r, all);
	if (!mp)
		cli_error("%s: %s", path, sym_ctx_last_message(ctx));
	return mp;
}

/* Prints the failed run as JSON: ok false, the failure, no tensors. */
static void print_run_failure_json(const sym_model_run *res, const char *msg)
{
	cJSON *root = cJSON_CreateObject(), *g = cJSON_CreateObject();
	char *s;
	cJSON_AddBoolToObject(root, "ok", 0);
	if (res && res->status == SYM_EGUARD) {
		cJSON_AddStringToObject(g, "expr", res->message ? res->message : "");
		cJSON_AddItemToObject(g, "index", cli_int_json((long long)res->failed));
		cJSON_AddStringToObject(g, "kind", res->kind);
		cJSON_AddStringToObject(g, "node", res->node);
	} else {
		cJSON_AddStringToObject(g, "expr", msg);
		cJSON_AddStringToObject(g, "kind", res && res->status == SYM_EINPUT ? "binding" : "error");
	}
	cJSON_AddItemToObject(root, "failed_guard", g);
	cJSON_AddObjectToObject(root, "tensors");
	s = cJSON_PrintUnformatted(root);
	if (s)
		puts(s);
	free(s);
	cJSON_Delete(root);
}

static void print_run_json(const sym_model_program *mp, const int64_t *out, const int64_t *sto,
			   const int64_t *bytes)
{
	cJSON *root = cJSON_CreateObject(), *t;
	size_t i, q = 0;
	char *s;
	cJSON_AddBoolToObject(root, "ok", 1);
	cJSON_AddNullToObject(root, "failed_guard");
	t = cJSON_AddObjectToObject(root, "tensors");
	for (i = 0; i < sym_model_program_num_tensors(mp); i++) {
		int rank, d;
		const char *name = sym_model_program_tensor(mp, i, &rank);
		cJSON *a = cJSON_CreateArray();
		for (d = 0; d < rank; d++)
			cJSON_AddItemToArray(a, cli_int_json(out[q++]));
		cJSON_AddItemToObject(t, name, a);
	}
	cli_extra_run_json(mp, sto, bytes, root);
	s = cJSON_PrintUnformatted(root);
	if (s)
		puts(s);
	free(s);
	cJSON_Delete(root);
}

static void print_run_text(const sym_model_program *mp, const int64_t *out, const int64_t *sto,
			   const int64_t *bytes)
{
	size_t i, q = 0;
	printf("ok\n");
	for (i = 0; i < sym_model_program_num_tensors(mp); i++) {
		int rank, d;
		const char *name = sym_model_program_tensor(mp, i, &rank);
		printf("  %-16s [", name);
		for (d = 0; d < rank; d++)
			printf("%s%lld", d ? ", " : "", (long long)out[q++]);
		printf("]\n");
	}
	cli_extra_run_text(mp, sto, bytes);
}

/* Writes the declared dims of input tensor name to dims when they are all
 * constants (no symbol comes from its shape: a guard may have made a
 * symbol's dim constant); returns whether they were. */
static int constant_input_dims(const sym_graph_result *r, const char *name, int rank, int64_t *dims)
{
	int k, d;
	const sym_expr *const *dd;
	size_t t = sym_graph_find_tensor(r, name), i, n = strlen(name);
	if (t == (size_t)-1 || !sym_graph_tensor(r, t, &k, &dd, NULL) || k != rank || rank < 0)
		return 0;
	for (i = 0; i < sym_graph_num_symbols(r); i++) {
		const char *src;
		sym_graph_symbol(r, i, &src, NULL, NULL);
		if (src && !strncmp(src, name, n) && !strncmp(src + n, ".shape[", 7))
			return 0;
	}
	for (d = 0; d < rank; d++) {
		long long v;
		if (sym_expr_get_si(dd[d], &v) != 1)
			return 0;
		dims[d] = v;
	}
	return 1;
}

/* Writes the dims of every model input, in input order, to dims and their
 * count to *p: the --shape dims, or the declared ones of an input whose
 * shape is constant.  Returns CLI_OK or CLI_FAIL (message printed). */
static int fill_input_dims(const ropts *o, const sym_model *m, const sym_graph_result *r, int64_t *dims,
			   size_t *p)
{
	size_t i, k;
	for (i = 0; i < o->nshapes; i++) {
		for (k = 0; k < sym_model_num_inputs(m); k++)
			if (!strcmp(sym_model_input_name(m, k), o->shape_names[i]))
				break;
		if (k == sym_model_num_inputs(m)) {
			cli_error("--shape %s: the model has no input '%s'", o->shape_names[i], o->shape_names[i]);
			return CLI_FAIL;
		}
		for (k = 0; k < i; k++)
			if (!strcmp(o->shape_names[k], o->shape_names[i])) {
				cli_error("--shape %s: input '%s' is given twice", o->shape_names[i], o->shape_names[i]);
				return CLI_FAIL;
			}
	}
	*p = 0;
	for (i = 0; i < sym_model_num_inputs(m); i++) {
		const char *name = sym_model_input_name(m, i);
		int rank = sym_model_input_rank(m, i);
		for (k = 0; k < o->nshapes && strcmp(o->shape_names[k], name); k++)
			;
		if (k == o->nshapes && constant_input_dims(r, name, rank, dims + *p)) {
			*p += (size_t)rank;
			continue;
		}
		if (k == o->nshapes) {
			cli_error("missing --shape %s=D0,D1,... for input '%s'", name, name);
			return CLI_FAIL;
		}
		if (rank < 0 || o->shape_rank[k] != (size_t)rank) {
			cli_error("--shape %s: input '%s' has rank %d, got %zu dims", name, name, rank, o->shape_rank[k]);
			return CLI_FAIL;
		}
		if (rank)
			memcpy(dims + *p, o->shape_dims[k], (size_t)rank * sizeof(*dims));
		*p += (size_t)rank;
	}
	return CLI_OK;
}

int cli_run(int argc, char **argv)
{
	ropts o;
	sym_ctx *ctx = NULL;
	sym_model *m = NULL;
	sym_graph_result *r = NULL;
	sym_model_program *mp = NULL;
	int64_t *dims = NULL, *out = NULL, *sto = NULL, *bytes = NULL;
	size_t p = 0;
	sym_model_run res;
	char msg[512];
	int st = parse_ropts(argc, argv, &o, 0);
	if (st != CLI_OK)
		goto done;
	st = CLI_FAIL;
	if (!(ctx = sym_ctx_new()))
		goto done;
	mp = load_program(ctx, o.model, o.allow_empty, &o.h, 1, &m, &r, &o.x);
	if (!mp)
		goto done;
	dims = calloc(sym_model_program_num_dims(mp) + 1, sizeof(*dims));
	out = calloc(sym_model_program_num_out_dims(mp) + 1, sizeof(*out));
	if (!dims || !out) {
		cli_error("out of memory");
		goto done;
	}
	if (fill_input_dims(&o, m, r, dims, &p) != CLI_OK || cli_extra_fill_binds(&o.x, mp, dims + p) != CLI_OK)
		goto done;
	/* every segment is computed (the checks and guards once) before
	 * anything is printed: a run that fails anywhere prints no shapes */
	if (cli_extra_alloc_parts(mp, &sto, &bytes) != CLI_OK) {
		cli_error("out of memory");
		goto done;
	}
	{
		int64_t *const outs[SYM_SEGMENT_COUNT] = {out, sto, bytes};
		sym_model_program_run_segments(mp, dims, outs, &res);
	}
	if (res.status != SYM_EOK) {
		cli_run_failure_message(&res, msg, sizeof(msg));
		if (o.json)
			print_run_failure_json(res.segment > SYM_SEGMENT_SHAPES ? NULL : &res, msg);
		cli_error("%s", msg);
		goto done;
	}
	if (o.json)
		print_run_json(mp, out, sto, bytes);
	else
		print_run_text(mp, out, sto, bytes);
	st = CLI_OK;
done:
	free(dims);
	free(out);
	free(sto);
	free(bytes);
	sym_model_program_free(mp);
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
	ropts_free(&o);
	return st;
}

int cli_emit_c(int argc, char **argv)
{
	ropts o;
	sym_ctx *ctx = NULL;
	sym_model *m = NULL;
	sym_graph_result *r = NULL;
	sym_model_program *mp = NULL;
	char *code = NULL;
	int st = parse_ropts(argc, argv, &o, 1);
	if (st != CLI_OK)
		goto done;
	st = CLI_FAIL;
	if (!(ctx = sym_ctx_new()))
		goto done;
	mp = load_program(ctx, o.model, o.allow_empty, &o.h, 0, &m, &r, &o.x);
	if (!mp)
		goto done;
	code = sym_model_program_emit_c(mp, o.prefix);
	if (!code) {
		cli_error("out of memory");
		goto done;
	}
	if (o.out_file) {
		FILE *f = fopen(o.out_file, "w");
		if (!f || fputs(code, f) < 0 || fclose(f) != 0) {
			cli_error("cannot write '%s': %s", o.out_file, strerror(errno));
			goto done;
		}
	} else {
		fputs(code, stdout);
	}
	st = CLI_OK;
done:
	free(code);
	sym_model_program_free(mp);
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
	ropts_free(&o);
	return st;
}

/* ---- the guard cache ----------------------------------------------------- */

/* Parses "x=1,2,3;mask=1,1" (every input once, each with its rank of
 * strict dims) into dims in model input order. */
static int parse_query(const sym_model *m, const char *q, int64_t *dims)
{
	size_t ni = sym_model_num_inputs(m), i, *off = calloc(ni + 1, sizeof(*off));
	char *seen = calloc(ni + 1, 1);
	const char *part = q;
	int st = CLI_FAIL;
	if (!off || !seen) {
		cli_error("out of memory");
		goto error;
	}
	for (i = 0; i < ni; i++)
		off[i + 1] = off[i] + (size_t)(sym_model_input_rank(m, i) > 0 ? sym_model_input_rank(m, i) : 0);
	for (;;) {
		size_t len = strcspn(part, ";"), nlen = strcspn(part, "=;"), n;
		int64_t *d;
		char err[256];
		if (nlen == len || !nlen) {
			cli_error("--query '%s': '%.*s' is not INPUT=D0,D1,... (parts are separated by ';')", q, (int)len,
				  part);
			goto error;
		}
		for (i = 0; i < ni && (strlen(sym_model_input_name(m, i)) != nlen ||
				       strncmp(part, sym_model_input_name(m, i), nlen));
		     i++)
			;
		if (i == ni) {
			cli_error("--query '%s': the model has no input '%.*s'", q, (int)nlen, part);
			goto error;
		}
		if (seen[i]++) {
			cli_error("--query '%s': input '%s' is given twice", q, sym_model_input_name(m, i));
			goto error;
		}
		{
			char *text = strndup(part + nlen + 1, len - nlen - 1);
			int bad = !text || cli_parse_dims(text, &d, &n, err, sizeof(err)) < 0;
			if (!text)
				snprintf(err, sizeof(err), "out of memory");
			free(text);
			if (bad) {
				cli_error("--query '%s': input '%s': %s", q, sym_model_input_name(m, i), err);
				goto error;
			}
		}
		if (sym_model_input_rank(m, i) < 0 || n != (size_t)sym_model_input_rank(m, i)) {
			cli_error("--query '%s': input '%s' needs %d dims, got %zu", q, sym_model_input_name(m, i),
				  sym_model_input_rank(m, i), n);
			free(d);
			goto error;
		}
		if (n)
			memcpy(dims + off[i], d, n * sizeof(*d));
		free(d);
		if (!part[len])
			break;
		part += len + 1;
	}
	for (i = 0; i < ni; i++)
		if (!seen[i]) {
			cli_error("--query '%s': input '%s' needs %d dims", q, sym_model_input_name(m, i),
				  sym_model_input_rank(m, i));
			goto error;
		}
	st = CLI_OK;
error:
	free(off);
	free(seen);
	return st;
}

/* Compiles a variant with the hints of o, labelled label in messages. */
static sym_model_program *compile_variant(sym_ctx *ctx, const sym_model *m, const mopts *o, const char *label,
					  cli_extra *x)
{
	sym_infer_options opt;
	sym_graph_result *r;
	sym_model_program *mp = NULL;
	memset(&opt, 0, sizeof(opt));
	hintset_apply(&o->h, &opt);
	if (cli_extra_apply(x, ctx, &opt) != CLI_OK)
		return NULL;
	r = sym_model_infer(ctx, m, &opt);
	if (r) {
		mp = sym_graph_compile(ctx, r, 0);
		sym_graph_result_free(r);
	}
	if (mp && sym_model_program_num_bound(mp)) {
		cli_error("variant '%s': the model has data-dependent dims (%s): the guard cache takes input dims only",
			  label, sym_model_program_bound(mp, 0, NULL));
		sym_model_program_free(mp);
		return NULL;
	}
	if (!mp)
		cli_error("variant '%s': %s", label, sym_ctx_last_message(ctx));
	return mp;
}

/* Compiles the variant of the --variant text hints ("" for none). */
static sym_model_program *compile_variant_text(sym_ctx *ctx, const sym_model *m, const char *hints, cli_extra *x)
{
	mopts o;
	sym_model_program *mp = NULL;
	memset(&o, 0, sizeof(o));
	if (!*hints || add_hints(&o.h, "--variant", hints) == CLI_OK)
		mp = compile_variant(ctx, m, &o, hints, x);
	mopts_free(&o);
	return mp;
}

/* The hints, for the symbols that input dims bind exactly, into o (one per
 * symbol, the first dim naming it), and their text "s=v,..." into *label
 * (caller frees).  Returns CLI_OK or CLI_FAIL (message printed). */
static int hints_of(sym_ctx *ctx, const sym_model *m, const int64_t *dims, mopts *o, char **label)
{
	sym_graph_result *r = sym_model_infer(ctx, m, NULL);
	size_t i, p = 0, len = 0, k;
	*label = calloc(1, 1);
	if (!r || !*label) {
		cli_error("%s", r ? "out of memory" : sym_ctx_last_message(ctx));
		sym_graph_result_free(r);
		return CLI_FAIL;
	}
	for (i = 0; i < sym_model_num_inputs(m); i++) {
		int rank, d;
		const sym_expr *const *dd;
		sym_graph_tensor(r, sym_graph_find_tensor(r, sym_model_input_name(m, i)), &rank, &dd, NULL);
		for (d = 0; d < rank; d++, p++) {
			const char *name = sym_expr_symbol_name(dd[d]);
			char **nn, *nl;
			long long *nv;
			size_t need;
			if (!name)
				continue;
			for (k = 0; k < o->h.n && strcmp(o->h.names[k], name); k++)
				;
			if (k < o->h.n)
				continue;
			need = len + strlen(name) + 24;
			nn = realloc(o->h.names, (o->h.n + 1) * sizeof(*nn));
			if (nn)
				o->h.names = nn;
			nv = nn ? realloc(o->h.values, (o->h.n + 1) * sizeof(*nv)) : NULL;
			if (nv)
				o->h.values = nv;
			nl = nv ? realloc(*label, need) : NULL;
			if (!nl || !(o->h.names[o->h.n] = strdup(name))) {
				if (nl)
					*label = nl;
				cli_error("out of memory");
				sym_graph_result_free(r);
				return CLI_FAIL;
			}
			*label = nl;
			o->h.values[o->h.n++] = (long long)dims[p];
			len += (size_t)snprintf(*label + len, need - len, "%s%s=%lld", len ? "," : "", name,
						(long long)dims[p]);
		}
	}
	sym_graph_result_free(r);
	return CLI_OK;
}

int cli_cache(int argc, char **argv)
{
	sym_ctx *ctx = NULL;
	sym_model *m = NULL;
	sym_guard_cache *c = NULL;
	const char *model = NULL;
	size_t capacity = 4, nq = 0, i;
	int jit = 0, st = CLI_FAIL, k, xs;
	cli_extra cx;
	const char **variants = calloc((size_t)argc + 1, sizeof(char *));
	const char **queries = calloc((size_t)argc + 1, sizeof(char *));
	size_t nv = 0;
	int64_t *dims = NULL;
	memset(&cx, 0, sizeof(cx));
	if (!variants || !queries)
		goto out;
	for (k = 0; k < argc; k++) {
		if (!strcmp(argv[k], "--variant") && k + 1 < argc) {
			variants[nv++] = argv[++k];
		} else if (!strcmp(argv[k], "--query") && k + 1 < argc) {
			queries[nq++] = argv[++k];
		} else if (!strcmp(argv[k], "--capacity") && k + 1 < argc) {
			char err[256];
			int64_t v;
			if (cli_parse_int(argv[++k], &v, err, sizeof(err)) < 0) {
				cli_error("--capacity %s: %s", argv[k], err);
				goto out;
			}
			if (v < 1) {
				st = cli_usage("--capacity must be at least 1");
				goto out;
			}
			capacity = (size_t)v;
		} else if (!strcmp(argv[k], "--jit")) {
			jit = 1;
		} else if ((xs = cli_extra_parse(&cx, argc, argv, &k, 0)) >= 0) {
			if (xs != CLI_OK) {
				st = xs;
				goto out;
			}
		} else if (argv[k][0] == '-' && argv[k][1] == '-') {
			st = cli_usage("cache takes --variant HINTS, --query DIMS, --capacity N, --jit, --range NAME=LO:HI");
			goto out;
		} else if (!model) {
			model = argv[k];
		} else {
			st = cli_usage("one model at a time");
			goto out;
		}
	}
	if (!model || !nq) {
		st = cli_usage("cache needs a model and at least one --query");
		goto out;
	}
	if (!(ctx = sym_ctx_new()) || !(c = sym_guard_cache_new(capacity))) {
		cli_error("out of memory");
		goto out;
	}
	if (!(m = sym_model_load(ctx, model))) {
		cli_error("%s: %s", model, sym_ctx_last_message(ctx));
		goto out;
	}
	{
		sym_model_program *generic = compile_variant_text(ctx, m, "", &cx);
		if (!generic || sym_guard_cache_set_validity(c, generic) < 0)
			goto out;
	}
	for (i = 0; i < nv; i++) {
		sym_model_program *mp = compile_variant_text(ctx, m, variants[i], &cx);
		long id;
		if (!mp)
			goto out;
		id = sym_guard_cache_add(c, mp, *variants[i] ? variants[i] : "(no hints)");
		printf("variant %ld compiled: %s\n", id, *variants[i] ? variants[i] : "(no hints)");
	}
	{
		size_t n = 0, j;
		for (j = 0; j < sym_model_num_inputs(m); j++)
			n += (size_t)(sym_model_input_rank(m, j) > 0 ? sym_model_input_rank(m, j) : 0);
		dims = calloc(n + 1, sizeof(*dims));
		if (!dims)
			goto out;
	}
	for (i = 0; i < nq; i++) {
		long id = -1;
		const char *reason;
		sym_cache_answer a;
		if (parse_query(m, queries[i], dims) != CLI_OK)
			goto out;
		a = sym_guard_cache_lookup(c, dims, &id, &reason);
		printf("query %s: ", queries[i]);
		if (a == SYM_CACHE_HIT) {
			printf("reuse variant %ld (%s)\n", id, sym_guard_cache_label(c, id));
		} else if (a == SYM_CACHE_INVALID) {
			printf("invalid input: %s\n", reason);
		} else if (!jit) {
			printf("recompile\n");
		} else {
			mopts ho;
			char *h = NULL;
			sym_model_program *mp = NULL;
			memset(&ho, 0, sizeof(ho));
			if (hints_of(ctx, m, dims, &ho, &h) == CLI_OK)
				mp = compile_variant(ctx, m, &ho, h, &cx);
			mopts_free(&ho);
			if (!mp) {
				free(h);
				goto out;
			}
			id = sym_guard_cache_add(c, mp, h);
			printf("recompile: compiled variant %ld (%s)\n", id, h);
			free(h);
		}
	}
	st = CLI_OK;
out:
	free(dims);
	free(variants);
	free(queries);
	cli_extra_free(&cx);
	sym_guard_cache_free(c);
	sym_model_free(m);
	sym_ctx_free(ctx);
	return st;
}
