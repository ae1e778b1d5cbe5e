/* C emission of a runtime program: standalone C11 with the interpreter's
 * semantics, one straight-line function body per entry point.  Emission
 * allocates through the program's copy of the allocator hook (its scratch
 * and the text, built with the one string builder, sym_sbuf), so the text
 * goes back to that hook with its size: sym_program_str_free
 * (docs/memory-and-errors.md). */
#include "seam.h"
#include "program_private.h"

#include <stdio.h>
#include <string.h>

/* Appends printf-formatted text to the emitted source. */
#define put sym__sbuf_printf

/* The helpers: checked arithmetic (builtins under GCC and Clang, portable
 * checks otherwise), floor division and modulo with Python semantics.
 * Each returns nonzero on overflow, division by zero or an inexact
 * quotient.  "P_" stands for the prefix.  Only the helpers the code calls
 * are written (an unused static function is a warning for some compilers). */
enum {
	H_ADD = 1 << 0,
	H_SUB = 1 << 1,
	H_MUL = 1 << 2,
	H_NEG = 1 << 3,
	H_ABS = 1 << 4,
	H_NEGIF = 1 << 5,
	H_DENOM = 1 << 6,
	H_DIVMOD = 1 << 7,
	H_FDIV = 1 << 8,
	H_FMOD = 1 << 9,
	H_XDIV = 1 << 10,
};

static const struct helper {
	unsigned mask;
	const char *text;
} helpers[] = {
    {H_ADD, "static inline int P_add(int64_t a, int64_t b, int64_t *r)\n{\n"
            "#if (defined(__GNUC__) || defined(__clang__)) && !defined(SYMSHAPE_NO_BUILTINS)\n"
            "\treturn __builtin_add_overflow(a, b, r);\n#else\n"
            "\tif ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))\n\t\treturn 1;\n"
            "\t*r = a + b;\n\treturn 0;\n#endif\n}\n"},
    {H_SUB, "static inline int P_sub(int64_t a, int64_t b, int64_t *r)\n{\n"
            "#if (defined(__GNUC__) || defined(__clang__)) && !defined(SYMSHAPE_NO_BUILTINS)\n"
            "\treturn __builtin_sub_overflow(a, b, r);\n#else\n"
            "\tif ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b))\n\t\treturn 1;\n"
            "\t*r = a - b;\n\treturn 0;\n#endif\n}\n"},
    {H_MUL, "static inline int P_mul(int64_t a, int64_t b, int64_t *r)\n{\n"
            "#if (defined(__GNUC__) || defined(__clang__)) && !defined(SYMSHAPE_NO_BUILTINS)\n"
            "\treturn __builtin_mul_overflow(a, b, r);\n#else\n"
            "\tif (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)\n"
            "\t          : (b > 0 ? a < INT64_MIN / b : (a != 0 && b < INT64_MAX / a)))\n\t\treturn 1;\n"
            "\t*r = a * b;\n\treturn 0;\n#endif\n}\n"},
    {H_NEG, "static inline int P_neg(int64_t a, int64_t *r)\n{\n"
            "\tif (a == INT64_MIN)\n\t\treturn 1;\n\t*r = -a;\n\treturn 0;\n}\n"},
    {H_ABS, "static inline int P_abs(int64_t a, int64_t *r)\n{\n"
            "\tif (a == INT64_MIN)\n\t\treturn 1;\n\t*r = a < 0 ? -a : a;\n\treturn 0;\n}\n"},
    {H_NEGIF, "/* b < 0 ? -a : a */\n"
              "static inline int P_negif(int64_t a, int64_t b, int64_t *r)\n{\n"
              "\tif (b >= 0) {\n\t\t*r = a;\n\t\treturn 0;\n\t}\n\treturn P_neg(a, r);\n}\n"},
    {H_DENOM, "/* |a| as a denominator: zero is a division by zero */\n"
              "static inline int P_denom(int64_t a, int64_t *r)\n{\n"
              "\tif (a == 0)\n\t\treturn 1;\n\treturn P_abs(a, r);\n}\n"},
    {H_DIVMOD, "/* floor(a / b) and a - b*floor(a / b), Python's // and %; op 0 divides, 1 takes the\n"
               " * modulo, 2 divides exactly (a nonzero remainder fails) */\n"
               "static inline int P_divmod(int op, int64_t a, int64_t b, int64_t *r)\n{\n"
               "\tint64_t q, m;\n"
               "\tif (b == 0)\n\t\treturn 1;\n"
               "\tif (b == -1) {\n\t\tif (op == 1) {\n\t\t\t*r = 0;\n\t\t\treturn 0;\n\t\t}\n"
               "\t\treturn P_neg(a, r);\n\t}\n"
               "\tq = a / b;\n\tm = a % b;\n"
               "\tif (op == 2) {\n\t\tif (m != 0)\n\t\t\treturn 1;\n\t\t*r = q;\n\t\treturn 0;\n\t}\n"
               "\tif (m != 0 && ((m < 0) != (b < 0))) {\n\t\tq -= 1;\n\t\tm += b;\n\t}\n"
               "\t*r = op == 1 ? m : q;\n\treturn 0;\n}\n"},
    {H_FDIV, "static inline int P_fdiv(int64_t a, int64_t b, int64_t *r) { return P_divmod(0, a, b, r); }\n"},
    {H_FMOD, "static inline int P_fmod(int64_t a, int64_t b, int64_t *r) { return P_divmod(1, a, b, r); }\n"},
    {H_XDIV, "static inline int P_xdiv(int64_t a, int64_t b, int64_t *r) { return P_divmod(2, a, b, r); }\n"},
};

/* Returns the helpers the code of p calls, with their dependencies. */
static unsigned helpers_needed(const sym_program *p)
{
	unsigned m = 0;
	size_t i;
	for (i = 0; i < p->ninsns; i++) {
		switch (p->code[i * SYM_INSN_WORDS]) {
		case SYM_OP_ADD:
			m |= H_ADD;
			break;
		case SYM_OP_SUB:
			m |= H_SUB;
			break;
		case SYM_OP_MUL:
			m |= H_MUL;
			break;
		case SYM_OP_NEG:
			m |= H_NEG;
			break;
		case SYM_OP_ABS:
			m |= H_ABS;
			break;
		case SYM_OP_NEGIF:
			m |= H_NEGIF | H_NEG;
			break;
		case SYM_OP_DENOM:
			m |= H_DENOM | H_ABS;
			break;
		case SYM_OP_FLOORDIV:
			m |= H_FDIV | H_DIVMOD | H_NEG;
			break;
		case SYM_OP_MOD:
			m |= H_FMOD | H_DIVMOD | H_NEG;
			break;
		case SYM_OP_EXACTDIV:
			m |= H_XDIV | H_DIVMOD | H_NEG;
			break;
		default:
			break;
		}
	}
	return m;
}

/* Writes text with every "P_" replaced by the prefix and "_". */
static void put_prefixed(sym_sbuf *b, const char *text, const char *prefix)
{
	const char *s = text, *hit;
	while ((hit = strstr(s, "P_")) != NULL) {
		/* only whole identifiers beginning with P_ */
		if (hit > text &&
		    (hit[-1] == '_' || (hit[-1] >= 'a' && hit[-1] <= 'z') ||
		     (hit[-1] >= 'A' && hit[-1] <= 'Z') || (hit[-1] >= '0' && hit[-1] <= '9'))) {
			put(b, "%.*s", (int)(hit - s + 2), s);
			s = hit + 2;
			continue;
		}
		put(b, "%.*s%s_", (int)(hit - s), s, prefix);
		s = hit + 2;
	}
	put(b, "%s", s);
}

/* Writes the C text of register v into buf (an input, a literal or a
 * local). */
static const char *operand(const sym_program *p, int64_t v, char *buf, size_t size)
{
	size_t r = (size_t)v;
	if (r < p->ninputs) {
		snprintf(buf, size, "dims[%zu]", r);
	} else if (r < p->ninputs + p->nconsts) {
		int64_t k = p->consts[r - p->ninputs];
		if (k == INT64_MIN)
			snprintf(buf, size, "INT64_MIN");
		else
			snprintf(buf, size, "INT64_C(%lld)", (long long)k);
	} else {
		snprintf(buf, size, "r%zu", r);
	}
	return buf;
}

/* Opcodes that can fail are always emitted (their error must be seen); the
 * others only when their value is read. */
static int can_fail(int64_t op)
{
	switch (op) {
	case SYM_OP_MIN:
	case SYM_OP_MAX:
	case SYM_OP_EQ:
	case SYM_OP_NE:
	case SYM_OP_LE:
	case SYM_OP_LT:
	case SYM_OP_AND:
	case SYM_OP_OR:
	case SYM_OP_SEL:
		return 0;
	default:
		return 1;
	}
}

/* The function bodies: the check prefix, then the segments. */
enum body_kind {
	BODY_CHECK,  /* int P_check(dims): the prefix */
	BODY_SHAPES, /* int P_shapes(dims, out): the prefix, every segment */
	BODY_MODEL   /* static int P__run(dims, seg, out): the prefix, segment seg */
};

/* Marks in used (nregs bytes) the registers the emitted code reads:
 * every operand of an instruction that is written (one that can fail, or
 * whose value is read), every output of the segments written. */
static void mark_used(const sym_program *p, size_t end, int outputs, unsigned char *used)
{
	size_t i;
	if (p->nregs)
		memset(used, 0, p->nregs);
	if (outputs)
		for (i = 0; i < p->nouts; i++)
			used[p->outs[i]] = 1;
	for (i = end; i-- > 0;) {
		const int64_t *w = p->code + i * SYM_INSN_WORDS;
		int k, ar = sym__op_arity(w[0]);
		if (w[0] != SYM_OP_GUARD && !can_fail(w[0]) && !used[w[1]])
			continue;
		for (k = 0; k < ar; k++)
			used[w[2 + k]] = 1;
	}
}

/* Writes instruction w, indented by ind; failures return their ABI code
 * (sym__abi_code), guard g < nchecks as an invalid input. */
static void emit_insn(sym_sbuf *b, const sym_program *p, const char *prefix, const int64_t *w,
                      const char *ind, const unsigned char *used)
{
	int64_t op = w[0];
	size_t d = (size_t)w[1];
	char x[48], y[48], z[48];
	long long fail = sym__abi_code(SYM_EOVERFLOW, 0);
	operand(p, w[2], x, sizeof(x));
	if (sym__op_arity(op) >= 2 && op != SYM_OP_GUARD)
		operand(p, w[3], y, sizeof(y));
	if (sym__op_arity(op) >= 3)
		operand(p, w[4], z, sizeof(z));
	switch (op) {
	case SYM_OP_GUARD: {
		size_t g = (size_t)w[3];
		long long code =
		    g < p->nchecks ? sym__abi_code(SYM_EINPUT, g) : sym__abi_code(SYM_EGUARD, g - p->nchecks);
		put(b, "%sif (%s == 0)\n%s\treturn %lld;\n", ind, x, ind, code);
		return;
	}
	case SYM_OP_ADD:
	case SYM_OP_SUB:
	case SYM_OP_MUL:
	case SYM_OP_FLOORDIV:
	case SYM_OP_MOD:
	case SYM_OP_EXACTDIV:
	case SYM_OP_NEGIF: {
		static const char *const fn[SYM_OP_COUNT] = {
		    [SYM_OP_ADD] = "add",       [SYM_OP_SUB] = "sub",  [SYM_OP_MUL] = "mul",
		    [SYM_OP_FLOORDIV] = "fdiv", [SYM_OP_MOD] = "fmod", [SYM_OP_EXACTDIV] = "xdiv",
		    [SYM_OP_NEGIF] = "negif",
		};
		put(b, "%sint64_t r%zu;\n%sif (%s_%s(%s, %s, &r%zu))\n%s\treturn %lld;\n", ind, d, ind,
		    prefix, fn[op], x, y, d, ind, fail);
		return;
	}
	case SYM_OP_NEG:
	case SYM_OP_ABS:
	case SYM_OP_DENOM:
		put(b, "%sint64_t r%zu;\n%sif (%s_%s(%s, &r%zu))\n%s\treturn %lld;\n", ind, d, ind, prefix,
		    op == SYM_OP_NEG   ? "neg"
		    : op == SYM_OP_ABS ? "abs"
		                       : "denom",
		    x, d, ind, fail);
		return;
	default:
		break;
	}
	if (!used[d])
		return;
	switch (op) {
	case SYM_OP_MIN:
	case SYM_OP_MAX:
		put(b, "%sconst int64_t r%zu = %s %s %s ? %s : %s;\n", ind, d, x,
		    op == SYM_OP_MIN ? "<" : ">", y, x, y);
		break;
	case SYM_OP_EQ:
	case SYM_OP_NE:
	case SYM_OP_LE:
	case SYM_OP_LT: {
		static const char *const rel[] = {"==", "!=", "<=", "<"};
		put(b, "%sconst int64_t r%zu = %s %s %s;\n", ind, d, x, rel[op - SYM_OP_EQ], y);
		break;
	}
	case SYM_OP_AND:
	case SYM_OP_OR:
		put(b, "%sconst int64_t r%zu = %s != 0 %s %s != 0;\n", ind, d, x,
		    op == SYM_OP_AND ? "&&" : "||", y);
		break;
	case SYM_OP_SEL:
		put(b, "%sconst int64_t r%zu = %s != 0 ? %s : %s;\n", ind, d, x, y, z);
		break;
	default:
		break;
	}
}

/* Emits one function body of kind k.  used is scratch of nregs bytes. */
static void emit_body(sym_sbuf *b, const sym_program *p, const char *prefix, enum body_kind k,
                      unsigned char *used)
{
	size_t i, s, end = k == BODY_CHECK ? p->check_end : p->ninsns;
	int dims_used = 0;
	char x[48];
	mark_used(p, end, k != BODY_CHECK, used);
	for (i = 0; i < p->ninputs; i++)
		dims_used |= used[i];
	if (k == BODY_SHAPES)
		put(b, "int %s_shapes(const int64_t *dims, int64_t *out)\n{\n", prefix);
	else if (k == BODY_CHECK)
		put(b, "int %s_check(const int64_t *dims)\n{\n", prefix);
	else
		put(b, "static int %s__run(const int64_t *dims, int seg, int64_t *out)\n{\n", prefix);
	if (!dims_used)
		put(b, "\t(void)dims;\n");
	if (k != BODY_CHECK && !p->nouts)
		put(b, "\t(void)out;\n");
	for (i = 0; i < p->check_end; i++)
		emit_insn(b, p, prefix, p->code + i * SYM_INSN_WORDS, "\t", used);
	if (k == BODY_CHECK) {
		put(b, "\treturn 0;\n}\n\n");
		return;
	}
	for (s = 0; s < p->nsegs; s++) {
		size_t o0 = sym__seg_out_start(p, s), o1 = (size_t)p->segs[2 * s + 1];
		const char *ind = k == BODY_MODEL ? "\t\t" : "\t";
		if (k == BODY_MODEL)
			put(b, "\tif (seg == %zu) {\n", s);
		for (i = sym__seg_start(p, s); i < (size_t)p->segs[2 * s]; i++)
			emit_insn(b, p, prefix, p->code + i * SYM_INSN_WORDS, ind, used);
		for (i = o0; i < o1; i++)
			put(b, "%sout[%zu] = %s;\n", ind, k == BODY_MODEL ? i - o0 : i,
			    operand(p, p->outs[i], x, sizeof(x)));
		if (k == BODY_MODEL)
			put(b, "\t\treturn 0;\n\t}\n");
	}
	put(b, "\treturn 0;\n}\n\n");
}

static void put_string(sym_sbuf *b, const char *s)
{
	put(b, "\"");
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			put(b, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f || ch == '?')
			put(b, "\\%03o", ch); /* '?' too: no trigraphs */
		else
			put(b, "%c", ch);
	}
	put(b, "\"");
}

/* Writes s, the user's text (a node name in it), whole into a comment: a
 * backslash goes between a '*' and a '/' that meet, so that the text can
 * neither close the comment nor open one inside it, and control characters
 * become \xNN, so that it stays on its line. */
static void put_comment_text(sym_sbuf *b, const char *s)
{
	char prev = ' ';
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if ((ch == '/' && prev == '*') || (ch == '*' && prev == '/'))
			put(b, "\\");
		if (ch < 0x20 || ch == 0x7f)
			put(b, "\\x%02x", ch);
		else
			put(b, "%c", ch);
		prev = (char)ch;
	}
}

int sym_program_is_c_identifier(const char *s)
{
	const char *c;
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (c = s; *c; c++)
		if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9')))
			return 0;
	return 1;
}

/* Scratch of n bytes (at least one) from the program's hook. */
static unsigned char *scratch_new(const sym_program *p, size_t n)
{
	return p->alloc.realloc_fn(p->alloc.ud, NULL, 0, n ? n : 1);
}

static void scratch_free(const sym_program *p, unsigned char *s)
{
	sym__hook_free(&p->alloc, s, p->nregs ? p->nregs : 1);
}

char *sym_program_emit_c(const sym_program *p, const char *prefix, const char *const *guard_text)
{
	sym_sbuf b;
	unsigned char *used;
	unsigned need;
	size_t i;
	if (!p)
		return NULL;
	if (!prefix || !*prefix)
		prefix = "symshape";
	if (!sym_program_is_c_identifier(prefix) || !(used = scratch_new(p, p->nregs)))
		return NULL;
	sym__sbuf_init_hook(&b, &p->alloc);
	put(&b,
	    "/* Guard and shape functions generated by symshape.  %s_check returns 0 when\n"
	    " * every guard holds, k+1 when guard k is the first to fail, -1 on overflow,\n"
	    " * division by zero or an inexact output; %s_shapes also writes the outputs. */\n"
	    "#include <stdint.h>\n\n",
	    prefix, prefix);
	put(&b, "int %s_check(const int64_t *dims);\nint %s_shapes(const int64_t *dims, int64_t *out);\n",
	    prefix, prefix);
	put(&b, "extern const int %s_num_guards;\nextern const char *const %s_guard_text[];\n\n", prefix,
	    prefix);
	put(&b, "const int %s_num_guards = %zu;\nconst char *const %s_guard_text[] = {\n", prefix, p->nguards,
	    prefix);
	for (i = 0; i < p->nguards; i++) {
		put(&b, "\t");
		put_string(&b, guard_text ? guard_text[i] : "");
		put(&b, ",\n");
	}
	if (!p->nguards)
		put(&b, "\t\"\", /* no guards */\n");
	put(&b, "};\n\n");
	need = helpers_needed(p);
	for (i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++)
		if (helpers[i].mask & need)
			put_prefixed(&b, helpers[i].text, prefix);
	put(&b, "\n");
	emit_body(&b, p, prefix, BODY_CHECK, used);
	emit_body(&b, p, prefix, BODY_SHAPES, used);
	scratch_free(p, used);
	return sym__sbuf_take(&b);
}

void sym_program_str_free(const sym_program *p, char *s)
{
	if (p)
		sym__hook_free_str(&p->alloc, s);
}

char *sym__program_emit_model(const sym_program *p, const char *prefix, const sym__model_abi *abi)
{
	sym_sbuf b;
	unsigned char *used;
	unsigned need;
	size_t i, s;
	if (!p || !sym_program_is_c_identifier(prefix) || p->nsegs != abi->nsegs)
		return NULL;
	if (!(used = scratch_new(p, p->nregs)))
		return NULL;
	sym__sbuf_init_hook(&b, &p->alloc);
	put(&b, "/* Guard, shape, storage-shape and byte-size functions generated by symshape\n"
	        " * (SPEC §8).  Each function checks the input dims (-2 when they contradict the\n"
	        " * declared input shapes or the input symbols' ranges, or exceed the largest\n"
	        " * dim 2**62) and the guards (k+1 for the first failing guard k of `symshape\n"
	        " * infer`) once, then computes its outputs (-1 on overflow, division by zero or\n"
	        " * an inexact value); 0 when all is well. */\n"
	        "#include <stdint.h>\n\n");
	need = helpers_needed(p);
	for (i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++)
		if (helpers[i].mask & need)
			put_prefixed(&b, helpers[i].text, prefix);
	put(&b, "\n/* The model program: the input checks and the guards, then segment seg (-1:\n"
	        " * none) into out. */\n");
	emit_body(&b, p, prefix, BODY_MODEL, used);
	put(&b, "int %s_check(const int64_t *dims)\n{\n\treturn %s__run(dims, -1, 0);\n}\n\n", prefix,
	    prefix);
	put(&b, "int %s_%s(const int64_t *dims, int64_t *out)\n{\n\treturn %s__run(dims, 0, out);\n}\n\n",
	    prefix, abi->seg_names[0], prefix);
	put(&b, "const int %s_num_guards = %zu;\n", prefix, abi->nguards);
	put(&b, "const char *const %s_guard_text[] = {", prefix);
	for (i = 0; i < abi->nguards; i++) {
		put(&b, i ? ",\n\t" : "\n\t");
		put_string(&b, abi->guard_text[i]);
	}
	put(&b, abi->nguards ? ",\n\t0\n};\n" : "0};\n");
	/* "assert": the input is invalid; "expect": a choice of the hints,
	 * recompile */
	put(&b, "const char *const %s_guard_kind[] = {", prefix);
	for (i = 0; i < abi->nguards; i++)
		put(&b, "%s\"%s\"", i ? ", " : "", abi->guard_kind[i]);
	put(&b, abi->nguards ? ", 0};\n" : "0};\n");
	for (s = 1; s < abi->nsegs; s++) {
		put(&b, "\n%s", abi->seg_doc[s] ? abi->seg_doc[s] : "");
		put(&b,
		    "int %s_%s(const int64_t *dims, int64_t *out)\n{\n\treturn %s__run(dims, %zu, out);\n}\n",
		    prefix, abi->seg_names[s], prefix, s);
	}
	if (abi->nbound) {
		put(&b, "\n/* Data-dependent dims: every function above takes their values after the\n"
		        " * input dims, in this order, once their producing kernels have run:");
		for (i = 0; i < abi->nbound; i++) {
			put(&b, "\n *   %s: ", abi->bound_names[i]);
			put_comment_text(&b, abi->bound_src[i]);
		}
		put(&b, " */\n");
	}
	scratch_free(p, used);
	return sym__sbuf_take(&b);
}
