/* The arithmetic of reductions: one element-wise kernel per (type, op). */
#ifndef AOS_COLL_REDUCE_OPS_H
#define AOS_COLL_REDUCE_OPS_H

#include <stddef.h>

#include "aos.h"

/* Bytes a reduction folds at a time, in an accumulator that stays in the
 * L1 cache (reduce.c; aos-probe times folds the same way). */
#define AOS__FOLD_CHUNK 8192

/* AOS_OK when op applies to type, else AOS_ERR_INVALID. */
int aos__reduce_check(aos_type_t type, aos_op_t op);
/* acc[i] = acc[i] op in[i] for count elements (checked pair). */
void aos__reduce_fold(void *acc, const void *in, size_t count, aos_type_t type, aos_op_t op);

#endif
