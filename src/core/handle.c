#include "core/handle.h"

#include <pthread.h>
#include <stdlib.h>

/* Freed handles, oldest at `next` once the ring is full. */
static struct {
    pthread_mutex_t lock;
    void *ring[AOS__HANDLE_QUARANTINE];
    size_t next;
} Q = {.lock = PTHREAD_MUTEX_INITIALIZER};

void *aos__handle_alloc(size_t size)
{
    return calloc(1, size);
}

void aos__handle_free(void *h)
{
    if (h == NULL)
        return;
    pthread_mutex_lock(&Q.lock);
    void *oldest = Q.ring[Q.next];
    Q.ring[Q.next] = h;
    Q.next = (Q.next + 1) % AOS__HANDLE_QUARANTINE;
    pthread_mutex_unlock(&Q.lock);
    free(oldest);
}
