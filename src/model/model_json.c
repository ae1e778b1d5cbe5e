/* The JSON model loader (SPEC §6): every malformed input gives an error
 * naming the field, the tensor or the node. */
#include "model/ir.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A number of the text that cJSON's double does not give exactly although
 * that double is an integer within +-2**53 (9007199254740993 reads as
 * 9007199254740992, 1.00000000000000001 as 1, 1e-400 as 0). */
typedef struct inexact {
	const cJSON *item;
	const char *text;
	int len;
	int integral; /* the text is an integer (one beyond 2**53) */
} inexact;

/* A list of the text, delimited only: its entries are read one at a time. */
typedef struct span {
	size_t at, end; /* text[at] == '[', text[end - 1] == ']' */
	size_t count;   /* entries */
} span;

typedef struct ld {
	sym_ctx *ctx;
	sym_model *m;
	inexact *inexact; /* sorted by item */
	size_t ninexact, capinexact;
	/* the text of the location a message names (loc_text) */
	sym_sbuf at;
	/* the subgraph being read: its nesting level (0: the main graph) and
	 * the prefix of the names of its unnamed nodes */
	int depth;
	const char *gpath;
} ld;

static int lerr(ld *l, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int lerr(ld *l, const char *fmt, ...)
{
	va_list ap;
	int r;
	va_start(ap, fmt);
	r = sym__load_verror(l->ctx, "model", fmt, ap);
	va_end(ap);
	return r;
}

static int nomem(ld *l)
{
	return sym__load_nomem(l->ctx);
}

/* Model memory, zeroed, NULL when out of memory. */
static void *ld_alloc(ld *l, size_t n)
{
	return sym__model_alloc(l->m, n);
}

static char *ld_strdup(ld *l, const char *s)
{
	return sym__model_strdup(l->m, s);
}

/* A location messages name (a node, an attribute or a list entry, a dim or
 * an element of a tensor), formatted only when a message names it: most
 * models have no error, and formatting one per field cost as much as
 * reading the field.  fmt is a printf format taking the arguments args
 * says, strings first; they must outlive the location and never be the
 * text of another location (loc_text reuses one buffer). */
enum { LOC_S, LOC_SS, LOC_N, LOC_SN };

typedef struct loc {
	const char *fmt;
	int args;
	const char *s, *s2;
	size_t n;
} loc;

#define LOC_T(text) (&(const loc){"%s", LOC_S, (text), NULL, 0})
#define LOC_1(fmt, s) (&(const loc){(fmt), LOC_S, (s), NULL, 0})
#define LOC_2(fmt, s, s2) (&(const loc){(fmt), LOC_SS, (s), (s2), 0})
#define LOC_I(fmt, n) (&(const loc){(fmt), LOC_N, NULL, NULL, (n)})
#define LOC_SI(fmt, s, n) (&(const loc){(fmt), LOC_SN, (s), NULL, (n)})

static const char *loc_vat(ld *l, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static const char *loc_vat(ld *l, const char *fmt, ...)
{
	va_list ap;
	const char *r;
	va_start(ap, fmt);
	r = sym__load_vat(l->ctx, &l->at, fmt, ap);
	va_end(ap);
	return r;
}

/* The text of the location w; NULL with out of memory recorded. */
static const char *loc_text(ld *l, const loc *w)
{
	switch (w->args) {
	case LOC_SS:
		return loc_vat(l, w->fmt, w->s, w->s2);
	case LOC_N:
		return loc_vat(l, w->fmt, w->n);
	case LOC_SN:
		return loc_vat(l, w->fmt, w->s, w->n);
	default:
		return loc_vat(l, w->fmt, w->s);
	}
}

/* The error "<location w>: <fmt, formatted>": -1. */
static int lerr_at(ld *l, const loc *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int lerr_at(ld *l, const loc *w, const char *fmt, ...)
{
	va_list ap;
	sym_sbuf b;
	const char *t = loc_text(l, w);
	if (!t)
		return -1;
	sym__sbuf_init(&b, l->ctx);
	sym__sbuf_printf(&b, "%s: ", t);
	va_start(ap, fmt);
	sym__sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (b.fail || !b.s)
		nomem(l);
	else
		lerr(l, "%s", b.s);
	sym__sbuf_clear(&b);
	return -1;
}

/* Names appear in messages of one line and in the printed shapes: a
 * control character in one is an error (w locates it). */
static int check_name(ld *l, const char *s, const loc *w)
{
	const char *t;
	if (!sym__model_name_has_control(s))
		return 0;
	if (!(t = loc_text(l, w)))
		return -1;
	return sym__load_check_name(l->ctx, "model", s, t);
}

/* ---- numbers as written ---------------------------------------------------
 *
 * cJSON keeps only the double of a number, so 2**53 + 1 and 2**53 are one
 * value there.  The number tokens of the text are scanned once (in document
 * order, which is cJSON's order of the number items); those whose written
 * value differs from an integral double within +-2**53 are matched to their
 * items, and get_int rejects them. */

#define JSON_EXACT_LIMIT 9007199254740992.0 /* 2**53 */

/* Whether the token t[0..n) (what strtod read of it: d) is inexact as
 * described above; *integral tells whether it is written as an integer. */
static int sym__json_number_inexact(const char *t, size_t n, double d, int *integral)
{
	char digits[24], want[24];
	size_t i = 0, nd = 0;
	long e = 0, ex = 0;
	int frac = 0, dropped = 0, eneg = 0;
	if (!(d == floor(d)) || fabs(d) > JSON_EXACT_LIMIT)
		return 0; /* rejected, or a float, anyway */
	if (i < n && (t[i] == '-' || t[i] == '+'))
		i++;
	/* the significant digits times 10**e; 17 are kept (d has at most 16) */
	for (; i < n && (isdigit((unsigned char)t[i]) || t[i] == '.'); i++) {
		if (t[i] == '.') {
			frac = 1;
		} else if (nd < 17 && (nd || t[i] != '0')) {
			digits[nd++] = t[i];
			e -= frac;
		} else if (nd) {
			dropped |= t[i] != '0';
			e += !frac;
		} else {
			e -= frac; /* a leading zero */
		}
	}
	if (i < n && (t[i] == 'e' || t[i] == 'E')) {
		i++;
		if (i < n && (t[i] == '-' || t[i] == '+'))
			eneg = t[i++] == '-';
		for (; i < n && isdigit((unsigned char)t[i]); i++)
			if (ex < 100000)
				ex = ex * 10 + (t[i] - '0');
	}
	e += eneg ? -ex : ex;
	if (!nd)
		return 0; /* zero, exactly */
	if (dropped) {
		/* more than 17 significant digits of a value below 2**53 + 2:
		 * some nonzero digit is a fraction */
		*integral = 0;
		return 1;
	}
	while (digits[nd - 1] == '0')
		nd--, e++;
	if (e < 0 || (long)nd + e > 17) {
		*integral = e >= 0;
		return 1;
	}
	memset(digits + nd, '0', (size_t)e);
	digits[nd + (size_t)e] = 0;
	snprintf(want, sizeof(want), "%.0f", fabs(d));
	*integral = 1;
	return strcmp(want, digits) != 0;
}

static int inexact_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const inexact *)a)->item, y = (uintptr_t)((const inexact *)b)->item;
	return x < y ? -1 : x > y;
}

/* Gives the number items of the tree in document order the entries of
 * l->inexact whose ordinal (in item, as a count) they have. */
static void sym__json_match_numbers(ld *l, const cJSON *j, size_t *count, size_t *next)
{
	for (; j && *next < l->ninexact; j = j->next) {
		if (cJSON_IsNumber(j)) {
			if ((uintptr_t)l->inexact[*next].item == *count)
				l->inexact[(*next)++].item = j;
			(*count)++;
		} else if (j->child) {
			sym__json_match_numbers(l, j->child, count, next);
		}
	}
}

/* Whether c continues a number token (as cJSON reads one). */
static int number_char(char c)
{
	return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == 'e' || c == 'E' || c == '.';
}

/* Finds the inexact numbers of text outside the nskip lists skip[] (in
 * text order; the lists read one entry at a time): 0, or -1 (out of
 * memory). */
static int sym__json_scan_numbers(ld *l, const char *text, size_t len, const cJSON *root,
                                  const span *const *skip, size_t nskip)
{
	size_t i = 0, ord = 0, count = 0, next = 0, k = 0;
	while (i < len) {
		char c = text[i];
		if (k < nskip && i >= skip[k]->at) {
			if (i < skip[k]->end)
				i = skip[k]->end;
			k++;
			continue;
		}
		if (c == '"') {
			for (i++; i < len && text[i] != '"'; i++)
				if (text[i] == '\\')
					i++;
			i++;
		} else if (c == '-' || isdigit((unsigned char)c)) {
			/* as cJSON: the run of number characters, read by strtod */
			char buf[72], *end;
			size_t n = c == '-', sign = n;
			double d;
			int integral = 0;
			while (i + n < len && n - sign <= 15 && isdigit((unsigned char)text[i + n]))
				n++;
			if (n > sign && n - sign <= 15 && (i + n >= len || !number_char(text[i + n]))) {
				/* an integer of at most 15 digits, which a double holds exactly */
				ord++;
				i += n;
				continue;
			}
			n = 0;
			while (i + n < len && n < sizeof(buf) - 1 && number_char(text[i + n]))
				n++;
			memcpy(buf, text + i, n);
			buf[n] = 0;
			d = strtod(buf, &end);
			n = end > buf ? (size_t)(end - buf) : 1;
			if (end > buf && sym__json_number_inexact(buf, n, d, &integral)) {
				if (SYM_GROW(l->ctx, l->inexact, l->ninexact + 1, l->capinexact, 8) < 0)
					return -1;
				l->inexact[l->ninexact].item = (const cJSON *)(uintptr_t)ord;
				l->inexact[l->ninexact].text = text + i;
				l->inexact[l->ninexact].len = (int)n;
				l->inexact[l->ninexact++].integral = integral;
			}
			ord++;
			i += n;
		} else {
			i++;
		}
	}
	if (!l->ninexact)
		return 0;
	sym__json_match_numbers(l, root, &count, &next);
	l->ninexact = next; /* tokens past the parsed value are not items */
	qsort(l->inexact, l->ninexact, sizeof(*l->inexact), inexact_cmp);
	return 0;
}

/* The entry of an inexact number item, or NULL. */
static const inexact *sym__json_inexact(const ld *l, const cJSON *j)
{
	inexact key;
	if (!l->ninexact)
		return NULL;
	key.item = j;
	return bsearch(&key, l->inexact, l->ninexact, sizeof(*l->inexact), inexact_cmp);
}

/* An exact integer: a JSON number within +-2**53 that is integral and
 * written exactly, or a decimal string. */
static int get_int(ld *l, const cJSON *j, const loc *where, int64_t *out)
{
	if (cJSON_IsNumber(j)) {
		double d = j->valuedouble;
		const inexact *x = sym__json_inexact(l, j);
		if (x)
			return lerr_at(l, where, "%.*s is not an exact integer%s", x->len, x->text,
			               x->integral ? " (write integers beyond 2**53 as decimal strings)"
			                           : "");
		if (!(d == floor(d)) || fabs(d) > JSON_EXACT_LIMIT)
			return lerr_at(l, where,
			               "%.17g is not an exact integer (write big integers as strings)", d);
		*out = (int64_t)d;
		return 0;
	}
	if (cJSON_IsString(j)) {
		const char *s = j->valuestring;
		char *end;
		long long v;
		errno = 0;
		v = strtoll(s, &end, 10);
		if (!*s || *end || errno == ERANGE)
			return lerr_at(l, where, "'%s' is not a 64-bit integer", s);
		*out = v;
		return 0;
	}
	return lerr_at(l, where, "expected an integer");
}

static const cJSON *field(const cJSON *o, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* The "name" of o, or dflt when o has none (and dflt is given). */
static int get_name(ld *l, const cJSON *o, const loc *what, const char *dflt, char **out)
{
	const cJSON *n = field(o, "name");
	const char *s = !n ? dflt : cJSON_IsString(n) ? n->valuestring : NULL;
	if (!s || !*s)
		return lerr_at(l, what, "missing \"name\" (a non-empty string)");
	if (check_name(l, s, what) < 0)
		return -1;
	if (!(*out = ld_strdup(l, s)))
		return nomem(l);
	return 0;
}

static int get_dtype(ld *l, const cJSON *o, const char *tname, int *dt)
{
	const cJSON *d = field(o, "dtype");
	if (!d) {
		*dt = SYM_DT_FLOAT32;
		return 0;
	}
	if (!cJSON_IsString(d) || (*dt = sym__dtype_from_name(d->valuestring)) <= 0)
		return lerr(l, "tensor '%s': unknown \"dtype\"%s%s", tname, cJSON_IsString(d) ? " " : "",
		            cJSON_IsString(d) ? d->valuestring : "");
	return 0;
}

/* Reads the tensor o; dflt names it when o has no "name" (NULL: one is
 * required). */
static int load_tensor(ld *l, const cJSON *o, const loc *what, int is_init, const char *dflt, sym_mtensor *t)
{
	const cJSON *shape, *data;
	int k;
	if (!cJSON_IsObject(o))
		return lerr_at(l, what, "expected an object");
	if (get_name(l, o, what, dflt, &t->name) < 0 || get_dtype(l, o, t->name, &t->dtype) < 0)
		return -1;
	shape = field(o, "shape");
	if (!shape || cJSON_IsNull(shape)) {
		if (is_init)
			return lerr(l, "initializer '%s': missing \"shape\"", t->name);
		t->rank = -1;
	} else if (!cJSON_IsArray(shape)) {
		return lerr(l, "tensor '%s': \"shape\" must be a list or null", t->name);
	} else {
		t->rank = cJSON_GetArraySize(shape);
		t->dims = ld_alloc(l, (size_t)(t->rank ? t->rank : 1) * sizeof(*t->dims));
		if (!t->dims)
			return nomem(l);
		const cJSON *d = shape->child;
		for (k = 0; k < t->rank; k++, d = d->next) {
			const loc *where = LOC_SI("tensor '%s' dim %zu", t->name, (size_t)k);
			if (cJSON_IsNull(d) || (cJSON_IsString(d) && !strcmp(d->valuestring, "?"))) {
				if (is_init)
					return lerr_at(l, where, "initializers need concrete dims");
				t->dims[k].kind = SYM_DIM_ANON;
			} else if (cJSON_IsNumber(d)) {
				if (get_int(l, d, where, &t->dims[k].value) < 0)
					return -1;
				if (t->dims[k].value < 0)
					return lerr_at(l, where, "negative dim %lld",
					               (long long)t->dims[k].value);
				t->dims[k].kind = SYM_DIM_CONST;
			} else if (cJSON_IsString(d) && *d->valuestring) {
				char *end;
				long long v;
				errno = 0;
				v = strtoll(d->valuestring, &end, 10);
				if (!*end && (errno == ERANGE || v < 0))
					return lerr_at(l, where, "'%s' is not a dim (0 to 2**63-1)",
					               d->valuestring);
				if (!*end) {
					t->dims[k].kind = SYM_DIM_CONST;
					t->dims[k].value = v;
				} else {
					if (is_init)
						return lerr_at(l, where, "initializers need concrete dims");
					t->dims[k].kind = SYM_DIM_EXPR;
					if (!(t->dims[k].text = ld_strdup(l, d->valuestring)))
						return nomem(l);
				}
			} else {
				return lerr_at(l, where,
				               "a dim is an integer, a name, an expression or null");
			}
		}
	}
	data = field(o, "data");
	if (data) {
		size_t n, i;
		int64_t numel = 1;
		if (!sym__dtype_is_int(t->dtype))
			return 0; /* float data is never copied */
		if (!cJSON_IsArray(data))
			return lerr(l, "initializer '%s': \"data\" must be a list", t->name);
		n = (size_t)cJSON_GetArraySize(data);
		for (k = 0; k < t->rank; k++)
			numel *= t->dims[k].value;
		if ((int64_t)n != numel)
			return lerr(l, "initializer '%s': \"data\" has %zu elements, the shape needs %lld",
			            t->name, n, (long long)numel);
		t->data = ld_alloc(l, (n ? n : 1) * sizeof(*t->data));
		if (!t->data)
			return nomem(l);
		{
			const cJSON *x = data->child;
			for (i = 0; i < n; i++, x = x->next) {
				const loc *where = LOC_SI("initializer '%s' data[%zu]", t->name, i);
				if (get_int(l, x, where, &t->data[i]) < 0)
					return -1;
				if (!sym__dtype_holds(t->dtype, t->data[i]))
					return lerr_at(l, where, "%lld is not a value of %s",
					               (long long)t->data[i], sym__dtype_name(t->dtype));
			}
		}
		t->has_data = 1;
		t->ndata = n;
	}
	return 0;
}

static int load_attr(ld *l, const sym_mnode *nd, const cJSON *a, size_t idx, sym_attr *out)
{
	const loc *where = LOC_2("node '%s' attribute '%s'", nd->name, a->string);
	if (check_name(l, a->string, LOC_SI("node '%s' attribute %zu", nd->name, idx)) < 0)
		return -1;
	out->name = ld_strdup(l, a->string);
	if (!out->name)
		return nomem(l);
	if (cJSON_IsBool(a)) {
		int64_t *v = ld_alloc(l, sizeof(*v));
		if (!v)
			return nomem(l);
		*v = cJSON_IsTrue(a);
		out->type = SYM_ATTR_INT, out->n = 1, out->ints = v;
	} else if (cJSON_IsNumber(a)) {
		double d = a->valuedouble;
		const inexact *x = sym__json_inexact(l, a);
		if (x && x->integral) {
			int64_t v;
			return get_int(l, a, where, &v);
		}
		if (!x && d == floor(d) && fabs(d) <= JSON_EXACT_LIMIT) {
			int64_t *v = ld_alloc(l, sizeof(*v));
			if (!v)
				return nomem(l);
			*v = (int64_t)d;
			out->type = SYM_ATTR_INT, out->n = 1, out->ints = v;
		} else {
			double *v = ld_alloc(l, sizeof(*v));
			if (!v)
				return nomem(l);
			*v = d;
			out->type = SYM_ATTR_FLOAT, out->n = 1, out->floats = v;
		}
	} else if (cJSON_IsString(a)) {
		const char **v = ld_alloc(l, sizeof(*v));
		if (!v || !(v[0] = ld_strdup(l, a->valuestring)))
			return nomem(l);
		out->type = SYM_ATTR_STRING, out->n = 1, out->strs = v;
	} else if (cJSON_IsArray(a)) {
		size_t n = (size_t)cJSON_GetArraySize(a), i;
		int all_int = 1, all_str = 1, all_num = 1;
		const cJSON *x;
		cJSON_ArrayForEach(x, a)
		{
			if (cJSON_IsNumber(x)) {
				const inexact *ix = sym__json_inexact(l, x);
				all_str = 0;
				if (x->valuedouble != floor(x->valuedouble) || (ix && !ix->integral))
					all_int = 0;
			} else if (cJSON_IsString(x)) {
				all_num = 0;
				/* decimal strings are big integers */
				{
					char *end;
					errno = 0;
					(void)strtoll(x->valuestring, &end, 10);
					if (*end || !*x->valuestring || errno)
						all_int = 0;
				}
			} else {
				return lerr_at(l, where, "list elements must be numbers or strings");
			}
		}
		if (all_int) {
			int64_t *v = ld_alloc(l, (n ? n : 1) * sizeof(*v));
			if (!v)
				return nomem(l);
			x = a->child;
			for (i = 0; i < n; i++, x = x->next)
				if (get_int(l, x, where, &v[i]) < 0)
					return -1;
			out->type = SYM_ATTR_INTS, out->n = n, out->ints = v;
		} else if (all_num) {
			double *v = ld_alloc(l, (n ? n : 1) * sizeof(*v));
			if (!v)
				return nomem(l);
			x = a->child;
			for (i = 0; i < n; i++, x = x->next)
				v[i] = x->valuedouble;
			out->type = SYM_ATTR_FLOATS, out->n = n, out->floats = v;
		} else if (all_str) {
			const char **v = ld_alloc(l, (n ? n : 1) * sizeof(*v));
			if (!v)
				return nomem(l);
			x = a->child;
			for (i = 0; i < n; i++, x = x->next)
				if (!(v[i] = ld_strdup(l, x->valuestring)))
					return nomem(l);
			out->type = SYM_ATTR_STRINGS, out->n = n, out->strs = v;
		} else {
			return lerr_at(l, where, "a list mixes numbers and strings");
		}
	} else if (cJSON_IsObject(a)) {
		/* a tensor attribute: {"dtype", "shape", "data"} */
		sym_mtensor t;
		sym_tval *tv;
		memset(&t, 0, sizeof(t));
		if (load_tensor(l, a, where, 1, a->string, &t) < 0)
			return -1;
		tv = ld_alloc(l, sizeof(*tv));
		if (!tv)
			return nomem(l);
		tv->present = 1;
		tv->rank = t.rank;
		tv->dtype = t.dtype;
		if (t.rank > 0) {
			int k;
			const sym_expr **d = ld_alloc(l, (size_t)t.rank * sizeof(*d));
			if (!d)
				return nomem(l);
			for (k = 0; k < t.rank; k++)
				d[k] = sym_expr_from_si(l->ctx, t.dims[k].value);
			tv->dims = d;
		}
		if (t.has_data) {
			size_t i;
			const sym_expr **v = ld_alloc(l, (t.ndata ? t.ndata : 1) * sizeof(*v));
			if (!v)
				return nomem(l);
			for (i = 0; i < t.ndata; i++)
				v[i] = sym_expr_from_si(l->ctx, t.data[i]);
			tv->has_value = 1, tv->nvalue = t.ndata, tv->value = v;
		}
		out->type = SYM_ATTR_TENSOR, out->n = 1, out->tensor = tv;
	} else {
		return lerr_at(l, where, "unsupported value");
	}
	return 0;
}

static int load_names(ld *l, const cJSON *arr, const loc *w, size_t *n, char ***out, int allow_empty)
{
	const char *what;
	size_t i;
	if (!cJSON_IsArray(arr))
		return (what = loc_text(l, w)) ? lerr(l, "%s must be a list of tensor names", what) : -1;
	*n = (size_t)cJSON_GetArraySize(arr);
	*out = ld_alloc(l, (*n ? *n : 1) * sizeof(**out));
	if (!*out)
		return nomem(l);
	const cJSON *s = arr->child;
	for (i = 0; i < *n; i++, s = s->next) {
		if (!cJSON_IsString(s) || (!allow_empty && !*s->valuestring))
			return (what = loc_text(l, w)) ? lerr(l, "%s[%zu] must be a%s tensor name", what, i,
			                                      allow_empty ? "" : " non-empty")
			                               : -1;
		if (sym__model_name_has_control(s->valuestring))
			return (what = loc_text(l, w))
			           ? lerr(l, "%s[%zu]: a name contains a control character", what, i)
			           : -1;
		if (!((*out)[i] = ld_strdup(l, s->valuestring)))
			return nomem(l);
	}
	return 0;
}

static int load_node(ld *l, const cJSON *o, size_t idx, sym_mnode *nd);
static int load_tensors(ld *l, const cJSON *arr, const char *what, int is_init, size_t *n, sym_mtensor **out);

/* The formatted text in model memory; NULL with SYM_ENOMEM recorded. */
static char *mprintf(ld *l, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static char *mprintf(ld *l, const char *fmt, ...)
{
	sym_sbuf b;
	va_list ap;
	char *r;
	sym__sbuf_init(&b, l->ctx);
	va_start(ap, fmt);
	sym__sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	r = b.fail || !b.s ? NULL : ld_strdup(l, b.s);
	sym__sbuf_clear(&b);
	if (!r)
		nomem(l);
	return r;
}

/* Whether the attribute value a is a graph: an object with "nodes". */
static int is_graph_attr(const cJSON *a)
{
	return cJSON_IsObject(a) && field(a, "nodes");
}

/* Reads the graph attribute a of node nd into out: "inputs" (a Loop or
 * Scan body's, shapes optional), "initializers", "nodes", "outputs". */
static int load_graph_attr(ld *l, sym_mnode *nd, const cJSON *a, sym_mgattr *out)
{
	sym_mgraph *g;
	const cJSON *nodes, *x;
	const char *saved = l->gpath;
	char *path, *what, *iwhat;
	size_t i;
	int st = -1;
	if (check_name(l, a->string, LOC_2("node '%s' attribute '%s'", nd->name, a->string)) < 0)
		return -1;
	if (l->depth >= SYM_MODEL_MAX_DEPTH)
		return lerr(l, "node '%s' attribute '%s': subgraphs nest deeper than %d levels", nd->name,
		            a->string, SYM_MODEL_MAX_DEPTH);
	if (!(out->name = ld_strdup(l, a->string)) || !(g = ld_alloc(l, sizeof(*g))))
		return nomem(l);
	out->graph = g;
	if (!(path = mprintf(l, "%s/%s/", nd->name, a->string)) ||
	    !(what = mprintf(l, "node '%s' attribute '%s' \"inputs\"", nd->name, a->string)) ||
	    !(iwhat = mprintf(l, "node '%s' attribute '%s' \"initializers\"", nd->name, a->string)))
		return -1;
	nodes = field(a, "nodes");
	if (!cJSON_IsArray(nodes))
		return lerr(l, "node '%s' attribute '%s': \"nodes\" must be a list", nd->name, a->string);
	l->depth++, l->gpath = path;
	if (load_tensors(l, field(a, "inputs"), what, 0, &g->ninputs, &g->inputs) < 0)
		goto out;
	if (load_tensors(l, field(a, "initializers"), iwhat, 1, &g->ninits, &g->inits) < 0)
		goto out;
	g->nnodes = (size_t)cJSON_GetArraySize(nodes);
	if (!(g->nodes = ld_alloc(l, (g->nnodes ? g->nnodes : 1) * sizeof(*g->nodes)))) {
		nomem(l);
		goto out;
	}
	for (i = 0, x = nodes->child; i < g->nnodes; i++, x = x->next)
		if (load_node(l, x, i, &g->nodes[i]) < 0)
			goto out;
	x = field(a, "outputs");
	if (!x) {
		lerr(l, "node '%s' attribute '%s': missing \"outputs\" (a list of tensor names)", nd->name,
		     a->string);
		goto out;
	}
	if (load_names(l, x, LOC_2("node '%s' attribute '%s' \"outputs\"", nd->name, a->string), &g->noutputs,
	               &g->outputs, 0) < 0)
		goto out;
	st = 0;
out:
	l->depth--, l->gpath = saved;
	return st;
}

static int load_node(ld *l, const cJSON *o, size_t idx, sym_mnode *nd)
{
	const cJSON *x, *attrs, *a;
	if (!cJSON_IsObject(o))
		return lerr(l, "nodes[%zu]: expected an object", idx);
	x = field(o, "name");
	if (x && cJSON_IsString(x) && *x->valuestring) {
		if (check_name(l, x->valuestring, LOC_I("nodes[%zu]", idx)) < 0)
			return -1;
		nd->name = ld_strdup(l, x->valuestring);
	} else if (x) {
		return lerr(l, "nodes[%zu]: \"name\" must be a non-empty string", idx);
	} else {
		/* the generated name of an unnamed node */
		nd->name = mprintf(l, "%snode%zu", l->gpath ? l->gpath : "", idx);
	}
	if (!nd->name)
		return nomem(l);
	x = field(o, "op");
	if (!cJSON_IsString(x) || !*x->valuestring)
		return lerr(l, "node '%s': missing \"op\"", nd->name);
	if (check_name(l, x->valuestring, LOC_1("node '%s' \"op\"", nd->name)) < 0)
		return -1;
	nd->op = ld_strdup(l, x->valuestring);
	x = field(o, "domain");
	if (x && !cJSON_IsString(x))
		return lerr(l, "node '%s': \"domain\" must be a string", nd->name);
	if (x && check_name(l, x->valuestring, LOC_1("node '%s' \"domain\"", nd->name)) < 0)
		return -1;
	nd->domain = ld_strdup(l, x ? x->valuestring : "");
	if (x && strcmp(x->valuestring, "") && strcmp(x->valuestring, "cann") &&
	    strcmp(x->valuestring, "ai.onnx") && strcmp(x->valuestring, "com.microsoft"))
		return lerr(l, "node '%s': unsupported domain '%s' (\"\", \"cann\" or \"com.microsoft\")",
		            nd->name, x->valuestring);
	if (x && !strcmp(x->valuestring, "ai.onnx"))
		nd->domain[0] = 0;
	if (!nd->op || !nd->domain)
		return nomem(l);
	x = field(o, "inputs");
	if (!x) {
		nd->nin = 0;
		nd->in = NULL;
	} else if (load_names(l, x, LOC_1("node '%s' \"inputs\"", nd->name), &nd->nin, &nd->in, 1) < 0) {
		return -1;
	}
	if (load_names(l, field(o, "outputs"), LOC_1("node '%s' \"outputs\"", nd->name), &nd->nout, &nd->out,
	               0) < 0)
		return -1;
	if (nd->nout == 0)
		return lerr(l, "node '%s': needs at least one output", nd->name);
	attrs = field(o, "attrs");
	if (!attrs)
		attrs = field(o, "attributes");
	if (attrs && !cJSON_IsObject(attrs))
		return lerr(l, "node '%s': \"attrs\" must be an object", nd->name);
	nd->nattr = nd->ngraphs = 0;
	if (attrs)
		cJSON_ArrayForEach(a, attrs)
		{
			if (is_graph_attr(a))
				nd->ngraphs++;
			else
				nd->nattr++;
		}
	nd->attrs = ld_alloc(l, (nd->nattr ? nd->nattr : 1) * sizeof(*nd->attrs));
	nd->graphs = ld_alloc(l, (nd->ngraphs ? nd->ngraphs : 1) * sizeof(*nd->graphs));
	if (!nd->attrs || !nd->graphs)
		return nomem(l);
	idx = 0;
	{
		size_t ng = 0;
		if (attrs)
			cJSON_ArrayForEach(a, attrs)
			{
				if (is_graph_attr(a)) {
					if (load_graph_attr(l, nd, a, &nd->graphs[ng++]) < 0)
						return -1;
					continue;
				}
				if (load_attr(l, nd, a, idx, &nd->attrs[idx]) < 0)
					return -1;
				idx++;
			}
	}
	return 0;
}

static int load_tensors(ld *l, const cJSON *arr, const char *what, int is_init, size_t *n, sym_mtensor **out)
{
	size_t i;
	if (!arr) {
		*n = 0;
		*out = NULL;
		return 0;
	}
	if (!cJSON_IsArray(arr))
		return lerr(l, "\"%s\" must be a list", what);
	*n = (size_t)cJSON_GetArraySize(arr);
	*out = ld_alloc(l, (*n ? *n : 1) * sizeof(**out));
	if (!*out)
		return nomem(l);
	{
		const cJSON *x = arr->child;
		for (i = 0; i < *n; i++, x = x->next) {
			if (load_tensor(l, x, LOC_SI("%s[%zu]", what, i), is_init, NULL, &(*out)[i]) < 0)
				return -1;
		}
	}
	return 0;
}

static int load_formats(ld *l, const cJSON *fm)
{
	const cJSON *e;
	size_t i = 0;
	if (!fm)
		return 0;
	if (!cJSON_IsObject(fm))
		return lerr(l, "\"formats\" must be an object");
	l->m->nformats = (size_t)cJSON_GetArraySize(fm);
	l->m->formats = ld_alloc(l, (l->m->nformats ? l->m->nformats : 1) * sizeof(*l->m->formats));
	if (!l->m->formats)
		return nomem(l);
	cJSON_ArrayForEach(e, fm)
	{
		const cJSON *f = field(e, "format"), *s = field(e, "storage_format");
		sym_mformat *mf = &l->m->formats[i++];
		const loc *what = LOC_I("\"formats\" entry %zu", i - 1);
		if (check_name(l, e->string, what) < 0)
			return -1;
		if (!cJSON_IsObject(e) || (f && !cJSON_IsString(f)) || (s && !cJSON_IsString(s)))
			return lerr(l, "formats['%s']: expected {\"format\": ..., \"storage_format\": ...}",
			            e->string);
		if ((f && check_name(l, f->valuestring, what) < 0) ||
		    (s && check_name(l, s->valuestring, what) < 0))
			return -1;
		mf->tensor = ld_strdup(l, e->string);
		mf->format = ld_strdup(l, f ? f->valuestring : "ND");
		mf->storage_format = ld_strdup(l, s ? s->valuestring : (f ? f->valuestring : "ND"));
		if (!mf->tensor || !mf->format || !mf->storage_format)
			return nomem(l);
	}
	return 0;
}

/* Frees what the loader kept besides the model. */
static void loader_clear(ld *l)
{
	sym__free(l->ctx, l->inexact, l->capinexact * sizeof(*l->inexact));
	sym__sbuf_clear(&l->at);
}

/* ---- reading: the lists one entry at a time --------------------------------
 * The top level is read key by key with cJSON, except the "inputs",
 * "initializers" and "nodes" lists, whose spans are only delimited; their
 * entries are then parsed, loaded and freed one at a time, so the loader
 * never holds a tree of the whole model (about 15 times the text).
 * Whatever this reading does not take (not an object at the top, a syntax
 * error anywhere) goes through one parse of the whole text, which gives
 * the errors their usual form. */

static size_t skip_space(const char *t, size_t len, size_t i)
{
	while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
		i++;
	return i;
}

/* Delimits the list at t[i] == '[' and counts its entries; 0 when its
 * brackets or strings do not close. */
static int list_span(const char *t, size_t len, size_t i, span *sp)
{
	size_t depth = 0, commas = 0, j = i;
	int any = 0;
	for (; j < len; j++) {
		char c = t[j];
		if (c == '"') {
			for (j++; j < len && t[j] != '"'; j++)
				if (t[j] == '\\')
					j++;
			if (j >= len)
				return 0;
			any = 1;
		} else if (c == '[' || c == '{') {
			if (depth++)
				any = 1;
		} else if (c == ']' || c == '}') {
			if (!depth)
				return 0;
			if (!--depth) {
				sp->at = i, sp->end = j + 1, sp->count = any ? commas + 1 : 0;
				return c == ']';
			}
		} else if (c == ',' && depth == 1) {
			commas++;
		} else if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
			any = 1;
		}
	}
	return 0;
}

/* The top level's lists read one entry at a time: the first "inputs",
 * "initializers" and "nodes" of the object (at == 0: that key's first
 * value is no list, or there is none). */
enum { TOP_INPUTS, TOP_INITS, TOP_NODES, NTOPS };
static const char *const top_keys[NTOPS] = {"inputs", "initializers", "nodes"};

/* The top-level object without those lists, whose spans go to top[]; NULL
 * when the text is not read this way.  A later value of one of the three
 * keys is dropped: the first one counts, as cJSON's lookup has it. */
static cJSON *read_top(const char *text, size_t len, span top[NTOPS])
{
	cJSON *root;
	size_t i = 0;
	int seen[NTOPS] = {0};
	memset(top, 0, NTOPS * sizeof(*top));
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		i = 3;
	i = skip_space(text, len, i);
	if (i >= len || text[i] != '{' || !(root = cJSON_CreateObject()))
		return NULL;
	i = skip_space(text, len, i + 1);
	if (i < len && text[i] == '}')
		return root;
	while (i < len) {
		const char *end = NULL;
		cJSON *key = cJSON_ParseWithLengthOpts(text + i, len - i, &end, 0), *val;
		int k;
		if (!key || !cJSON_IsString(key) || !end)
			goto fail_key;
		i = skip_space(text, len, (size_t)(end - text));
		if (i >= len || text[i] != ':')
			goto fail_key;
		i = skip_space(text, len, i + 1);
		for (k = 0; k < NTOPS && strcmp(key->valuestring, top_keys[k]); k++)
			;
		if (k < NTOPS && !seen[k] && i < len && text[i] == '[') {
			if (!list_span(text, len, i, &top[k]))
				goto fail_key;
			i = top[k].end;
		} else {
			val = cJSON_ParseWithLengthOpts(text + i, len - i, &end, 0);
			if (!val || !end) {
				cJSON_Delete(val);
				goto fail_key;
			}
			i = (size_t)(end - text);
			if (k < NTOPS && seen[k])
				cJSON_Delete(val); /* a later one: the first one counts */
			else if (!cJSON_AddItemToObject(root, key->valuestring, val)) {
				cJSON_Delete(val);
				goto fail_key;
			}
		}
		if (k < NTOPS)
			seen[k] = 1;
		cJSON_Delete(key);
		i = skip_space(text, len, i);
		if (i < len && text[i] == '}')
			return root;
		if (i >= len || text[i] != ',')
			break;
		i = skip_space(text, len, i + 1);
		continue;
	fail_key:
		cJSON_Delete(key);
		break;
	}
	cJSON_Delete(root);
	return NULL;
}

/* Records the syntax error of the whole text, when it has one: 1 if so. */
static int syntax_error(sym_ctx *ctx, const char *text, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(text, len);
	const char *at;
	long off;
	if (root) {
		cJSON_Delete(root);
		return 0;
	}
	at = cJSON_GetErrorPtr();
	off = at && at >= text && at <= text + len ? (long)(at - text) : -1;
	sym_ctx_clear_error(ctx);
	sym__error(ctx, SYM_ESYNTAX, off, "model: invalid JSON near byte %ld", off);
	return 1;
}

/* ---- a node's entry without cJSON's allocations ------------------------------
 * cJSON allocates every item and every string of an entry and frees them
 * again: most of the time of reading a node.  The reader below builds the
 * same items (cJSON's own struct, which the loader reads) in blocks it keeps
 * from one entry to the next, for entries written in a strict subset of
 * JSON: strings without escapes or control bytes, numbers in JSON's grammar
 * that sym__json_number_inexact accepts (so the entry has no inexact
 * number to list), only the four whitespace bytes of JSON, nesting of at
 * most FJ_DEPTH.  An entry outside the subset, or malformed, is parsed by
 * cJSON instead, so what is read and what is rejected stays cJSON's. */

#define FJ_DEPTH 64
#define FJ_NONE ((size_t)-1)

/* An item while its entry is read: items refer to each other and to their
 * text by index, as the blocks may move while they grow. */
typedef struct fj_link {
	size_t child, last, next; /* items; FJ_NONE: none */
	size_t key, str;          /* offsets of the key and the string value; FJ_NONE: none */
} fj_link;

typedef struct fj {
	sym_ctx *ctx;
	cJSON *it;
	fj_link *ln;
	size_t n, capit, capln; /* it and ln grow one after the other */
	char *s;
	size_t ns, caps;
	int nomem;
	int dot_is_point; /* strtod reads "1.5" as cJSON does */
} fj;

static void fj_clear(fj *f)
{
	sym__free(f->ctx, f->it, f->capit * sizeof(*f->it));
	sym__free(f->ctx, f->ln, f->capln * sizeof(*f->ln));
	sym__free(f->ctx, f->s, f->caps);
}

/* A new item of type; FJ_NONE when out of memory. */
static size_t fj_item(fj *f, int type)
{
	if (f->n == f->capit) {
		size_t nc = f->capit ? 2 * f->capit : 64;
		cJSON *it = sym__realloc(f->ctx, f->it, f->capit * sizeof(*it), nc * sizeof(*it));
		if (!it) {
			f->nomem = 1;
			return FJ_NONE;
		}
		f->it = it, f->capit = nc;
	}
	if (f->n == f->capln) {
		size_t nc = f->capln ? 2 * f->capln : 64;
		fj_link *ln = sym__realloc(f->ctx, f->ln, f->capln * sizeof(*ln), nc * sizeof(*ln));
		if (!ln) {
			f->nomem = 1;
			return FJ_NONE;
		}
		f->ln = ln, f->capln = nc;
	}
	memset(&f->it[f->n], 0, sizeof(f->it[f->n]));
	f->it[f->n].type = type;
	f->ln[f->n].child = f->ln[f->n].last = f->ln[f->n].next = FJ_NONE;
	f->ln[f->n].key = f->ln[f->n].str = FJ_NONE;
	return f->n++;
}

/* Bytes a JSON string holds as they are: not a control byte, '"' or '\\'. */
#define JP16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
/* clang-format off */
static const unsigned char json_plain[256] = {
    JP16(0), JP16(0),
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* '"' */
    JP16(1), JP16(1),
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* '\\' */
    JP16(1), JP16(1), JP16(1), JP16(1), JP16(1), JP16(1), JP16(1), JP16(1), JP16(1), JP16(1)};
/* clang-format on */
#undef JP16

/* Reads the string at t[*i] == '"' into the text block: its offset, or
 * FJ_NONE (outside the subset, malformed, out of memory). */
static size_t fj_string(fj *f, const char *t, size_t len, size_t *i)
{
	size_t j = *i + 1, n, off = f->ns;
	while (j < len && json_plain[(unsigned char)t[j]])
		j++;
	if (j >= len || t[j] != '"')
		return FJ_NONE;
	n = j - *i - 1;
	if (f->ns + n + 1 > f->caps) {
		size_t nc = 2 * (f->ns + n + 1);
		char *s = sym__realloc(f->ctx, f->s, f->caps, nc);
		if (!s) {
			f->nomem = 1;
			return FJ_NONE;
		}
		f->s = s, f->caps = nc;
	}
	memcpy(f->s + off, t + *i + 1, n);
	f->s[off + n] = 0;
	f->ns += n + 1;
	*i = j + 1;
	return off;
}

static size_t fj_value(fj *f, const char *t, size_t len, size_t *i, int depth);

/* The end of the run of digits at t[j] (j itself when there is none). */
static size_t fj_digits(const char *t, size_t len, size_t j)
{
	while (j < len && t[j] >= '0' && t[j] <= '9')
		j++;
	return j;
}

/* Reads the number at t[i] in JSON's grammar into *d: where it ends, or 0
 * when cJSON must read it: not in the grammar, longer than 63 bytes (some
 * cJSON versions read no more), not what sym__json_number_inexact accepts,
 * or with a fraction or exponent while strtod's decimal point is not '.'
 * (cJSON writes the locale's into the text it reads). */
static size_t fj_number(const fj *f, const char *t, size_t len, size_t i, double *d)
{
	size_t d0 = i + (t[i] == '-'), j = fj_digits(t, len, d0), k;
	int exact = 1; /* an integer of at most 15 digits */
	char buf[64];
	if (j == d0 || (t[d0] == '0' && j - d0 > 1))
		return 0;
	if (j < len && t[j] == '.') {
		if ((k = fj_digits(t, len, j + 1)) == j + 1)
			return 0;
		j = k, exact = 0;
	}
	if (j < len && (t[j] == 'e' || t[j] == 'E')) {
		k = j + 1 + (j + 1 < len && (t[j + 1] == '+' || t[j + 1] == '-'));
		if (fj_digits(t, len, k) == k)
			return 0;
		j = fj_digits(t, len, k), exact = 0;
	}
	if ((j < len && number_char(t[j])) || j - i >= sizeof(buf))
		return 0;
	if (exact && j - d0 <= 15) {
		int64_t v = 0;
		for (k = d0; k < j; k++)
			v = 10 * v + (t[k] - '0');
		*d = t[i] == '-' ? -(double)v : (double)v; /* -0 too */
		return j;
	}
	if (!f->dot_is_point)
		return 0;
	memcpy(buf, t + i, j - i);
	buf[j - i] = 0;
	*d = strtod(buf, NULL);
	{
		int integral = 0;
		if (sym__json_number_inexact(buf, j - i, *d, &integral))
			return 0;
	}
	return j;
}

/* Reads the members or elements of the object or array at t[*i] into
 * item k. 1, or 0 (outside the subset, malformed, out of memory). */
static int fj_members(fj *f, const char *t, size_t len, size_t *i, size_t k, int object, int depth)
{
	char close = object ? '}' : ']';
	*i = skip_space(t, len, *i + 1);
	if (*i < len && t[*i] == close) {
		(*i)++;
		return 1;
	}
	for (;;) {
		size_t key = FJ_NONE, v;
		if (object) {
			if (*i >= len || t[*i] != '"' || (key = fj_string(f, t, len, i)) == FJ_NONE)
				return 0;
			*i = skip_space(t, len, *i);
			if (*i >= len || t[*i] != ':')
				return 0;
			*i = skip_space(t, len, *i + 1);
		}
		if ((v = fj_value(f, t, len, i, depth + 1)) == FJ_NONE)
			return 0;
		f->ln[v].key = key;
		if (f->ln[k].last == FJ_NONE)
			f->ln[k].child = v;
		else
			f->ln[f->ln[k].last].next = v;
		f->ln[k].last = v;
		*i = skip_space(t, len, *i);
		if (*i < len && t[*i] == ',') {
			*i = skip_space(t, len, *i + 1);
			continue;
		}
		if (*i < len && t[*i] == close) {
			(*i)++;
			return 1;
		}
		return 0;
	}
}

/* Reads the value at t[*i] (no space before it): its item, or FJ_NONE. */
static size_t fj_value(fj *f, const char *t, size_t len, size_t *i, int depth)
{
	size_t k, j;
	char c;
	if (*i >= len || depth > FJ_DEPTH)
		return FJ_NONE;
	c = t[*i];
	if (c == '{' || c == '[') {
		if ((k = fj_item(f, c == '{' ? cJSON_Object : cJSON_Array)) == FJ_NONE ||
		    !fj_members(f, t, len, i, k, c == '{', depth))
			return FJ_NONE;
		return k;
	}
	if (c == '"') {
		size_t off;
		if ((k = fj_item(f, cJSON_String)) == FJ_NONE || (off = fj_string(f, t, len, i)) == FJ_NONE)
			return FJ_NONE;
		f->ln[k].str = off;
		return k;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		double d;
		if (!(j = fj_number(f, t, len, *i, &d)) || (k = fj_item(f, cJSON_Number)) == FJ_NONE)
			return FJ_NONE;
		f->it[k].valuedouble = d;
		/* cJSON's saturating int */
		f->it[k].valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
		*i = j;
		return k;
	}
	{
		static const struct {
			const char *word;
			int type, value;
		} words[] = {{"null", cJSON_NULL, 0}, {"true", cJSON_True, 1}, {"false", cJSON_False, 0}};
		size_t w;
		for (w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
			size_t n = strlen(words[w].word);
			if (len - *i >= n && !memcmp(t + *i, words[w].word, n)) {
				if ((k = fj_item(f, words[w].type)) == FJ_NONE)
					return FJ_NONE;
				f->it[k].valueint = words[w].value;
				*i += n;
				return k;
			}
		}
	}
	return FJ_NONE;
}

/* Reads the entry at t[*i] (*i moves past it): its root item, whose tree
 * lives until the next entry is read (linked by child and next, what the
 * loader walks; prev is not set); NULL when cJSON must read it (then
 * f->nomem tells out of memory). */
static const cJSON *fj_parse(fj *f, const char *t, size_t len, size_t *i)
{
	size_t k, root, at = *i;
	f->n = f->ns = 0;
	f->nomem = 0;
	if ((root = fj_value(f, t, len, &at, 0)) == FJ_NONE)
		return NULL;
	for (k = 0; k < f->n; k++) {
		const fj_link *ln = &f->ln[k];
		cJSON *it = &f->it[k];
		it->child = ln->child == FJ_NONE ? NULL : &f->it[ln->child];
		it->next = ln->next == FJ_NONE ? NULL : &f->it[ln->next];
		it->string = ln->key == FJ_NONE ? NULL : f->s + ln->key;
		it->valuestring = ln->str == FJ_NONE ? NULL : f->s + ln->str;
	}
	*i = at;
	return &f->it[root];
}

/* Reads entry i of a list read one entry at a time. */
typedef int (*entry_fn)(ld *l, const cJSON *e, size_t i, void *arg);

/* Loads the entries of the list sp one at a time with fn, each parsed,
 * read with its own inexact numbers and freed: 0, -1 on error, -2 when the
 * list must be read from the whole text's tree instead. */
static int load_list_streamed(ld *l, const char *text, const span *sp, entry_fn fn, void *arg)
{
	inexact *root_inexact = l->inexact;
	size_t root_n = l->ninexact, root_cap = l->capinexact, i = 0, pos;
	int ret = -1;
	fj f;
	memset(&f, 0, sizeof(f));
	f.ctx = l->ctx;
	f.dot_is_point = !strcmp(localeconv()->decimal_point, ".");
	l->inexact = NULL, l->ninexact = l->capinexact = 0;
	pos = skip_space(text, sp->end, sp->at + 1);
	while (pos < sp->end - 1) {
		const char *end = NULL;
		const cJSON *e;
		cJSON *owned = NULL; /* the entry cJSON read */
		size_t start = pos;
		if (i == sp->count)
			goto done;
		l->ninexact = 0; /* an entry of the subset has no inexact number */
		if (!(e = fj_parse(&f, text, sp->end - 1, &pos))) {
			if (f.nomem) {
				nomem(l);
				goto done;
			}
			owned = cJSON_ParseWithLengthOpts(text + pos, sp->end - 1 - pos, &end, 0);
			if (!owned || !end) {
				cJSON_Delete(owned);
				goto done;
			}
			e = owned;
			pos = (size_t)(end - text);
			if (sym__json_scan_numbers(l, text + start, pos - start, e, NULL, 0) < 0) {
				cJSON_Delete(owned);
				nomem(l);
				goto done;
			}
		}
		if (fn(l, e, i, arg) < 0) {
			cJSON_Delete(owned);
			goto done;
		}
		cJSON_Delete(owned);
		i++;
		pos = skip_space(text, sp->end, pos);
		if (pos < sp->end - 1 && text[pos] != ',')
			goto done;
		if (pos < sp->end - 1)
			pos = skip_space(text, sp->end, pos + 1);
	}
	if (i == sp->count)
		ret = 0;
done:
	/* the list's span and the entries disagree (a byte the span's scan
	 * reads otherwise than cJSON): -2, the caller reads the nodes from
	 * the whole text's tree instead */
	if (ret < 0 && !sym__failed(l->ctx))
		ret = -2;
	fj_clear(&f);
	sym__free(l->ctx, l->inexact, l->capinexact * sizeof(*l->inexact));
	l->inexact = root_inexact, l->ninexact = root_n, l->capinexact = root_cap;
	return ret;
}

static int node_entry(ld *l, const cJSON *e, size_t i, void *arg)
{
	return load_node(l, e, i, &((sym_mnode *)arg)[i]);
}

typedef struct tensor_list {
	const char *what;
	int is_init;
	sym_mtensor *t;
} tensor_list;

static int tensor_entry(ld *l, const cJSON *e, size_t i, void *arg)
{
	const tensor_list *tl = arg;
	return load_tensor(l, e, LOC_SI("%s[%zu]", tl->what, i), tl->is_init, NULL, &tl->t[i]);
}

/* The tensors of "inputs" or "initializers" (k), from the list top[k] read
 * one entry at a time when there is one, else from the tree root. */
static int load_top_tensors(ld *l, const char *text, const cJSON *root, const span *top, int k, size_t *n,
                            sym_mtensor **out)
{
	tensor_list tl;
	if (!top || !top[k].at)
		return load_tensors(l, field(root, top_keys[k]), top_keys[k], k == TOP_INITS, n, out);
	*n = top[k].count;
	if (!(*out = ld_alloc(l, (*n ? *n : 1) * sizeof(**out))))
		return nomem(l);
	tl.what = top_keys[k], tl.is_init = k == TOP_INITS, tl.t = *out;
	return load_list_streamed(l, text, &top[k], tensor_entry, &tl);
}

/* The model of the tree root (consumed), whose lists top[] are read from
 * the text one entry at a time when top is given.  NULL with *retry set
 * when a list must be read from the whole text's tree instead (a byte its
 * delimiting reads otherwise than cJSON). */
static sym_model *load_model(sym_ctx *ctx, const char *text, size_t len, cJSON *root, const span *top,
                             int *retry)
{
	ld l;
	const cJSON *x, *nodes = NULL;
	const span *skip[NTOPS];
	size_t i, nskip = 0;
	int64_t opset = 18;
	int st = 0, k;
	*retry = 0;
	memset(&l, 0, sizeof(l));
	l.ctx = ctx;
	sym__sbuf_init(&l.at, ctx);
	if (!(l.m = sym__model_new(ctx))) {
		cJSON_Delete(root);
		return NULL;
	}
	/* the lists read apart, in text order */
	for (k = 0; top && k < NTOPS; k++)
		if (top[k].at) {
			size_t j = nskip++;
			for (; j > 0 && skip[j - 1]->at > top[k].at; j--)
				skip[j] = skip[j - 1];
			skip[j] = &top[k];
		}
	if (sym__json_scan_numbers(&l, text, len, root, skip, nskip) < 0)
		goto fail;
	if (!cJSON_IsObject(root)) {
		lerr(&l, "the top level must be an object");
		goto fail;
	}
	x = field(root, "opset");
	if (x && get_int(&l, x, LOC_T("\"opset\""), &opset) < 0)
		goto fail;
	if (opset < 1 || opset > 1000) {
		lerr(&l, "\"opset\" %lld is not a valid opset", (long long)opset);
		goto fail;
	}
	l.m->opset = (int)opset;
	if ((st = load_top_tensors(&l, text, root, top, TOP_INPUTS, &l.m->ninputs, &l.m->inputs)) < 0 ||
	    (st = load_top_tensors(&l, text, root, top, TOP_INITS, &l.m->ninits, &l.m->inits)) < 0)
		goto fail;
	if (!top || !top[TOP_NODES].at) {
		nodes = field(root, "nodes");
		if (!cJSON_IsArray(nodes)) {
			lerr(&l, "missing \"nodes\" (a list)");
			goto fail;
		}
	}
	l.m->nnodes = nodes ? (size_t)cJSON_GetArraySize(nodes) : top[TOP_NODES].count;
	l.m->nodes = ld_alloc(&l, (l.m->nnodes ? l.m->nnodes : 1) * sizeof(*l.m->nodes));
	if (!l.m->nodes) {
		nomem(&l);
		goto fail;
	}
	if (!nodes) {
		if ((st = load_list_streamed(&l, text, &top[TOP_NODES], node_entry, l.m->nodes)) < 0)
			goto fail;
	} else {
		const cJSON *x = nodes->child;
		for (i = 0; i < l.m->nnodes; i++, x = x->next)
			if (load_node(&l, x, i, &l.m->nodes[i]) < 0)
				goto fail;
	}
	x = field(root, "outputs");
	if (!x) {
		lerr(&l, "missing \"outputs\" (a list of tensor names)");
		goto fail;
	}
	if (load_names(&l, x, LOC_T("\"outputs\""), &l.m->noutputs, &l.m->outputs, 0) < 0)
		goto fail;
	if (load_formats(&l, field(root, "formats")) < 0 || sym__model_link(l.m) < 0)
		goto fail;
	loader_clear(&l);
	cJSON_Delete(root);
	return l.m;
fail:
	loader_clear(&l);
	cJSON_Delete(root);
	sym_model_free(l.m);
	*retry = st == -2;
	/* a syntax error anywhere comes first, as when the whole text is parsed
	 * before anything is read */
	if (nskip && !*retry && sym_ctx_last_error(ctx) != SYM_ENOMEM)
		syntax_error(ctx, text, len);
	return NULL;
}

sym_model *sym_model_from_json(sym_ctx *ctx, const char *text, size_t len)
{
	cJSON *root;
	span top[NTOPS];
	sym_model *m;
	int retry;
	if (sym__failed(ctx))
		return NULL;
	root = read_top(text, len, top);
	if (root) {
		m = load_model(ctx, text, len, root, top, &retry);
		if (m || !retry)
			return m;
	}
	/* the tree of the whole text: its lists, or its syntax error */
	root = cJSON_ParseWithLength(text, len);
	if (!root) {
		syntax_error(ctx, text, len);
		return NULL;
	}
	return load_model(ctx, text, len, root, NULL, &retry);
}
