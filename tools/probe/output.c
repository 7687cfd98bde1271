/* cubind-probe's output helpers (output.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <unistd.h>

#include "output.h"
#include "strbuf.h" /* the loader's UTF-8 decoder (loader/strbuf.c is built into the probe) */

FILE *probe_out;

void probe_open_report(void)
{
    int fd = dup(STDOUT_FILENO);
    FILE *report = fd >= 0 ? fdopen(fd, "w") : NULL;
    probe_out = stdout;
    if (report == NULL) {
        if (fd >= 0)
            close(fd);
        return; /* no descriptor to spare: the report shares standard output */
    }
    fflush(stdout);
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        fclose(report);
        return;
    }
    probe_out = report;
}

static int valid_utf8(const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t n;
    for (; *p != '\0'; p += n)
        if ((n = cubind__utf8_length(p)) == 0)
            return 0;
    return 1;
}

void json_string(const char *text)
{
    const unsigned char *p;
    size_t n;
    if (text == NULL) {
        fputs("null", probe_out);
        return;
    }
    probe_char('"');
    for (p = (const unsigned char *)text; *p != '\0'; p += n) {
        n = cubind__utf8_length(p);
        if (n == 0) {
            fputs("\\ufffd", probe_out); /* not UTF-8: the exact bytes are in "*_bytes" */
            n = 1;
        } else if (*p == '"' || *p == '\\')
            fprintf(probe_out, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(probe_out, "\\u%04x", *p);
        else
            fwrite(p, 1, n, probe_out);
    }
    probe_char('"');
}

/* The bytes of `text` in hex when it is not valid UTF-8, else null. */
void json_bytes(const char *text)
{
    const unsigned char *p;
    if (text == NULL || valid_utf8(text)) {
        fputs("null", probe_out);
        return;
    }
    probe_char('"');
    for (p = (const unsigned char *)text; *p != '\0'; ++p)
        fprintf(probe_out, "%02x", *p);
    probe_char('"');
}

void text_escaped(FILE *to, const char *text)
{
    const unsigned char *p;
    size_t n;
    for (p = (const unsigned char *)(text != NULL ? text : ""); *p != '\0'; p += n) {
        n = cubind__utf8_length(p);
        if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f)) || (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
            size_t i, count = n == 0 ? 1 : n;
            for (i = 0; i < count; ++i)
                fprintf(to, "\\x%02x", p[i]);
            n = count;
        } else
            fwrite(p, 1, n, to);
    }
}

void text_string(const char *text)
{
    text_escaped(probe_out, text);
}

/* `,"key":` and `value` as a JSON string (null for NULL) */
void json_member(const char *key, const char *value)
{
    fprintf(probe_out, ",\"%s\":", key);
    json_string(value);
}

static void json_part(const char *key, int value)
{
    if (value < 0)
        fprintf(probe_out, "\"%s\":null", key);
    else
        fprintf(probe_out, "\"%s\":%d", key, value);
}

void json_version(int major, int minor, int patch)
{
    probe_char('{');
    json_part("major", major);
    probe_char(',');
    json_part("minor", minor < 0 || major < 0 ? -1 : minor);
    probe_char(',');
    json_part("patch", patch < 0 || minor < 0 || major < 0 ? -1 : patch);
    probe_char('}');
}

void json_version_text(const char *text)
{
    int part[3] = {-1, -1, -1}, n = 0;
    const char *p = text;
    if (text == NULL) {
        fputs("null", probe_out);
        return;
    }
    while (p != NULL && n < 3 && *p >= '0' && *p <= '9') {
        part[n] = 0;
        while (*p >= '0' && *p <= '9') {
            if (part[n] < 100000000)
                part[n] = part[n] * 10 + (*p - '0');
            ++p;
        }
        ++n;
        p = *p == '.' ? p + 1 : NULL;
    }
    json_version(part[0], part[1], part[2]);
}
