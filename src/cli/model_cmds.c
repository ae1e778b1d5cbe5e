/* The model commands: infer (and, with the runtime program, run and emit-c). */
#include "cli.h"
#include "storage_cli.h"
#include "symshape/cache.h"
#include "symshape/model.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct mopts {
	const char *model;
	const char *out_file; /* infer -o: the ONNX model with the shapes */
	int json;
	int allow_empty;
	const char **hint_names;
	long long *hint_values;
	size_t nhints;
	char **owned;
	size_t nowned;
	cli_extra x; /* --range, --align */
} mopts;

static void mopts_free(mopts *o)
{
	size_t i;
	for (i = 0; i < o->nowned; i++)
		free(o->owned[i]);
	free(o->owned);
	free(o->hint_names);
	free(o->hint_values);
	cli_extra_free(&o->x);
}

/* Parses "NAME=INT,NAME=INT". */
static int add_hints(mopts *o, const char *arg, int argc)
{
	char *s = strdup(arg), *tok, *save = NULL;
	if (!s)
		return CLI_FAIL;
	o->owned[o->nowned++] = s;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		long long v;
		if (!eq || eq == tok)
			return cli_usage("--hint takes NAME=INT[,NAME=INT...]");
		*eq = 0;
		errno = 0;
		v = strtoll(eq + 1, &end, 10);
		if (!eq[1] || *end || errno) {
			cli_error("--hint %s: '%s' is not an integer", tok, eq + 1);
			return CLI_FAIL;
		}
		if (o->nhints >= (size_t)argc * 16)
			return cli_usage("too many hints");
		o->hint_names[o->nhints] = tok;
		o->hint_values[o->nhints++] = v;
	}
	return CLI_OK;
}

static int parse_mopts(int argc, char **argv, mopts *o)
{
	int i, xs;
	memset(o, 0, sizeof(*o));
	o->hint_names = calloc((size_t)argc * 16 + 1, sizeof(*o->hint_names));
	o->hint_values = calloc((size_t)argc * 16 + 1, sizeof(*o->hint_values));
	o->owned = calloc((size_t)argc + 1, sizeof(*o->owned));
	if (!o->hint_names || !o->hint_values || !o->owned) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
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
			if ((st = add_hints(o, v, argc)) != CLI_OK)
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
	opt.nhints = o.nhints;
	opt.hint_names = o.hint_names;
	opt.hint_values = o.hint_values;
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
	char **shape_dims;
	size_t nshapes;
	cli_extra x; /* --range, --align, --bind */
} ropts;

static int parse_ropts(int argc, char **argv, ropts *o, int emit)
{
	int i, xs;
	memset(o, 0, sizeof(*o));
	o->prefix = "symshape";
	o->shape_names = calloc((size_t)argc + 1, sizeof(char *));
	o->shape_dims = calloc((size_t)argc + 1, sizeof(char *));
	if (!o->shape_names || !o->shape_dims) {
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
			if (!eq || eq == v)
				return cli_usage("--shape takes INPUT=D0,D1,...");
			o->shape_names[o->nshapes] = strndup(v, (size_t)(eq - v));
			o->shape_dims[o->nshapes++] = strdup(eq + 1);
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
	cli_extra_free(&o->x);
}

/* Loads, infers and compiles; returns the program or NULL (message printed). */
static sym_model_program *load_program(sym_ctx *ctx, const char *path, int allow_empty, int all, sym_model **m,
				       sym_graph_result **r, cli_extra *x)
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

int cli_run(int argc, char **argv)
{
	ropts o;
	sym_ctx *ctx = NULL;
	sym_model *m = NULL;
	sym_graph_result *r = NULL;
	sym_model_program *mp = NULL;
	int64_t *dims = NULL, *out = NULL;
	size_t i, p = 0;
	sym_model_run res;
	int xst = CLI_OK;
	int st = parse_ropts(argc, argv, &o, 0);
	if (st != CLI_OK)
		goto done;
	st = CLI_FAIL;
	if (!(ctx = sym_ctx_new()))
		goto done;
	mp = load_program(ctx, o.model, o.allow_empty, 1, &m, &r, &o.x);
	if (!mp)
		goto done;
	dims = calloc(sym_model_program_num_dims(mp) + 1, sizeof(*dims));
	out = calloc(sym_model_program_num_out_dims(mp) + 1, sizeof(*out));
	if (!dims || !out)
		goto done;
	for (i = 0; i < o.nshapes; i++) {
		size_t k;
		for (k = 0; k < sym_model_num_inputs(m); k++)
			if (!strcmp(sym_model_input_name(m, k), o.shape_names[i]))
				break;
		if (k == sym_model_num_inputs(m)) {
			cli_error("--shape %s: the model has no input '%s'", o.shape_names[i], o.shape_names[i]);
			goto done;
		}
	}
	for (i = 0; i < sym_model_num_inputs(m); i++) {
		const char *name = sym_model_input_name(m, i);
		int rank = sym_model_input_rank(m, i), d = 0;
		size_t k;
		char *s, *tok, *save = NULL;
		for (k = 0; k < o.nshapes && strcmp(o.shape_names[k], name); k++)
			;
		if (k == o.nshapes) {
			cli_error("missing --shape %s=D0,D1,... for input '%s'", name, name);
			goto done;
		}
		s = o.shape_dims[k];
		for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save), d++) {
			char *end;
			long long v;
			errno = 0;
			v = strtoll(tok, &end, 10);
			if (!*tok || *end || errno || v < 0) {
				cli_error("--shape %s: '%s' is not a dim (a nonnegative integer)", name, tok);
				goto done;
			}
			if (d >= rank) {
				cli_error("--shape %s: input '%s' has rank %d", name, name, rank);
				goto done;
			}
			dims[p++] = v;
		}
		if (d != rank) {
			cli_error("--shape %s: input '%s' has rank %d, got %d dims", name, name, rank, d);
			goto done;
		}
	}
	if (cli_extra_fill_binds(&o.x, mp, dims + p) != CLI_OK)
		goto done;
	sym_model_program_run(mp, dims, out, &res);
	if (o.json) {
		cJSON *root = cJSON_CreateObject(), *t;
		char *s;
		cJSON_AddBoolToObject(root, "ok", res.status == 0);
		if (res.status == 0) {
			cJSON_AddNullToObject(root, "failed_guard");
		} else {
			cJSON *g = cJSON_CreateObject();
			cJSON_AddStringToObject(g, "expr", res.message ? res.message : "");
			if (res.status == 1) {
				cJSON_AddNumberToObject(g, "index", (double)res.failed);
				cJSON_AddStringToObject(g, "kind", res.kind);
				cJSON_AddStringToObject(g, "node", res.node);
			} else {
				cJSON_AddStringToObject(g, "kind", res.status == 2 ? "binding" : "error");
			}
			cJSON_AddItemToObject(root, "failed_guard", g);
		}
		t = cJSON_AddObjectToObject(root, "tensors");
		if (res.status == 0) {
			size_t q = 0;
			for (i = 0; i < sym_model_program_num_tensors(mp); i++) {
				int rank, d;
				const char *name = sym_model_program_tensor(mp, i, &rank);
				cJSON *a = cJSON_CreateArray();
				for (d = 0; d < rank; d++)
					cJSON_AddItemToArray(a, cJSON_CreateNumber((double)out[q++]));
				cJSON_AddItemToObject(t, name, a);
			}
			xst = cli_extra_run_json(mp, dims, root);
		}
		s = cJSON_PrintUnformatted(root);
		if (s)
			puts(s);
		free(s);
		cJSON_Delete(root);
	} else if (res.status == 0) {
		size_t q = 0;
		printf("ok\n");
		for (i = 0; i < sym_model_program_num_tensors(mp); i++) {
			int rank, d;
			const char *name = sym_model_program_tensor(mp, i, &rank);
			printf("  %-16s [", name);
			for (d = 0; d < rank; d++)
				printf("%s%lld", d ? ", " : "", (long long)out[q++]);
			printf("]\n");
		}
		xst = cli_extra_run_text(mp, dims);
	}
	if (res.status == 1)
		cli_error("guard %zu failed: %s (%s, node %s)", res.failed + 1, res.message, res.kind, res.node);
	else if (res.status)
		cli_error("%s", res.message);
	st = res.status == 0 && xst == CLI_OK ? CLI_OK : CLI_FAIL;
done:
	free(dims);
	free(out);
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
	mp = load_program(ctx, o.model, o.allow_empty, 0, &m, &r, &o.x);
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

/* Whether every INPUT of "x=1,2,3;mask=1,1" names a model input (message
 * printed otherwise). */
static int query_names_known(const sym_model *m, const char *q)
{
	char *copy = strdup(q), *part, *psave = NULL;
	int ok = copy != NULL;
	for (part = ok ? strtok_r(copy, ";", &psave) : NULL; part && ok; part = strtok_r(NULL, ";", &psave)) {
		char *eq = strchr(part, '=');
		size_t i, n = sym_model_num_inputs(m);
		if (!eq)
			continue; /* the parse below names the malformed part */
		*eq = 0;
		for (i = 0; i < n && strcmp(part, sym_model_input_name(m, i)); i++)
			;
		if (i == n) {
			cli_error("--query '%s': the model has no input '%s'", q, part);
			ok = 0;
		}
	}
	free(copy);
	return ok;
}

/* Parses "x=1,2,3;mask=1,1" into dims in model input order. */
static int parse_query(const sym_model *m, const char *q, int64_t *dims)
{
	char *part;
	size_t i, p = 0;
	if (!query_names_known(m, q))
		return CLI_FAIL;
	for (i = 0; i < sym_model_num_inputs(m); i++) {
		const char *name = sym_model_input_name(m, i);
		int rank = sym_model_input_rank(m, i), d = 0;
		char *copy = strdup(q), *psave = NULL;
		int seen = 0;
		if (!copy)
			return CLI_FAIL;
		for (part = strtok_r(copy, ";", &psave); part; part = strtok_r(NULL, ";", &psave)) {
			char *eq = strchr(part, '='), *tok, *tsave = NULL;
			if (!eq) {
				cli_error("--query '%s': expected INPUT=D0,D1,...;INPUT=...", q);
				free(copy);
				return CLI_FAIL;
			}
			*eq = 0;
			if (strcmp(part, name))
				continue;
			seen = 1;
			for (tok = strtok_r(eq + 1, ",", &tsave); tok; tok = strtok_r(NULL, ",", &tsave), d++) {
				char *end;
				long long v;
				errno = 0;
				v = strtoll(tok, &end, 10);
				if (!*tok || *end || v < 0 || errno == ERANGE || d >= rank) {
					cli_error("--query '%s': bad dims for input '%s' (rank %d)", q, name, rank);
					free(copy);
					return CLI_FAIL;
				}
				dims[p++] = v;
			}
		}
		free(copy);
		if (!seen || d != rank) {
			cli_error("--query '%s': input '%s' needs %d dims", q, name, rank);
			return CLI_FAIL;
		}
	}
	return CLI_OK;
}

/* Compiles a variant with hints "a=1,b=2" ("" for none). */
static sym_model_program *compile_variant(sym_ctx *ctx, const sym_model *m, const char *hints, cli_extra *x)
{
	mopts o;
	char *argv[3];
	sym_infer_options opt;
	sym_graph_result *r;
	sym_model_program *mp = NULL;
	argv[0] = (char *)"x";
	memset(&o, 0, sizeof(o));
	o.hint_names = calloc(64, sizeof(*o.hint_names));
	o.hint_values = calloc(64, sizeof(*o.hint_values));
	o.owned = calloc(2, sizeof(*o.owned));
	if (!o.hint_names || !o.hint_values || !o.owned || (*hints && add_hints(&o, hints, 4) != CLI_OK)) {
		mopts_free(&o);
		return NULL;
	}
	(void)argv;
	memset(&opt, 0, sizeof(opt));
	opt.nhints = o.nhints;
	opt.hint_names = o.hint_names;
	opt.hint_values = o.hint_values;
	if (cli_extra_apply(x, ctx, &opt) != CLI_OK) {
		mopts_free(&o);
		return NULL;
	}
	r = sym_model_infer(ctx, m, &opt);
	if (r) {
		mp = sym_graph_compile(ctx, r, 0);
		sym_graph_result_free(r);
	}
	if (mp && sym_model_program_num_bound(mp)) {
		cli_error("variant '%s': the model has data-dependent dims (%s): the guard cache takes input dims only",
			  hints, sym_model_program_bound(mp, 0, NULL));
		sym_model_program_free(mp);
		mopts_free(&o);
		return NULL;
	}
	if (!mp)
		cli_error("variant '%s': %s", hints, sym_ctx_last_message(ctx));
	mopts_free(&o);
	return mp;
}

/* Hints "s=v,..." for the symbols that input dims bind exactly. */
static char *hints_of(sym_ctx *ctx, const sym_model *m, const int64_t *dims)
{
	sym_graph_result *r = sym_model_infer(ctx, m, NULL);
	char *buf = calloc(4096, 1);
	size_t i, p = 0, len = 0;
	if (!r || !buf) {
		sym_graph_result_free(r);
		free(buf);
		return NULL;
	}
	for (i = 0; i < sym_model_num_inputs(m); i++) {
		int rank, d;
		const sym_expr *const *dd;
		sym_graph_tensor(r, sym_graph_find_tensor(r, sym_model_input_name(m, i)), &rank, &dd, NULL);
		for (d = 0; d < rank; d++, p++) {
			const char *name = sym_expr_symbol_name(dd[d]);
			char item[128];
			if (!name)
				continue;
			snprintf(item, sizeof(item), "%s=%lld", name, (long long)dims[p]);
			if (strstr(buf, item) || len + strlen(item) + 2 >= 4096)
				continue;
			len += (size_t)sprintf(buf + len, "%s%s", len ? "," : "", item);
		}
	}
	sym_graph_result_free(r);
	return buf;
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
			long v = strtol(argv[++k], NULL, 10);
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
		sym_model_program *generic = compile_variant(ctx, m, "", &cx);
		if (!generic || sym_guard_cache_set_validity(c, generic) < 0)
			goto out;
	}
	for (i = 0; i < nv; i++) {
		sym_model_program *mp = compile_variant(ctx, m, variants[i], &cx);
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
			char *h = hints_of(ctx, m, dims);
			sym_model_program *mp = h ? compile_variant(ctx, m, h, &cx) : NULL;
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
