/* Put and get below the argument checks, for other parts of aos that have
 * already resolved and checked the remote side (notified access). */
#ifndef AOS_RMA_H
#define AOS_RMA_H

#include <stddef.h>
#include <stdint.h>

#include "aos.h"

/* A transfer with [off, off+len) of pe's arena, already bounds-checked;
 * refuses only a self-transfer onto the same bytes (AOS_ERR_OVERLAP). */
int aos__put_at(int pe, uint64_t off, const void *src, size_t len, aos_event_t *ev);
int aos__get_at(void *dst, int pe, uint64_t off, size_t len, aos_event_t *ev);

/* Transfers with my own memory must not copy a range onto itself:
 * AOS_ERR_OVERLAP when pe is me and [off, off+len) of my arena meets
 * [local, local+len). */
int aos__check_self_overlap(int pe, uint64_t off, const void *local, size_t len);

#endif
