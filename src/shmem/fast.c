/* The library's default-context contiguous RMA and AMO routines: the
 * definitions of include/aos/shmem_inline.h, compiled here as exported
 * functions, so that programs calling them (SHMEM_NO_INLINE, compilers
 * without GNU C, function pointers taken elsewhere) run the code that
 * programs inline. The context forms are in rma.c and amo.c. */
#define SHMEM__FAST_DEFINE 1
#include "shmem/shmem_internal.h"
