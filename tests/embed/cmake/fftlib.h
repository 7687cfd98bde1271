/* fftlib.h - a static library of the user's that calls cuFFT through an embedded cubind */
#ifndef FFTLIB_H
#define FFTLIB_H

/* cuFFT's version, or -1 with the reason in *message (cubind's error record) */
int fftlib_cufft_version(const char **message);

#endif
