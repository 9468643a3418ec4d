/*
 * twintorus: how the public headers declare the library's interface.
 *
 * Every public header puts its declarations between TT_BEGIN_DECLS and
 * TT_END_DECLS: C linkage for C++ programs, and default visibility, since
 * the library is built with -fvisibility=hidden so that only what the
 * headers declare is exported from libtwintorus.so.
 */
#ifndef TWINTORUS_API_H
#define TWINTORUS_API_H

#ifdef __cplusplus
#define TT_BEGIN_DECLS extern "C" { _Pragma("GCC visibility push(default)")
#define TT_END_DECLS   _Pragma("GCC visibility pop") }
#else
#define TT_BEGIN_DECLS _Pragma("GCC visibility push(default)")
#define TT_END_DECLS   _Pragma("GCC visibility pop")
#endif

#endif
