// The public headers compile as C++: extern "C" blocks, no C-only syntax.
#include "symshape/symshape.h"

int main()
{
	sym_ctx *ctx = sym_ctx_new();
	sym_rules *r = sym_rules_new(ctx, nullptr);
	sym_op *op = sym_op_new(r, "", "Relu", "relu0", 0);
	const sym_expr *dims[1] = {sym_expr_symbol(ctx, "n")};
	sym_op_add_input(op, 1, dims, sym_dtype_from_name("float32"));
	int ok = sym_op_infer(op) == SYM_EOK && sym_op_output_rank(op, 0) == 1;
	sym_op_free(op);
	sym_rules_free(r);
	sym_ctx_free(ctx);
	return ok ? 0 : 1;
}
