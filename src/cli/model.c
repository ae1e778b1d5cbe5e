/* The model commands' common step: load the model, infer and compile. */
#include "model.h"

sym_model_program *cli_load_program(sym_ctx *ctx, const char *path, int allow_empty, const hintset *h,
                                    cli_extra *x, int all, sym_model **m, sym_graph_result **r)
{
	sym_infer_options opt;
	sym_model_program *mp;
	size_t i;
	*m = sym_model_load(ctx, path);
	if (!*m) {
		cli_error("%s: %s", path, sym_ctx_last_message(ctx));
		return NULL;
	}
	if (cli_infer_options(&opt, ctx, h, x, allow_empty) != CLI_OK)
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
