/*
 * cubind-probe --all: every copy of every library (cubind/copies.h), in text and as the JSON
 * member "copies"; --cuda-path DIR searches DIR first.
 */
#ifndef CUBIND_PROBE_COPIES_H
#define CUBIND_PROBE_COPIES_H

/* --cuda-path DIR: DIR becomes $CUDA_PATH, which discovery searches before the ld.so cache, the
 * system directories and $CUDA_HOME (docs/loader.md; after the wheels and conda when the Python
 * switch is on); -1 (with the reason on stderr) when DIR is
 * not an absolute path to a directory. */
int copies_use_cuda_path(const char *dir);

#endif
