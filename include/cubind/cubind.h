/*
 * cubind/cubind.h - everything: cubind's core API (cubind/core.h: libraries, errors, the loader,
 * versions) and every generated module header (cubind/modules.h: cuBLAS, cuBLASLt, cuFFT,
 * cuRAND, cuSOLVER Dn/Sp/Rf/Mg, cuSPARSE, the runtime, the driver, NVRTC, nvJitLink, NCCL,
 * cuDNN). A program that uses a few libraries may include their module headers instead, each
 * of which includes the core API (docs/headers.md).
 */
#ifndef CUBIND_CUBIND_H
#define CUBIND_CUBIND_H

/* A system header, as every cubind header (cubind/platform.h says why). */
#if (defined(__GNUC__) || defined(__clang__)) && __INCLUDE_LEVEL__ > 0 && !defined(CUBIND_HEADER_WARNINGS)
#pragma GCC system_header
#endif

#include "cubind/core.h"
#include "cubind/machine.h"
#include "cubind/modules.h"
#include "cubind/copies.h"

#endif /* CUBIND_CUBIND_H */
