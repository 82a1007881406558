/* Memory of the handles aos gives out (segments, queues, events, mailboxes,
 * portals, syncs, notification requests). A handle's free clears its magic
 * and passes it here, where it waits out the next AOS__HANDLE_QUARANTINE
 * frees before its memory goes back to malloc. So for that long a stale or
 * double-freed handle reads a dead magic (AOS_ERR_INVALID) rather than
 * freed memory, and a new handle never takes a recently freed one's
 * address, so a stale handle cannot pass for the new one. */
#ifndef AOS_CORE_HANDLE_H
#define AOS_CORE_HANDLE_H

#include <stddef.h>

#define AOS__HANDLE_QUARANTINE 4096

/* Zeroed memory for a handle, or NULL. */
void *aos__handle_alloc(size_t size);
/* h's magic is already cleared; NULL is ignored. */
void aos__handle_free(void *h);

#endif
