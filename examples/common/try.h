/* TRY(call): for example and benchmark programs, where any aos error ends
 * the run: prints the call, the PE and the status text, then exits 1. */
#ifndef AOS_EXAMPLES_TRY_H
#define AOS_EXAMPLES_TRY_H

#include <stdio.h>
#include <stdlib.h>

#include <aos.h>

#define TRY(call)                                                                          \
    do {                                                                                   \
        int try_rc_ = (call);                                                              \
        if (try_rc_ != AOS_OK) {                                                           \
            fprintf(stderr, "PE %d: %s: %s\n", aos_my_pe(), #call, aos_strerror(try_rc_)); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

#endif
