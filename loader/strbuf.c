/*
 * loader/strbuf.c - growable strings for loader messages, and the escaping of bytes that are not
 * printable UTF-8. Layer 1: calls libc only (tools/probe/output.c builds this file in too).
 */
#define _GNU_SOURCE
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(cubind__strbuf *buf, size_t extra)
{
    size_t need;
    char *grown;
    if (buf->failed)
        return -1;
    need = buf->length + extra + 1;
    if (need <= buf->capacity)
        return 0;
    if (need < 2 * buf->capacity)
        need = 2 * buf->capacity;
    grown = realloc(buf->data, need);
    if (grown == NULL) {
        buf->failed = 1;
        return -1;
    }
    buf->data = grown;
    buf->capacity = need;
    return 0;
}

void cubind__strbuf_printf(cubind__strbuf *buf, const char *format, ...)
{
    va_list args;
    int n;
    va_start(args, format);
    n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (n < 0 || reserve(buf, (size_t)n) != 0)
        return;
    va_start(args, format);
    vsnprintf(buf->data + buf->length, (size_t)n + 1, format, args);
    va_end(args);
    buf->length += (size_t)n;
}

/* Length of the valid UTF-8 sequence at `p` (1 to 4), 0 when the bytes there are not one
 * (overlong forms, surrogates and code points past U+10FFFF are invalid). `p` is NUL-terminated. */
size_t cubind__utf8_length(const unsigned char *p)
{
    unsigned c = p[0];
    size_t n, i;
    unsigned long cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    for (i = 1; i < n; ++i) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

size_t cubind__printable_length(const unsigned char *p)
{
    size_t n = cubind__utf8_length(p);
    if (n == 1 && (*p < 0x20 || *p == 0x7f))
        return 0;
    if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) /* C1 controls, U+0080 to U+009F (CSI among them) */
        return 0;
    return n;
}

/* A run of printable characters at a time (one append a run, not one a character). */
void cubind__strbuf_escaped(cubind__strbuf *buf, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    while (*p != '\0') {
        const unsigned char *run = p;
        size_t n;
        while (*p != '\\' && (n = cubind__printable_length(p)) > 0)
            p += n;
        if (p > run)
            cubind__strbuf_printf(buf, "%.*s", (int)(p - run), (const char *)run);
        if (*p != '\0') {
            cubind__strbuf_printf(buf, "\\x%02x", *p);
            ++p;
        }
    }
}

char *cubind__escaped_copy(const char *text)
{
    cubind__strbuf escaped = {0};
    const unsigned char *p;
    for (p = (const unsigned char *)text; *p >= 0x20 && *p < 0x7f && *p != '\\'; ++p)
        ;
    if (*p == '\0') /* printable ASCII: nothing to escape */
        return strdup(text);
    cubind__strbuf_escaped(&escaped, text);
    return escaped.failed ? (cubind__strbuf_free(&escaped), (char *)NULL) : cubind__strbuf_take(&escaped);
}

const char *cubind__strbuf_str(const cubind__strbuf *buf)
{
    return buf->data != NULL ? buf->data : "";
}

char *cubind__strbuf_take(cubind__strbuf *buf)
{
    char *text = buf->data;
    if (text == NULL) {
        text = malloc(1);
        if (text != NULL)
            text[0] = '\0';
    }
    buf->data = NULL;
    buf->length = buf->capacity = 0;
    buf->failed = 0;
    return text;
}

void cubind__strbuf_free(cubind__strbuf *buf)
{
    free(buf->data);
    buf->data = NULL;
    buf->length = buf->capacity = 0;
    buf->failed = 0;
}
