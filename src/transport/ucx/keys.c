/* Memory registration and remote keys.
 *
 * My arena is registered in pieces: the fixed part [0, heap_off) (header,
 * team slots, notification lanes, key table, static data) at start, and the
 * rest, heap and segment space, one AOS__KEY_GRANULE at a time when the
 * memory layer exposes a range (the heap as it grows, a segment when it is
 * created). The 32 GiB reservations are never registered whole, so a NIC
 * that pins what it registers pins only what is in use.
 *
 * Each granule's packed key goes into my arena's key table
 * (core/layout.h), which peers read with a get when they first touch that
 * granule: reaching a new segment needs nothing of its owner. The fixed
 * part's key travels with the address exchange. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "core/layout.h"
#include "core/runtime.h"
#include "transport/ucx/ucx.h"

#define U aos__ucx

static int map_range(uint64_t off, uint64_t len, ucp_mem_h *mem)
{
    ucp_mem_map_params_t p = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
        .address = aos__rt.my_base + off,
        .length = len,
    };
    return aos__ucx_status(ucp_mem_map(U.context, &p, mem), "registering memory", aos__rt.me);
}

int aos__ucx_keys_start(void *packed_fixed[1], size_t *packed_len)
{
    U.granules = (aos__rt.arena_size - aos__rt.heap_off + AOS__KEY_GRANULE - 1) /
                 AOS__KEY_GRANULE;
    U.granule_mem = calloc(U.granules, sizeof *U.granule_mem);
    if (U.granule_mem == NULL)
        return AOS_ERR_NO_MEMORY;
    pthread_mutex_init(&U.expose_lock, NULL);
    int rc = map_range(0, aos__rt.heap_off, &U.fixed_mem);
    if (rc != AOS_OK)
        goto fail_array;
    rc = aos__ucx_status(ucp_rkey_pack(U.context, U.fixed_mem, packed_fixed, packed_len),
                         "packing a remote key", aos__rt.me);
    if (rc != AOS_OK)
        goto fail_map;
    return AOS_OK;

fail_map:
    ucp_mem_unmap(U.context, U.fixed_mem);
    U.fixed_mem = NULL;
fail_array:
    pthread_mutex_destroy(&U.expose_lock);
    free(U.granule_mem);
    U.granule_mem = NULL;
    return rc;
}

void aos__ucx_keys_stop(void)
{
    for (int pe = 0; pe < aos__rt.npes; pe++) {
        struct aos__ucx_peer *p = &U.peers[pe];
        if (p->granules != NULL)
            for (size_t g = 0; g < U.granules; g++)
                if (p->granules[g] != NULL)
                    ucp_rkey_destroy(p->granules[g]);
        free(p->granules);
        p->granules = NULL;
        if (p->fixed != NULL)
            ucp_rkey_destroy(p->fixed);
        p->fixed = NULL;
    }
    if (U.granule_mem != NULL) {
        for (size_t g = 0; g < U.granules; g++)
            if (U.granule_mem[g] != NULL)
                ucp_mem_unmap(U.context, U.granule_mem[g]);
        free(U.granule_mem);
        U.granule_mem = NULL;
        pthread_mutex_destroy(&U.expose_lock);
    }
    if (U.fixed_mem != NULL)
        ucp_mem_unmap(U.context, U.fixed_mem);
    U.fixed_mem = NULL;
}

static struct aos__key_entry *my_entry(size_t index)
{
    return (struct aos__key_entry *)(void *)(aos__rt.my_base + aos__rt.keys_off +
                                             index * AOS__KEY_ENTRY_SIZE);
}

/* Registers granule g and publishes its key. Under expose_lock. */
static int expose_granule(size_t g)
{
    uint64_t off = aos__rt.heap_off + g * AOS__KEY_GRANULE;
    uint64_t len = aos__rt.arena_size - off < AOS__KEY_GRANULE ? aos__rt.arena_size - off
                                                                : AOS__KEY_GRANULE;
    ucp_mem_h mem;
    int rc = map_range(off, len, &mem);
    if (rc != AOS_OK)
        return rc;
    void *packed;
    size_t packed_len;
    rc = aos__ucx_status(ucp_rkey_pack(U.context, mem, &packed, &packed_len),
                         "packing a remote key", aos__rt.me);
    if (rc != AOS_OK)
        goto fail_map;
    struct aos__key_entry *e = my_entry(1 + g);
    if (packed_len > sizeof e->rkey) {
        fprintf(stderr, "aos: PE %d: UCX remote key of %zu bytes does not fit the key table\n",
                aos__rt.me, packed_len);
        rc = AOS_ERR_NETWORK;
        goto fail_packed;
    }
    memcpy(e->rkey, packed, packed_len);
    e->len = (uint32_t)packed_len;
    ucp_rkey_buffer_release(packed);
    /* Release: pairs with the peer's check of state after its get of the
     * entry (lookup below): the key bytes are written first. */
    aos__store_release(&e->state, 1);
    U.granule_mem[g] = mem;
    return AOS_OK;

fail_packed:
    ucp_rkey_buffer_release(packed);
fail_map:
    ucp_mem_unmap(U.context, mem);
    return rc;
}

int aos__ucx_expose(uint64_t off, uint64_t len)
{
    if (off + len <= aos__rt.heap_off)
        return AOS_OK; /* the fixed part is registered from the start */
    if (off < aos__rt.heap_off) {
        len -= aos__rt.heap_off - off;
        off = aos__rt.heap_off;
    }
    size_t first = (off - aos__rt.heap_off) / AOS__KEY_GRANULE;
    size_t last = (off + len - 1 - aos__rt.heap_off) / AOS__KEY_GRANULE;
    int rc = AOS_OK;
    pthread_mutex_lock(&U.expose_lock);
    for (size_t g = first; g <= last && g < U.granules && rc == AOS_OK; g++)
        if (U.granule_mem[g] == NULL)
            rc = expose_granule(g);
    pthread_mutex_unlock(&U.expose_lock);
    return rc;
}

/* Reads pe's key table entry for granule g and unpacks it. Under key_lock. */
static int fetch_granule_key(int pe, size_t g, ucp_rkey_h *out)
{
    struct aos__ucx_peer *p = &U.peers[pe];
    struct aos__key_entry e;
    uint64_t entry_off = aos__rt.keys_off + (1 + g) * AOS__KEY_ENTRY_SIZE;
    ucp_request_param_t none = {0};
    int rc = aos__ucx_wait(ucp_get_nbx(p->ep, &e, sizeof e, p->base + entry_off, p->fixed, &none),
                           "reading a remote key", pe);
    if (rc != AOS_OK)
        return rc;
    if (e.state != 1 || e.len == 0 || e.len > sizeof e.rkey)
        return AOS_ERR_BOUNDS; /* nothing there was ever allocated */
    return aos__ucx_status(ucp_ep_rkey_unpack(p->ep, e.rkey, out), "unpacking a remote key", pe);
}

int aos__ucx_remote(int pe, uint64_t off, size_t *len, ucp_rkey_h *rkey, uint64_t *raddr)
{
    struct aos__ucx_peer *p = &U.peers[pe];
    *raddr = p->base + off;
    if (off < aos__rt.heap_off) {
        if (*len > aos__rt.heap_off - off)
            *len = aos__rt.heap_off - off;
        *rkey = p->fixed;
        return AOS_OK;
    }
    size_t g = (off - aos__rt.heap_off) / AOS__KEY_GRANULE;
    uint64_t end = aos__rt.heap_off + (g + 1) * AOS__KEY_GRANULE;
    if (*len > end - off)
        *len = end - off;
    /* Acquire: pairs with the release below; the unpacked key is whole. */
    ucp_rkey_h *keys = aos__load_acquire(&p->granules);
    ucp_rkey_h k = keys != NULL ? aos__load_acquire(&keys[g]) : NULL;
    if (k != NULL) {
        *rkey = k;
        return AOS_OK;
    }
    int rc = AOS_OK;
    pthread_mutex_lock(&U.key_lock);
    if (p->granules == NULL) {
        ucp_rkey_h *fresh = calloc(U.granules, sizeof *fresh);
        if (fresh == NULL)
            rc = AOS_ERR_NO_MEMORY;
        else
            aos__store_release(&p->granules, fresh); /* pairs with the acquire above */
    }
    if (rc == AOS_OK && (k = p->granules[g]) == NULL) {
        rc = fetch_granule_key(pe, g, &k);
        if (rc == AOS_OK)
            aos__store_release(&p->granules[g], k); /* pairs with the acquire above */
    }
    pthread_mutex_unlock(&U.key_lock);
    if (rc == AOS_OK)
        *rkey = k;
    return rc;
}
