/* Wire format between aosrun and its PEs over the socketpair whose fd aosrun
 * passes in AOS_BOOT_FD. Shared by src/core/bootstrap.c and tools/aosrun.
 *
 *  PE -> aosrun: one aos__boot_hello carrying the PE's arena memfd (SCM_RIGHTS).
 *  PE -> aosrun: at aos_finalize, a hello with arena_size 0 ("bye"), so that
 *                aosrun can tell a PE that exits without finalizing.
 *  PE -> aosrun: at aos_global_exit, a hello with magic AOS__BOOT_EXIT_MAGIC
 *                and the exit status in static_len: aosrun stops every PE
 *                and exits with that status.
 *  aosrun -> PE: npes aos__boot_peer messages, in rank order, each carrying
 *                that peer's arena memfd, or no descriptor when the peer runs
 *                on another host (its `node` differs). The launcher sends
 *                them only when every PE has said hello.
 *  PE -> aosrun: an all-gather of blobs (network addresses and keys): a hello
 *                with magic AOS__BOOT_BLOB_MAGIC and the blob's length in
 *                static_len (at most AOS__BOOT_BLOB_MAX), then the blob.
 *  aosrun -> PE: once every PE has sent its blob of that round, npes times
 *                (in rank order) the same header with that PE's length, then
 *                its blob. Rounds follow each other in the order PEs call. */
#ifndef AOS_CORE_BOOT_PROTO_H
#define AOS_CORE_BOOT_PROTO_H

#include <stdint.h>

#define AOS__BOOT_MAGIC 0x616f73424f4f5431ull /* "aosBOOT1" */
#define AOS__BOOT_EXIT_MAGIC 0x616f73455849543full /* "aosEXIT?" */
#define AOS__BOOT_BLOB_MAGIC 0x616f73424c4f4221ull /* "aosBLOB!" */
#define AOS__BOOT_BLOB_MAX (1u << 20)

struct aos__boot_hello {
    uint64_t magic;
    uint32_t rank;
    uint32_t pid;
    uint64_t arena_size;
    uint64_t static_len;
    uint64_t heap_off;
    uint64_t heap_size;
    uint64_t machine; /* the kernel it runs under (aos__boot_machine_id), 0 unknown */
};

struct aos__boot_peer {
    struct aos__boot_hello hello; /* as the peer sent it */
    int32_t cluster;              /* last-level-cache domain aosrun bound it to, -1 unknown */
    int32_t node;                 /* the host it runs on, 0 .. hosts-1 */
};

/* Environment variables aosrun sets for each PE. */
#define AOS__ENV_BOOT_FD "AOS_BOOT_FD"
#define AOS__ENV_RANK "AOS_RANK"
#define AOS__ENV_NPES "AOS_NPES"

#endif
