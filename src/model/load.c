/* Loading a model file: read it, then choose the loader by extension or
 * content.  The only file that knows both formats; the loaders do not call
 * each other. */
#include "model/ir.h"
#include "model/onnx_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int sym__model_read_file(sym_ctx *ctx, const char *path, char **out, size_t *len, size_t *capp)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;
	if (!f) {
		sym__error(ctx, SYM_EDOMAIN, -1, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t r;
		if (n == cap) {
			if (cap >= ((size_t)1 << 31)) {
				sym__free(ctx, buf, cap);
				fclose(f);
				sym__error(ctx, SYM_ELIMIT, -1, "'%s' is too large", path);
				return -1;
			}
			if (SYM_GROW(ctx, buf, n + 1, cap, 65536) < 0) {
				sym__free(ctx, buf, cap);
				fclose(f);
				return -1;
			}
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		sym__free(ctx, buf, cap);
		fclose(f);
		sym__error(ctx, SYM_EDOMAIN, -1, "cannot read '%s'", path);
		return -1;
	}
	fclose(f);
	*out = buf;
	*len = n;
	*capp = cap;
	return 0;
}

/* An ONNX file: named .onnx, or (any other name but .json) not starting
 * with the '{' of a JSON object. */
static int looks_onnx(const char *path, const char *buf, size_t n)
{
	size_t pl = strlen(path), i;
	if (pl >= 5 && !strcmp(path + pl - 5, ".onnx"))
		return 1;
	if (pl >= 5 && !strcmp(path + pl - 5, ".json"))
		return 0;
	for (i = 0; i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'); i++)
		;
	return i < n && buf[i] != '{';
}

/* An ONNX model read from its file without the weights, or NULL with
 * *whole set when it must be read whole (a JSON file, a stream, a file the
 * copy gives up on). */
static sym_model *load_onnx_slim(sym_ctx *ctx, const char *path, int *whole)
{
	FILE *f = fopen(path, "rb");
	char head[64], *buf;
	size_t nh, n, cap;
	sym_model *m = NULL;
	int st;
	struct stat sb;
	*whole = 1;
	if (!f)
		return NULL;
	/* a pipe is read once, whole: peeking would lose its head */
	if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
		fclose(f);
		return NULL;
	}
	nh = fread(head, 1, sizeof(head), f);
	if (!looks_onnx(path, head, nh) || (st = sym__onnx_slim_file(ctx, f, &buf, &n, &cap)) == 0) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	*whole = 0;
	if (st < 0)
		return NULL;
	m = sym__model_from_onnx_buffer(ctx, buf, n);
	sym__free(ctx, buf, cap);
	if (!m && sym_ctx_last_error(ctx) != SYM_ENOMEM) {
		/* a fault the copy passed over (inside a message it copies
		 * as it is): read whole, so that the message places it in the
		 * file, not in the copy */
		sym_ctx_clear_error(ctx);
		*whole = 1;
	}
	return m;
}

sym_model *sym_model_load(sym_ctx *ctx, const char *path)
{
	char *buf;
	size_t n, cap;
	sym_model *m;
	int whole;
	if (sym__failed(ctx))
		return NULL;
	m = load_onnx_slim(ctx, path, &whole);
	if (!whole)
		return m;
	if (sym__model_read_file(ctx, path, &buf, &n, &cap) < 0)
		return NULL;
	if (looks_onnx(path, buf, n))
		m = sym_model_from_onnx(ctx, buf, n);
	else
		m = sym_model_from_json(ctx, buf, n);
	sym__free(ctx, buf, cap);
	return m;
}
