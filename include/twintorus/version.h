/*
 * twintorus: the version, in one place.  The Makefile reads it from here
 * for the shared library's file name and the pkg-config file; ttsim and
 * ttd print it for --version.
 */
#ifndef TWINTORUS_VERSION_H
#define TWINTORUS_VERSION_H

#define TT_VERSION "0.1.0"

#endif
