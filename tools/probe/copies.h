/*
 * cubind-probe --all: every copy of every library (cubind/copies.h), in text and as the JSON
 * member "copies"; --cuda-path DIR searches DIR first.
 */
#ifndef CUBIND_PROBE_COPIES_H
#define CUBIND_PROBE_COPIES_H

/* The section, after the libraries' (text), or `,"copies":[...]` inside the report's object (JSON).
 * `cuda_path` is --cuda-path's directory or NULL. Returns 0, or -1 when the copies could not be
 * listed (the reason written in the report). */
int copies_text(const char *cuda_path);
/* --cuda-path DIR: DIR becomes $CUDA_PATH, which discovery searches before the ld.so cache, the
 * system directories and $CUDA_HOME (docs/loader.md); -1 (with the reason on stderr) when DIR is
 * not an absolute path to a directory. */
int copies_use_cuda_path(const char *dir);
int copies_json(const char *cuda_path);

#endif
