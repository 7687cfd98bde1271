/*
 * cubind-probe's output: strings as JSON (valid UTF-8, the exact bytes beside them when a path is
 * not) and as text (printable UTF-8, every other byte as \xNN), written to standard output. Each
 * section of the report (one file in tools/probe each) writes through these.
 */
#ifndef CUBIND_PROBE_OUTPUT_H
#define CUBIND_PROBE_OUTPUT_H

#include <stdio.h>

/* Where the report goes: standard output's descriptor as it was when the probe started. Descriptor
 * 1 itself is then pointed at standard error (probe_open_report), because a library the probe
 * loads may print to standard output (NVML's link-time stub does) and must not break the report. */
extern FILE *probe_out;
/* Keep the report on a copy of standard output and send descriptor 1 to standard error. */
void probe_open_report(void);
/* One character of the report. */
#define probe_char(c) fputc((c), probe_out)

/* `text` as a JSON string, null for NULL; a byte that is not UTF-8 as U+FFFD. */
void json_string(const char *text);
/* The bytes of `text` in hex as a JSON string when it is not valid UTF-8, else null. */
void json_bytes(const char *text);
/* `,"key":` and `value` as a JSON string (null for NULL). */
void json_member(const char *key, const char *value);
/* A version as {"major":M,"minor":m,"patch":p}: a part that is not known (negative) is null. */
void json_version(int major, int minor, int patch);
/* A version's text ("13.0", "2.28.9") as json_version writes it, its parts that are not there null;
 * null for NULL. */
void json_version_text(const char *text);
/* Printable UTF-8 as it is; control characters (C0, DEL, C1) and bytes that are not UTF-8 as \xNN. */
void text_string(const char *text);
/* The same to `to` (standard error: a name from the command line cannot colour the terminal either). */
void text_escaped(FILE *to, const char *text);

#endif
