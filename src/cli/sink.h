/* An output held in memory until it is whole, then written at once: infer
 * writes its result only when every expression in it could be printed.
 * Short pieces are copied into chunks that are never moved or regrown;
 * long texts that their owner keeps until the write (the printed forms of
 * the memo, a result's merge keys) are referenced where they lie, so a
 * result of many megabytes is made without copying its long texts.  The
 * output is a list of pieces: runs of copied bytes and referenced texts. */
#ifndef SYM_CLI_SINK_H
#define SYM_CLI_SINK_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct cli_piece {
	const char *p;
	size_t n;
} cli_piece;

typedef struct cli_chunk cli_chunk;

typedef struct cli_sink {
	cli_chunk *chunks; /* the chunk being filled first; each links to the one before */
	char *run;         /* where the bytes copied since the last piece start */
	char *end;         /* the first free byte of the first chunk */
	size_t room;       /* free bytes after end */
	cli_piece *v;      /* the output before run, in order */
	size_t nv, capv;
	int fail;     /* memory ran out: the output is incomplete */
	FILE *direct; /* a sink that writes straight through to this stream */
} cli_sink;

void cli_sink_init(cli_sink *s);
/* A sink that holds nothing: every piece goes straight to f (an output
 * that may be written as it is made). */
void cli_sink_init_file(cli_sink *s, FILE *f);
/* Frees the chunks and the pieces (not the referenced texts). */
void cli_sink_free(cli_sink *s);
/* cli_sink_put when the n bytes do not fit the chunk (or the sink writes
 * through). */
void cli_sink_put_slow(cli_sink *s, const char *p, size_t n);
/* Appends the string t, which its owner keeps unchanged until the sink is
 * written or freed: a long one is referenced, not copied. */
void cli_sink_keep(cli_sink *s, const char *t);
/* Appends the printf-formatted text. */
void cli_sink_printf(cli_sink *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Appends a copy of the n bytes at p: into the chunk being filled, in
 * place, as most pieces of a result are a few bytes. */
static inline void cli_sink_put(cli_sink *s, const char *p, size_t n)
{
	if (n && n <= s->room) {
		memcpy(s->end, p, n);
		s->end += n;
		s->room -= n;
		return;
	}
	cli_sink_put_slow(s, p, n);
}

/* Appends a copy of the string t. */
static inline void cli_sink_puts(cli_sink *s, const char *t)
{
	cli_sink_put(s, t, strlen(t));
}

/* Appends the byte c. */
static inline void cli_sink_putc(cli_sink *s, char c)
{
	if (s->room) {
		*s->end++ = c;
		s->room--;
		return;
	}
	cli_sink_put_slow(s, &c, 1);
}

/* Writes the output to f (nothing for a sink of cli_sink_init_file); 0, or
 * -1 when memory ran out while it was made: nothing is written then.  A
 * failed write leaves f's error set, as fwrite does. */
int cli_sink_write(cli_sink *s, FILE *f);

#endif
