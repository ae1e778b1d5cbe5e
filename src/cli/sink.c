/* The command line's output held in memory (sink.h). */
#include "sink.h"

#include <stdarg.h>
#include <stdlib.h>

struct cli_chunk {
	cli_chunk *prev;
	size_t size;
	char bytes[];
};

#define CHUNK_FIRST ((size_t)1 << 12)
#define CHUNK_MAX ((size_t)1 << 20)
/* Texts at least this long are referenced by cli_sink_keep, not copied. */
#define KEEP_MIN 256

void cli_sink_init(cli_sink *s)
{
	memset(s, 0, sizeof(*s));
}

void cli_sink_init_file(cli_sink *s, FILE *f)
{
	memset(s, 0, sizeof(*s));
	s->direct = f;
}

void cli_sink_free(cli_sink *s)
{
	cli_chunk *c = s->chunks, *prev;
	for (; c; c = prev) {
		prev = c->prev;
		free(c);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* Appends the piece {p, n}. */
static void sink_piece(cli_sink *s, const char *p, size_t n)
{
	if (!n || s->fail)
		return;
	if (s->nv == s->capv) {
		size_t cap = s->capv ? s->capv * 2 : 64;
		cli_piece *v = realloc(s->v, cap * sizeof(*v));
		if (!v) {
			s->fail = 1;
			return;
		}
		s->v = v;
		s->capv = cap;
	}
	s->v[s->nv].p = p;
	s->v[s->nv].n = n;
	s->nv++;
}

/* Ends the run of bytes copied since the last piece: it becomes a piece. */
static void close_run(cli_sink *s)
{
	if (s->run && s->end > s->run)
		sink_piece(s, s->run, (size_t)(s->end - s->run));
	s->run = s->end;
}

/* Starts a chunk with room for n bytes at least (the bytes of the one
 * being filled stay where they are); 0 or -1. */
static int new_chunk(cli_sink *s, size_t n)
{
	size_t size = CHUNK_FIRST;
	cli_chunk *c;
	if (s->fail)
		return -1;
	close_run(s);
	/* chunks double up to CHUNK_MAX, so a short output allocates little
	 * and a long one few times */
	if (s->chunks)
		size = s->chunks->size < CHUNK_MAX ? s->chunks->size * 2 : CHUNK_MAX;
	if (size < n)
		size = n;
	if (!(c = malloc(sizeof(*c) + size)))
		return s->fail = 1, -1;
	c->prev = s->chunks;
	c->size = size;
	s->chunks = c;
	s->run = s->end = c->bytes;
	s->room = size;
	return 0;
}

void cli_sink_put_slow(cli_sink *s, const char *p, size_t n)
{
	if (s->direct) {
		fwrite(p, 1, n, s->direct);
		return;
	}
	if (!n || new_chunk(s, n) < 0)
		return;
	memcpy(s->end, p, n);
	s->end += n;
	s->room -= n;
}

void cli_sink_keep(cli_sink *s, const char *t)
{
	size_t n = strlen(t);
	if (n < KEEP_MIN || s->direct) {
		cli_sink_put(s, t, n);
		return;
	}
	close_run(s);
	sink_piece(s, t, n);
}

void cli_sink_printf(cli_sink *s, const char *fmt, ...)
{
	va_list ap;
	int n;
	if (s->direct) {
		va_start(ap, fmt);
		vfprintf(s->direct, fmt, ap);
		va_end(ap);
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(s->end, s->room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		s->fail = 1;
		return;
	}
	if ((size_t)n >= s->room) {
		/* it did not fit: again into a chunk with room for it and its
		 * terminating zero */
		if (new_chunk(s, (size_t)n + 1) < 0)
			return;
		va_start(ap, fmt);
		vsnprintf(s->end, s->room, fmt, ap);
		va_end(ap);
	}
	s->end += n;
	s->room -= (size_t)n;
}

int cli_sink_write(cli_sink *s, FILE *f)
{
	size_t i;
	close_run(s);
	if (s->fail)
		return -1;
	for (i = 0; i < s->nv; i++)
		if (fwrite(s->v[i].p, 1, s->v[i].n, f) != s->v[i].n)
			break;
	return 0;
}
