/* Each command's options, read into its struct (args.h) with the value
 * parsers of values.c and the messages of messages.c. */
#include "args.h"

#include <stdlib.h>
#include <string.h>

/* ---- the commands' options ----------------------------------------------- */

/* The value of --name V or --name=V at argv[*i] (NULL when missing);
 * a is argv[*i] and n the length of "--name". */
static const char *option_value(const char *a, size_t n, int argc, char **argv, int *i)
{
	return a[n] == '=' ? a + n + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
}

static int is_hint(const char *a)
{
	return !strcmp(a, "--hint") || !strncmp(a, "--hint=", 7);
}

static int parse_hint(hintset *h, int argc, char **argv, int *i)
{
	const char *v = option_value(argv[*i], 6, argc, argv, i);
	if (!v)
		return cli_usage("--hint needs NAME=INT");
	return cli_hintset_add(h, "--hint", v);
}

int cli_infer_opts_parse(cli_infer_opts *o, int argc, char **argv)
{
	int i, st;
	memset(o, 0, sizeof(*o));
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) {
			o->json = 1;
		} else if (!strcmp(a, "--allow-empty")) {
			o->allow_empty = 1;
		} else if ((st = cli_extra_parse(&o->x, argc, argv, &i, 0)) >= 0) {
			if (st != CLI_OK)
				return st;
		} else if (!strcmp(a, "-o")) {
			if (i + 1 >= argc)
				return cli_usage("-o needs a file name");
			o->out_file = argv[++i];
		} else if (is_hint(a)) {
			if ((st = parse_hint(&o->h, argc, argv, &i)) != CLI_OK)
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

void cli_infer_opts_free(cli_infer_opts *o)
{
	cli_hintset_free(&o->h);
	cli_extra_free(&o->x);
}

/* --shape INPUT=D0,D1,... into the next slot of o. */
static int parse_shape(cli_program_opts *o, int argc, char **argv, int *i)
{
	const char *v = option_value(argv[*i], 7, argc, argv, i);
	const char *eq = v ? strchr(v, '=') : NULL;
	char *err;
	if (!eq || eq == v)
		return cli_usage("--shape takes INPUT=D0,D1,...");
	if (!(o->shape_names[o->nshapes] = strndup(v, (size_t)(eq - v)))) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	if (cli_parse_dims(eq + 1, &o->shape_dims[o->nshapes], &o->shape_rank[o->nshapes], &err) < 0) {
		cli_error("--shape %s: %s", v, err ? err : "out of memory");
		free(err);
		free(o->shape_names[o->nshapes]);
		o->shape_names[o->nshapes] = NULL;
		return CLI_FAIL;
	}
	o->nshapes++;
	return CLI_OK;
}

int cli_program_opts_parse(cli_program_opts *o, int argc, char **argv, int emit)
{
	int i, st;
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
		} else if ((st = cli_extra_parse(&o->x, argc, argv, &i, !emit)) >= 0) {
			if (st != CLI_OK)
				return st;
		} else if (!emit && (!strcmp(a, "--shape") || !strncmp(a, "--shape=", 8))) {
			if ((st = parse_shape(o, argc, argv, &i)) != CLI_OK)
				return st;
		} else if (is_hint(a)) {
			if ((st = parse_hint(&o->h, argc, argv, &i)) != CLI_OK)
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

void cli_program_opts_free(cli_program_opts *o)
{
	size_t i;
	for (i = 0; i < o->nshapes; i++) {
		free(o->shape_names[i]);
		free(o->shape_dims[i]);
	}
	free(o->shape_names);
	free(o->shape_dims);
	free(o->shape_rank);
	cli_hintset_free(&o->h);
	cli_extra_free(&o->x);
}

int cli_cache_opts_parse(cli_cache_opts *o, int argc, char **argv)
{
	int k, st;
	memset(o, 0, sizeof(*o));
	o->capacity = 4;
	o->variants = calloc((size_t)argc + 1, sizeof(char *));
	o->queries = calloc((size_t)argc + 1, sizeof(char *));
	if (!o->variants || !o->queries)
		return CLI_FAIL;
	for (k = 0; k < argc; k++) {
		if (!strcmp(argv[k], "--variant") && k + 1 < argc) {
			o->variants[o->nvariants++] = argv[++k];
		} else if (!strcmp(argv[k], "--query") && k + 1 < argc) {
			o->queries[o->nqueries++] = argv[++k];
		} else if (!strcmp(argv[k], "--capacity") && k + 1 < argc) {
			char *err;
			int64_t v;
			if (cli_parse_int(argv[++k], &v, &err) < 0) {
				cli_error("--capacity %s: %s", argv[k], err ? err : "out of memory");
				free(err);
				return CLI_FAIL;
			}
			if (v < 1)
				return cli_usage("--capacity must be at least 1");
			o->capacity = (size_t)v;
		} else if (!strcmp(argv[k], "--jit")) {
			o->jit = 1;
		} else if ((st = cli_extra_parse(&o->x, argc, argv, &k, 0)) >= 0) {
			if (st != CLI_OK)
				return st;
		} else if (argv[k][0] == '-' && argv[k][1] == '-') {
			return cli_usage("cache takes --variant HINTS, --query DIMS, --capacity N, --jit, "
			                 "--range NAME=LO:HI");
		} else if (!o->model) {
			o->model = argv[k];
		} else {
			return cli_usage("one model at a time");
		}
	}
	if (!o->model || !o->nqueries)
		return cli_usage("cache needs a model and at least one --query");
	return CLI_OK;
}

void cli_cache_opts_free(cli_cache_opts *o)
{
	free(o->variants);
	free(o->queries);
	cli_extra_free(&o->x);
}

int cli_expr_opts_parse(cli_expr_opts *o, int argc, char **argv, int want)
{
	int i, end = 0;
	memset(o, 0, sizeof(*o));
	o->assume = calloc((size_t)argc + 1, sizeof(*o->assume));
	if (!o->assume) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!end && !strcmp(a, "--")) {
			end = 1;
		} else if (!end && !strcmp(a, "--dims")) {
			o->dims = 1;
		} else if (!end && !strcmp(a, "--assume")) {
			if (i + 1 >= argc)
				return cli_usage("--assume needs a predicate");
			o->assume[o->nassume++] = argv[++i];
		} else if (!end && !strncmp(a, "--assume=", 9)) {
			o->assume[o->nassume++] = a + 9;
		} else if (!end && a[0] == '-' && a[1] == '-') {
			return cli_unknown_option(a);
		} else {
			if (o->npos == 2)
				return cli_usage("too many arguments");
			o->pos[o->npos++] = a;
		}
	}
	if (o->npos != want && !(o->npos == 1 && !strcmp(o->pos[0], "-")))
		return cli_usage(want == 1 ? "expected one expression (or - for standard input)"
		                           : "expected two expressions (or - for standard input)");
	return CLI_OK;
}

void cli_expr_opts_free(cli_expr_opts *o)
{
	free(o->assume);
}
