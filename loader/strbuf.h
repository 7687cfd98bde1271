/*
 * loader/strbuf.h - a growable, always NUL-terminated string for messages
 * whose length the loader cannot bound (lists of tried paths). Layer 1: includes no loader header.
 */
#ifndef CUBIND_LOADER_STRBUF_H
#define CUBIND_LOADER_STRBUF_H

#include <stddef.h>

typedef struct cubind__strbuf {
    char *data;   /* NULL until the first append; "" is returned for it by cubind__strbuf_str */
    size_t length;
    size_t capacity;
    int failed;   /* an allocation failed; the text is cut short */
} cubind__strbuf;

#if defined(__GNUC__) || defined(__clang__)
#define CUBIND_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CUBIND_PRINTF(fmt, args)
#endif

void cubind__strbuf_printf(cubind__strbuf *buf, const char *format, ...) CUBIND_PRINTF(2, 3);
/* Append `text` with control characters, '\\' and bytes that are not valid UTF-8 written as
 * \xNN; valid UTF-8 is kept (paths and system messages may hold any byte). */
void cubind__strbuf_escaped(cubind__strbuf *buf, const char *text);
/* Length of the valid UTF-8 sequence at `p` (1 to 4), 0 when the bytes there are not one. */
size_t cubind__utf8_length(const unsigned char *p);
/* The same when it is a printable character: 0 also for C0 and C1 control characters and DEL. */
size_t cubind__printable_length(const unsigned char *p);
/* A copy of `text` escaped as cubind__strbuf_escaped does (malloc), or NULL when out of memory. */
char *cubind__escaped_copy(const char *text);
const char *cubind__strbuf_str(const cubind__strbuf *buf);
/* Hand the text over (caller frees); the buffer is empty afterwards. */
char *cubind__strbuf_take(cubind__strbuf *buf);
void cubind__strbuf_free(cubind__strbuf *buf);

#endif /* CUBIND_LOADER_STRBUF_H */
