/* Reading an ONNX model without its weights.  A ModelProto is copied field
 * by field at the wire level, from a file or from memory, into a buffer
 * that keeps every field except the data of tensors no rule can read: a
 * tensor the loader keeps no data of (model_onnx.c: integer data up to
 * SYM_ONNX_INT_KEEP elements, floating-point data up to SYM_ONNX_FLOAT_KEEP)
 * keeps its name, type and dims and loses raw_data and the typed data
 * fields.  The data of a tensor is deferred until its dims and type are
 * read (the wire format allows any field order), then re-read (a seek in a
 * file) when the tensor is small enough.  The loader then unpacks a model
 * proportional to the graph, not to the weights, and never sees bytes it
 * would not use.  A file is read through a buffer, so a seek past a
 * weight reads nothing of it.
 *
 * Anything unexpected (a truncated or malformed message, a stream that
 * cannot seek, nesting past SLIM_MAX_DEPTH) makes the copy give up with 0:
 * the model is then read whole and the loader's own checks say what is
 * wrong, word for word as before.  A fault inside a message the copy
 * passes over as it is (a TypeProto) makes the loader fail on the copy;
 * the callers (load.c, sym_model_from_onnx) then load the original, so the
 * message places the fault in it. */
#include "model/ir.h"
#include "model/onnx_private.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define SLIM_DEFER_BYTES 256  /* shorter data fields are copied at once */
#define SLIM_READ_BYTES 65536 /* a file is read through a buffer of this size */
#define SLIM_MAX_DEPTH 64
#define SLIM_MAX_OUT ((size_t)1 << 31)

enum { M_MODEL, M_GRAPH, M_NODE, M_ATTR, M_TENSOR, M_OTHER };

typedef struct src {
	FILE *f;            /* a regular file, or NULL */
	const uint8_t *mem; /* or memory */
	uint64_t pos, len;
	int bad;   /* give up: read whole */
	int nomem; /* out of memory, recorded */
	int dropped;
	sym_ctx *ctx;
	/* a file's bytes [bstart, bstart + blen) in buf; fpos is where the
	 * stream stands */
	uint8_t *buf;
	uint64_t bstart, blen, fpos;
} src;

typedef struct obuf {
	uint8_t *p;
	size_t n, cap;
} obuf;

/* Reads the file's bytes from s->pos into the buffer; 0 on failure. */
static int refill(src *s)
{
	size_t want = SLIM_READ_BYTES, got;
	if (s->len - s->pos < want)
		want = (size_t)(s->len - s->pos);
	if (s->fpos != s->pos && fseeko(s->f, (off_t)s->pos, SEEK_SET) != 0)
		return 0;
	got = fread(s->buf, 1, want, s->f);
	s->fpos = s->pos + got;
	s->bstart = s->pos, s->blen = got;
	return got > 0;
}

static int get(src *s, void *dst, uint64_t n)
{
	uint8_t *d = dst;
	if (s->bad || n > s->len - s->pos) {
		s->bad = 1;
		return 0;
	}
	if (!s->f) {
		memcpy(dst, s->mem + s->pos, (size_t)n);
		s->pos += n;
		return 1;
	}
	while (n) {
		uint64_t k;
		if (s->pos < s->bstart || s->pos >= s->bstart + s->blen) {
			if (!refill(s)) {
				s->bad = 1;
				return 0;
			}
		}
		k = s->bstart + s->blen - s->pos;
		if (k > n)
			k = n;
		memcpy(d, s->buf + (s->pos - s->bstart), (size_t)k);
		d += k, s->pos += k, n -= k;
	}
	return 1;
}

/* A seek only moves the position: the buffer is read again when the
 * position leaves it. */
static int seek_to(src *s, uint64_t pos)
{
	if (s->bad || pos > s->len)
		return s->bad = 1, 0;
	s->pos = pos;
	return 1;
}

static int get_varint(src *s, uint64_t *v)
{
	int i;
	*v = 0;
	if (s->f && s->pos >= s->bstart && s->pos + 10 <= s->bstart + s->blen) {
		/* within the buffer: no call per byte */
		const uint8_t *b = s->buf + (s->pos - s->bstart);
		for (i = 0; i < 10; i++) {
			*v |= (uint64_t)(b[i] & 0x7f) << (7 * i);
			if (!(b[i] & 0x80)) {
				if ((uint64_t)i + 1 > s->len - s->pos)
					break;
				s->pos += (uint64_t)i + 1;
				return 1;
			}
		}
		return s->bad = 1, 0;
	}
	for (i = 0; i < 10; i++) {
		uint8_t b;
		if (!get(s, &b, 1))
			return 0;
		*v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return 1;
	}
	return s->bad = 1, 0;
}

static int put(src *s, obuf *o, const void *p, size_t n)
{
	if (s->bad || s->nomem)
		return 0;
	if (n > SLIM_MAX_OUT - o->n)
		return s->bad = 1, 0;
	if (SYM_GROW(s->ctx, o->p, o->n + n, o->cap, 4096) < 0)
		return s->nomem = 1, 0;
	if (n)
		memcpy(o->p + o->n, p, n);
	o->n += n;
	return 1;
}

static int put_varint(src *s, obuf *o, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;
	do {
		b[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	return put(s, o, b, n);
}

/* Copies n bytes from the source to o, in chunks. */
static int copy(src *s, obuf *o, uint64_t n)
{
	uint8_t chunk[4096];
	while (n && !s->bad && !s->nomem) {
		size_t k = n < sizeof(chunk) ? (size_t)n : sizeof(chunk);
		if (!get(s, chunk, k) || !put(s, o, chunk, k))
			return 0;
		n -= k;
	}
	return !s->bad && !s->nomem;
}

/* The message a length-delimited field of message kind `in` holds, by the
 * field numbers of onnx.proto (only the ones that lead to tensors). */
static int sub_kind(int in, uint64_t field)
{
	switch (in) {
	case M_MODEL:
		return field == 7 ? M_GRAPH : M_OTHER;
	case M_GRAPH:
		return field == 1 ? M_NODE : field == 5 ? M_TENSOR : M_OTHER;
	case M_NODE:
		return field == 5 ? M_ATTR : M_OTHER;
	case M_ATTR:
		return field == 5 || field == 10 ? M_TENSOR : field == 6 || field == 11 ? M_GRAPH : M_OTHER;
	default:
		return M_OTHER;
	}
}

/* TensorProto's data fields: float_data, int32_data, string_data,
 * int64_data, raw_data, double_data, uint64_data. */
static int is_data_field(uint64_t field)
{
	return field == 4 || field == 5 || field == 6 || field == 7 || field == 9 || field == 10 ||
	       field == 11;
}

typedef struct deferred {
	uint64_t tag, pos, len;
} deferred;

/* What a TensorProto's fields say about its size and element type. */
typedef struct tinfo {
	uint64_t numel; /* saturates at UINT64_MAX */
	int negative;
	deferred d[8];
	size_t nd;
	uint64_t dtype; /* data_type, 0 when absent */
} tinfo;

/* The most elements whose data the loader keeps (model_onnx.c), by the
 * tensor's data_type: floating-point data only for a few scales. */
static uint64_t keep_numel(const tinfo *t)
{
	switch (t->dtype) {
	case SYM_DT_FLOAT32:
	case SYM_DT_FLOAT64:
	case SYM_DT_FLOAT16:
	case SYM_DT_BFLOAT16:
		return SYM_ONNX_FLOAT_KEEP;
	default:
		return SYM_ONNX_INT_KEEP;
	}
}

static void add_dim(tinfo *t, uint64_t raw)
{
	int64_t d = (int64_t)raw;
	if (d < 0)
		t->negative = 1;
	else if (d && t->numel > UINT64_MAX / (uint64_t)d)
		t->numel = UINT64_MAX;
	else
		t->numel *= (uint64_t)d;
}

/* The dims of a packed dims field of n bytes, read from the bytes copied
 * to the end of o. */
static void packed_dims(tinfo *t, const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	int sh = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		v |= (uint64_t)(p[i] & 0x7f) << sh;
		sh += 7;
		if (!(p[i] & 0x80) || sh >= 70) {
			add_dim(t, v);
			v = 0, sh = 0;
		}
	}
}

static int message(src *s, int kind, uint64_t end, obuf *o, int depth);

/* One field of a message of the given kind, tag read. */
static int field(src *s, int kind, uint64_t tag, uint64_t end, obuf *o, tinfo *t, int depth)
{
	uint64_t fnum = tag >> 3, len, v;
	uint8_t fixed[8];
	int sub;
	if (fnum == 0)
		return s->bad = 1, 0;
	switch (tag & 7) {
	case 0:
		if (!get_varint(s, &v) || !put_varint(s, o, tag) || !put_varint(s, o, v))
			return 0;
		if (t && fnum == 1)
			add_dim(t, v);
		if (t && fnum == 2)
			t->dtype = v;
		return 1;
	case 1:
	case 5: {
		size_t k = (tag & 7) == 1 ? 8 : 4;
		return get(s, fixed, k) && put_varint(s, o, tag) && put(s, o, fixed, k);
	}
	case 2:
		break;
	default:
		return s->bad = 1, 0; /* groups are no part of ONNX */
	}
	if (!get_varint(s, &len) || len > end - s->pos)
		return s->bad = 1, 0;
	sub = sub_kind(kind, fnum);
	if (sub != M_OTHER) {
		/* the message is written in place after room for its length
		 * (at most 10 bytes), then moved up to the length it has */
		static const uint8_t room[10];
		size_t at, start;
		uint8_t lb[10];
		size_t nl = 0;
		uint64_t n;
		if (!put_varint(s, o, tag))
			return 0;
		at = o->n;
		if (!put(s, o, room, sizeof(room)))
			return 0;
		start = o->n;
		if (!message(s, sub, s->pos + len, o, depth + 1))
			return 0;
		n = o->n - start;
		do {
			lb[nl] = (uint8_t)(n & 0x7f);
			n >>= 7;
			if (n)
				lb[nl] |= 0x80;
			nl++;
		} while (n);
		memcpy(o->p + at, lb, nl);
		memmove(o->p + at + nl, o->p + start, o->n - start);
		o->n -= sizeof(room) - nl;
		return 1;
	}
	if (t && is_data_field(fnum) && len > SLIM_DEFER_BYTES) {
		if (t->nd == sizeof(t->d) / sizeof(t->d[0]))
			return s->bad = 1, 0; /* no tensor repeats its data fields so */
		t->d[t->nd].tag = tag, t->d[t->nd].pos = s->pos, t->d[t->nd].len = len;
		t->nd++;
		return seek_to(s, s->pos + len);
	}
	if (!put_varint(s, o, tag) || !put_varint(s, o, len) || !copy(s, o, len))
		return 0;
	if (t && fnum == 1)
		packed_dims(t, o->p + o->n - len, (size_t)len);
	return 1;
}

/* The fields of one message up to end, into o.  A tensor's deferred data
 * is written after its other fields when the tensor is small. */
static int message(src *s, int kind, uint64_t end, obuf *o, int depth)
{
	tinfo ti = {1, 0, {{0, 0, 0}}, 0, 0};
	tinfo *t = kind == M_TENSOR ? &ti : NULL;
	size_t i;
	if (depth > SLIM_MAX_DEPTH)
		return s->bad = 1, 0;
	while (s->pos < end) {
		uint64_t tag;
		if (!get_varint(s, &tag) || !field(s, kind, tag, end, o, t, depth))
			return 0;
	}
	if (s->pos != end)
		return s->bad = 1, 0;
	if (!t || !t->nd)
		return 1;
	if (t->negative || t->numel <= keep_numel(t)) {
		for (i = 0; i < t->nd; i++)
			if (!seek_to(s, t->d[i].pos) || !put_varint(s, o, t->d[i].tag) ||
			    !put_varint(s, o, t->d[i].len) || !copy(s, o, t->d[i].len))
				return 0;
		return seek_to(s, end);
	}
	s->dropped = 1;
	return 1;
}

/* The copy; with only_smaller, 0 when it drops nothing (memory input is
 * then used as it is). */
static int slim(src *s, int only_smaller, char **out, size_t *outlen, size_t *cap)
{
	obuf o = {NULL, 0, 0};
	int ok = message(s, M_MODEL, s->len, &o, 0);
	if (s->nomem) {
		sym__free(s->ctx, o.p, o.cap);
		return -1;
	}
	if (!ok || s->bad || (only_smaller && !s->dropped)) {
		sym__free(s->ctx, o.p, o.cap);
		return 0;
	}
	*out = (char *)o.p, *outlen = o.n, *cap = o.cap;
	return 1;
}

int sym__onnx_slim_file(sym_ctx *ctx, FILE *f, char **out, size_t *outlen, size_t *cap)
{
	struct stat st;
	src s;
	int r;
	memset(&s, 0, sizeof(s));
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
	    fseeko(f, 0, SEEK_SET) != 0)
		return 0;
	s.f = f, s.len = (uint64_t)st.st_size, s.ctx = ctx;
	if (!(s.buf = sym__alloc(ctx, SLIM_READ_BYTES)))
		return -1;
	r = slim(&s, 0, out, outlen, cap);
	sym__free(ctx, s.buf, SLIM_READ_BYTES);
	return r;
}

int sym__onnx_slim_mem(sym_ctx *ctx, const void *data, size_t len, char **out, size_t *outlen, size_t *cap)
{
	src s;
	memset(&s, 0, sizeof(s));
	s.mem = data, s.len = len, s.ctx = ctx;
	return slim(&s, 1, out, outlen, cap);
}
