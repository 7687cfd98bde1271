/* loader/strbuf.c - growable strings for loader messages. */
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

void cubind__strbuf_escaped(cubind__strbuf *buf, const char *text)
{
    const unsigned char *p;
    for (p = (const unsigned char *)text; *p != '\0'; ++p) {
        if (*p >= 0x20 && *p < 0x7f && *p != '\\')
            cubind__strbuf_printf(buf, "%c", *p);
        else
            cubind__strbuf_printf(buf, "\\x%02x", *p);
    }
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
