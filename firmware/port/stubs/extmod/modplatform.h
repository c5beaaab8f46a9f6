// The sdist has no extmod/: py/modsys.c only needs these two names from it.
#define MICROPY_PLATFORM_COMPILER "gcc"
#define MICROPY_PLATFORM_ARCH "arm"
