/* The command-line tool: the command table, the exit statuses and the
 * messages (defined in args.c). */
#ifndef SYM_CLI_H
#define SYM_CLI_H

#include "symshape/symshape.h"

#include <stdio.h>

/* Exit statuses (SPEC §5). */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Commands with their one-line usage, generated from one list. */
#define CLI_COMMAND_MAP(X)                                                                                   \
	X(simplify, "simplify [--assume R]... [--dims] EXPR|-   print the simplified canonical form")        \
	X(eval, "eval EXPR NAME=INT...                      print the exact value")                          \
	X(prove, "prove [--assume R]... [--dims] PRED|-       print true, false or unknown")                 \
	X(equal, "equal [--assume R]... [--dims] EXPR EXPR|-  print true, false (and a witness) or unknown") \
	X(infer,                                                                                             \
	  "infer MODEL [--json] [--hint NAME=INT,...] [--allow-empty] [-o OUT.onnx] [--range "               \
	  "NAME=LO:HI]... [--align N]  symbolic shapes, storage shapes, byte sizes, guards, merge keys")     \
	X(run, "run MODEL --shape INPUT=D0,D1,... [--hint NAME=INT,...] [--bind SYM=INT,...] [--range "      \
	       "NAME=LO:HI]... [--align N] [--json]  concrete shapes, byte sizes and guard checks")          \
	X(emit_c, "emit-c MODEL [-o FILE] [--prefix NAME] [--hint NAME=INT,...] [--range NAME=LO:HI]... "    \
	          "[--align N]  standalone C guard, shape and size functions")                               \
	X(cache, "cache MODEL [--variant HINTS]... [--jit] [--capacity N] [--range NAME=LO:HI]... --query "  \
	         "'IN=D0,..;IN2=..'...  guard cache decisions")                                              \
	X(diff,                                                                                              \
	  "diff MODEL_A MODEL_B [--map A_NAME=B_NAME]... [--json] [--allow-empty] [--range NAME=LO:HI]... "  \
	  " same, different (with a witness) or unknown")

#define CLI__DECL(name, usage) int cli_##name(int argc, char **argv);
CLI_COMMAND_MAP(CLI__DECL)
#undef CLI__DECL

/* Prints "symshape: MESSAGE" on stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Prints the usage of every command on stderr and returns CLI_USAGE. */
int cli_usage(const char *why);
/* cli_usage with "unknown WHAT 'ARG'", ARG whole. */
int cli_usage_unknown(const char *what, const char *arg);
/* cli_usage for an option the command does not know. */
int cli_unknown_option(const char *arg);

#endif
