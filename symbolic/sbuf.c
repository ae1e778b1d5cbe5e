/* The string builder (sym_sbuf, seam.h): growable text in the context's
 * allocator or a hook copy, or a byte count only when measuring. */
#include "print_private.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

void sym__sbuf_init(sym_sbuf *b, sym_ctx *ctx)
{
	memset(b, 0, sizeof(*b));
	b->ctx = ctx;
}

void sym__sbuf_init_hook(sym_sbuf *b, const sym_allocator *a)
{
	memset(b, 0, sizeof(*b));
	b->hook = *a;
}

/* The builder's allocator: the context's (recording out of memory there)
 * or the hook copy's. */
static void *sbuf_realloc(sym_sbuf *b, void *p, size_t old, size_t n)
{
	if (b->ctx) {
		if (n == 0) {
			sym__free(b->ctx, p, old);
			return NULL;
		}
		return sym__realloc(b->ctx, p, old, n);
	}
	if (n == 0 && !p)
		return NULL;
	return b->hook.realloc_fn(b->hook.ud, p, old, n);
}

void sym__sbuf_clear(sym_sbuf *b)
{
	sbuf_realloc(b, b->s, b->cap, 0);
	b->s = NULL;
	b->n = b->cap = 0;
}

char *sym__sbuf_take(sym_sbuf *b)
{
	char *s;
	if (b->fail || b->count) {
		sym__sbuf_clear(b);
		return NULL;
	}
	if (!b->s)
		sym__sbuf_put(b, "", 0);
	if (b->fail || !b->s) {
		sym__sbuf_clear(b);
		return NULL;
	}
	if (b->cap != b->n + 1) {
		if (!(s = sbuf_realloc(b, b->s, b->cap, b->n + 1))) {
			b->fail = 1;
			sym__sbuf_clear(b);
			return NULL;
		}
	} else {
		s = b->s;
	}
	b->s = NULL;
	b->n = b->cap = 0;
	return s;
}

void sym__sbuf_put(sym_sbuf *b, const char *s, size_t len)
{
	if (b->fail)
		return;
	if (b->count) {
		if (len > SYM_MAX_TEXT_BYTES - b->n)
			b->fail = 2; /* the text is too long: stop measuring */
		else
			b->n += len;
		return;
	}
	if (b->n + len + 1 > b->cap) {
		size_t nc = (b->n + len + 1) * 2;
		char *ns = sbuf_realloc(b, b->s, b->cap, nc);
		if (!ns) {
			b->fail = 1;
			return;
		}
		b->s = ns, b->cap = nc;
	}
	memcpy(b->s + b->n, s, len);
	b->n += len;
	b->s[b->n] = 0;
}

void sym__sbuf_reserve(sym_sbuf *b, size_t len)
{
	char *ns;
	if (b->fail || b->count || b->n + len + 1 <= b->cap)
		return;
	if (!(ns = sbuf_realloc(b, b->s, b->cap, b->n + len + 1))) {
		b->fail = 1;
		return;
	}
	if (!b->s)
		ns[0] = 0;
	b->s = ns, b->cap = b->n + len + 1;
}

void sym__sbuf_puts(sym_sbuf *b, const char *s)
{
	sym__sbuf_put(b, s, strlen(s));
}

void sym__sbuf_printf(sym_sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sym__sbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

void sym__sbuf_vprintf(sym_sbuf *b, const char *fmt, va_list ap0)
{
	char small[256], *big = NULL;
	va_list ap;
	int k;
	if (b->fail)
		return;
	if (!b->count && b->s && b->cap - b->n > 1) {
		/* straight into the room left, when it fits */
		size_t room = b->cap - b->n;
		va_copy(ap, ap0);
		k = vsnprintf(b->s + b->n, room, fmt, ap);
		va_end(ap);
		if (k >= 0 && (size_t)k < room) {
			b->n += (size_t)k;
			return;
		}
		b->s[b->n] = 0; /* what was cut off is written again below */
	}
	va_copy(ap, ap0);
	k = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (k < 0) {
		b->fail = 1;
		return;
	}
	if ((size_t)k < sizeof(small) || b->count) {
		sym__sbuf_put(b, small, (size_t)k);
		return;
	}
	big = sbuf_realloc(b, NULL, 0, (size_t)k + 1);
	if (!big) {
		b->fail = 1;
		return;
	}
	va_copy(ap, ap0);
	vsnprintf(big, (size_t)k + 1, fmt, ap);
	va_end(ap);
	sym__sbuf_put(b, big, (size_t)k);
	sbuf_realloc(b, big, (size_t)k + 1, 0);
}

void sym__sbuf_num(sym_sbuf *b, const sym_num *v)
{
	char buf[48];
	if (!SYM_NUM_IS_BIG(v)) {
		if (v->q == 1) {
			/* an integer, the common case, without printf */
			char *e = buf + sizeof(buf), *d = e;
			uint64_t u = v->p < 0 ? 0 - (uint64_t)v->p : (uint64_t)v->p;
			do
				*--d = (char)('0' + u % 10);
			while (u /= 10);
			if (v->p < 0)
				*--d = '-';
			sym__sbuf_put(b, d, (size_t)(e - d));
			return;
		} else
			snprintf(buf, sizeof(buf), "%lld/%lld", (long long)v->p, (long long)v->q);
		sym__sbuf_puts(b, buf);
	} else if (b->count && sym__num_bits(v) / 4 > SYM_MAX_TEXT_BYTES) {
		/* a lower bound of the digits (log10(2) > 1/4) is enough to fail */
		sym__sbuf_put(b, NULL, sym__num_bits(v) / 4);
	} else {
		char *s = sym__num_to_str(v);
		if (s)
			sym__sbuf_puts(b, s);
		else
			b->fail = 1;
		sym__num_str_free(s);
	}
}
