#ifndef LIVERY_CZLIB_SHIM_H
#define LIVERY_CZLIB_SHIM_H
#include <zlib.h>

/// `deflateInit2` is a macro; Swift cannot call macros, so wrap it.
static inline int livery_deflateInit2(z_streamp strm, int level, int method, int windowBits, int memLevel, int strategy) {
    return deflateInit2(strm, level, method, windowBits, memLevel, strategy);
}

/// `inflateInit2` is a macro too.
static inline int livery_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
#endif
