/* symshape diff: do two models accept the same input shapes and give the
 * same output shapes (SPEC §5)?  Prints same, different with a checked
 * witness, or unknown with what could not be decided. */
#include "pool.h"
#include "args.h"
#include "output.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* diff MODEL_A MODEL_B [--map A_NAME=B_NAME]... [--json] [--allow-empty]
 * [--range NAME=LO:HI]... */
typedef struct diff_opts {
	const char *model[2];
	int json;
	int allow_empty;
	char **map_a, **map_b; /* malloc'd copies */
	size_t nmap;
	cli_extra x; /* --range: symbols of A, and of B on the dims they pair with */
} diff_opts;

static void diff_opts_free(diff_opts *o)
{
	size_t i;
	for (i = 0; i < o->nmap; i++)
		free(o->map_a[i]), free(o->map_b[i]);
	free(o->map_a), free(o->map_b);
	cli_extra_free(&o->x);
}

/* --map A_NAME=B_NAME: both names nonempty, A_NAME given once. */
static int add_map(diff_opts *o, const char *arg)
{
	const char *eq = arg ? strchr(arg, '=') : NULL;
	char **na, **nb;
	size_t i;
	if (!eq || eq == arg || !eq[1])
		return cli_usage("--map takes A_NAME=B_NAME (an input or output of each model)");
	for (i = 0; i < o->nmap; i++)
		if (strlen(o->map_a[i]) == (size_t)(eq - arg) &&
		    !strncmp(o->map_a[i], arg, (size_t)(eq - arg))) {
			cli_error("--map %s: '%s' is mapped twice", arg, o->map_a[i]);
			return CLI_USAGE;
		}
	na = realloc(o->map_a, (o->nmap + 1) * sizeof(*na));
	if (na)
		o->map_a = na;
	nb = realloc(o->map_b, (o->nmap + 1) * sizeof(*nb));
	if (nb)
		o->map_b = nb;
	if (!na || !nb || !(o->map_a[o->nmap] = cli_format("%.*s", (int)(eq - arg), arg))) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	if (!(o->map_b[o->nmap] = cli_format("%s", eq + 1))) {
		free(o->map_a[o->nmap]);
		cli_error("out of memory");
		return CLI_FAIL;
	}
	o->nmap++;
	return CLI_OK;
}

static int diff_opts_parse(diff_opts *o, int argc, char **argv)
{
	int i, st, nmodels = 0;
	memset(o, 0, sizeof(*o));
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) {
			o->json = 1;
		} else if (!strcmp(a, "--allow-empty")) {
			o->allow_empty = 1;
		} else if (!strcmp(a, "--map") || !strncmp(a, "--map=", 6)) {
			const char *v = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
			if ((st = add_map(o, v)) != CLI_OK)
				return st;
		} else if ((st = cli_extra_parse(&o->x, argc, argv, &i, 0)) >= 0) {
			if (st != CLI_OK)
				return st;
		} else if (a[0] == '-' && a[1] == '-') {
			return cli_unknown_option(a);
		} else if (nmodels < 2) {
			o->model[nmodels++] = a;
		} else {
			return cli_usage("diff takes two models");
		}
	}
	if (nmodels < 2)
		return cli_usage("diff needs two model files");
	return CLI_OK;
}

/* Both models, inferred in one context, and the comparison. */
typedef struct diff_result {
	sym_ctx *ctx;
	sym_model *m[2];
	sym_graph_result *r[2];
	sym_model_diff *d;
} diff_result;

static void diff_result_free(diff_result *res)
{
	int s;
	sym_model_diff_free(res->d);
	for (s = 0; s < 2; s++) {
		sym_graph_result_free(res->r[s]);
		sym_model_free(res->m[s]);
	}
	sym_ctx_free(res->ctx);
}

/* B's name of the input A's input a pairs with (--map or the same name). */
static const char *mapped_name(const diff_opts *o, const char *a)
{
	size_t i;
	for (i = 0; i < o->nmap; i++)
		if (!strcmp(o->map_a[i], a))
			return o->map_b[i];
	return a;
}

/* The names in model B of the symbols --range gives in model A: the
 * symbol of the dim of B that pairs with the input dim A's symbol comes
 * from.  Fills names (nranges entries, borrowed from the results or from
 * o) or prints why not and returns CLI_FAIL. */
static int ranges_in_b(const diff_opts *o, const sym_graph_result *ra, const sym_graph_result *rb,
                       const char **names)
{
	size_t i, k;
	for (i = 0; i < o->x.nranges; i++) {
		const char *name = o->x.range_names[i], *src = NULL, *open;
		char input[256];
		long axis = -1;
		int rank, used = 0;
		const sym_expr *const *dims;
		size_t t;
		for (k = 0; k < sym_graph_num_symbols(ra); k++) {
			const char *sn = sym_expr_symbol_name(sym_graph_symbol(ra, k, &src, NULL, NULL));
			if (sn && !strcmp(sn, name))
				break;
		}
		open = k < sym_graph_num_symbols(ra) && src ? strstr(src, ".shape[") : NULL;
		if (open && (size_t)(open - src) < sizeof(input) &&
		    sscanf(open, ".shape[%ld]%n", &axis, &used) == 1 && !open[used]) {
			memcpy(input, src, (size_t)(open - src));
			input[open - src] = 0;
		} else {
			if (src)
				cli_error("--range %s: not an input dim symbol of %s (it is %s)", name,
				          o->model[0], src);
			else
				cli_error("--range %s: not an input dim symbol of %s", name, o->model[0]);
			return CLI_FAIL;
		}
		t = sym_graph_find_tensor(rb, mapped_name(o, input));
		if (t != (size_t)-1)
			sym_graph_tensor(rb, t, &rank, &dims, NULL);
		if (t == (size_t)-1 || rank <= axis || !(names[i] = sym_expr_symbol_name(dims[axis]))) {
			cli_error("--range %s: %s.shape[%ld] of %s is no symbol of %s's inputs", name, input,
			          axis, o->model[0], o->model[1]);
			return CLI_FAIL;
		}
	}
	return CLI_OK;
}

/* Loads and infers both models and compares them; the per-node problems of
 * inference go to stderr (the comparison goes on: an output it could not
 * infer is an unknown).  The ranges name symbols of A; B gets them on the
 * dims those pair with.  Returns CLI_OK or CLI_FAIL (message printed). */
static int diff_compute(diff_opts *o, diff_result *res)
{
	sym_infer_options opt, optb;
	sym_diff_options dopt;
	hintset none = {NULL, NULL, 0};
	const char **bnames = NULL;
	int s, st = CLI_FAIL;
	size_t i;
	memset(res, 0, sizeof(*res));
	if (!(res->ctx = cli_ctx_new())) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	if (cli_infer_options(&opt, res->ctx, &none, &o->x, o->allow_empty) != CLI_OK)
		return CLI_FAIL;
	optb = opt;
	optb.nranges = 0;
	for (s = 0; s < 2; s++) {
		if (!(res->m[s] = sym_model_load(res->ctx, o->model[s])) ||
		    !(res->r[s] = sym_model_infer(res->ctx, res->m[s], s ? &optb : &opt))) {
			cli_error("%s: %s", o->model[s], sym_ctx_last_message(res->ctx));
			return CLI_FAIL;
		}
	}
	if (opt.nranges) {
		if (!(bnames = calloc(opt.nranges, sizeof(*bnames)))) {
			cli_error("out of memory");
			return CLI_FAIL;
		}
		if (ranges_in_b(o, res->r[0], res->r[1], bnames) != CLI_OK)
			goto done;
		optb.nranges = opt.nranges;
		optb.range_names = bnames;
		{
			sym_graph_result *rb = sym_model_infer(res->ctx, res->m[1], &optb);
			if (!rb) {
				cli_error("%s: %s", o->model[1], sym_ctx_last_message(res->ctx));
				goto done;
			}
			sym_graph_result_free(res->r[1]);
			res->r[1] = rb;
		}
	}
	for (s = 0; s < 2; s++)
		for (i = 0; i < sym_graph_num_errors(res->r[s]); i++)
			cli_error("%s: %s", o->model[s], sym_graph_error(res->r[s], i, NULL));
	memset(&dopt, 0, sizeof(dopt));
	dopt.nmap = o->nmap;
	dopt.map_a = (const char *const *)o->map_a;
	dopt.map_b = (const char *const *)o->map_b;
	if (!(res->d = sym_graph_diff(res->ctx, res->r[0], res->r[1], &dopt))) {
		cli_error("diff %s %s: %s", o->model[0], o->model[1], sym_ctx_last_message(res->ctx));
		goto done;
	}
	st = CLI_OK;
done:
	free(bnames);
	return st;
}

static const char *answer_word(sym_truth t)
{
	return t == SYM_TRUE ? "same" : t == SYM_FALSE ? "different" : "unknown";
}

static void print_text(const sym_model_diff *d)
{
	size_t i, n = sym_model_diff_num_inputs(d);
	const char *reason = sym_model_diff_reason(d);
	puts(answer_word(sym_model_diff_answer(d)));
	if (sym_model_diff_answer(d) == SYM_FALSE) {
		fputs("witness:", stdout);
		for (i = 0; i < n; i++) {
			int rank, k;
			const int64_t *dims;
			const char *name = sym_model_diff_input(d, i, &rank, &dims);
			printf(" %s=", name);
			for (k = 0; k < rank; k++)
				printf("%s%lld", k ? "," : "", (long long)dims[k]);
		}
		putchar('\n');
	}
	if (*reason) {
		fputs("reason: ", stdout);
		cli_fputs_one_line(reason, stdout);
		putchar('\n');
	}
}

/* An exact JSON integer: a number up to 2**53, a decimal string past it. */
static cJSON *int_json(int64_t v)
{
	char buf[24];
	if (v >= -(INT64_C(1) << 53) && v <= (INT64_C(1) << 53))
		return cJSON_CreateNumber((double)v);
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	return cJSON_CreateString(buf);
}

static int print_json(const sym_model_diff *d)
{
	cJSON *root = cJSON_CreateObject(), *w = NULL;
	const char *reason = sym_model_diff_reason(d);
	size_t i, n = sym_model_diff_num_inputs(d);
	char *s;
	if (!root)
		goto nomem;
	cJSON_AddStringToObject(root, "answer", answer_word(sym_model_diff_answer(d)));
	if (sym_model_diff_answer(d) == SYM_FALSE) {
		if (!(w = cJSON_AddObjectToObject(root, "witness")))
			goto nomem;
		for (i = 0; i < n; i++) {
			int rank, k;
			const int64_t *dims;
			const char *name = sym_model_diff_input(d, i, &rank, &dims);
			cJSON *a = cJSON_AddArrayToObject(w, name);
			for (k = 0; a && k < rank; k++)
				cJSON_AddItemToArray(a, int_json(dims[k]));
		}
	} else {
		cJSON_AddNullToObject(root, "witness");
	}
	if (*reason)
		cJSON_AddStringToObject(root, "reason", reason);
	else
		cJSON_AddNullToObject(root, "reason");
	if (!(s = cJSON_PrintUnformatted(root)))
		goto nomem;
	puts(s);
	free(s);
	cJSON_Delete(root);
	return CLI_OK;
nomem:
	cJSON_Delete(root);
	cli_error("out of memory");
	return CLI_FAIL;
}

int cli_diff(int argc, char **argv)
{
	diff_opts o;
	diff_result res;
	int st = diff_opts_parse(&o, argc, argv);
	memset(&res, 0, sizeof(res));
	if (st == CLI_OK)
		st = diff_compute(&o, &res);
	if (st == CLI_OK) {
		if (o.json)
			st = print_json(res.d);
		else
			print_text(res.d);
	}
	diff_result_free(&res);
	diff_opts_free(&o);
	return st;
}
