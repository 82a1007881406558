/* A PE for aosrun's tests that speaks the bootstrap protocol itself
 * (core/boot_proto.h) and then never reads its socket: it says hello with
 * a memory descriptor, sends the largest all-gather blob there may be, and
 * sleeps. aosrun's answer to that blob (1 MiB) is more than the socket
 * holds, so an aosrun that waited for the PE to take it would wait until
 * the PE ends, deaf to --timeout and to signals. With BLOBS > 1 it sends that many blobs, each
 * before it has read the answer to the last, as no aos PE does.
 * usage: aosrun -n 1 deaf_pe [SECONDS [BLOBS]]
 *
 * deaf_pe slow: reads the exchange slowly instead (100 ms per entry,
 * closing the descriptors it gets), then says bye and ends: aosrun must
 * wait, not fail, when the descriptors it has in flight reach its limit
 * (ETOOMANYREFS, for a sender that is not root). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/boot_proto.h"
#include "core/fdpass.h"

#define ARENA_BYTES (1u << 20)

int main(int argc, char **argv)
{
    const char *boot = getenv(AOS__ENV_BOOT_FD), *rank = getenv(AOS__ENV_RANK);
    if (boot == NULL || rank == NULL) {
        fprintf(stderr, "deaf_pe: run me under aosrun\n");
        return 2;
    }
    int sock = atoi(boot);
    int mem = memfd_create("aos-deaf-pe", MFD_CLOEXEC);
    if (mem < 0 || ftruncate(mem, ARENA_BYTES) != 0) {
        perror("deaf_pe: memfd");
        return 2;
    }
    struct aos__boot_hello h = {.magic = AOS__BOOT_MAGIC,
                                .rank = (uint32_t)atoi(rank),
                                .pid = (uint32_t)getpid(),
                                .arena_size = ARENA_BYTES};
    if (aos__send_with_fd(sock, &h, sizeof h, mem) != 0) {
        perror("deaf_pe: hello");
        return 2;
    }
    if (argc > 1 && strcmp(argv[1], "slow") == 0) {
        int npes = atoi(getenv(AOS__ENV_NPES) != NULL ? getenv(AOS__ENV_NPES) : "0");
        for (int i = 0; i < npes; i++) {
            struct aos__boot_peer peer;
            int fd;
            usleep(100000);
            if (aos__recv_with_fd(sock, &peer, sizeof peer, &fd) != 0 || fd < 0 ||
                peer.hello.rank != (uint32_t)i) {
                fprintf(stderr, "deaf_pe: exchange entry %d missing or wrong\n", i);
                return 3;
            }
            close(fd);
        }
        h.arena_size = 0; /* bye */
        return aos__send_with_fd(sock, &h, sizeof h, -1) == 0 ? 0 : 4;
    }
    char *blob = calloc(1, AOS__BOOT_BLOB_MAX);
    if (blob == NULL) {
        perror("deaf_pe: blob");
        return 2;
    }
    h.magic = AOS__BOOT_BLOB_MAGIC;
    h.static_len = AOS__BOOT_BLOB_MAX;
    int blobs = argc > 2 ? atoi(argv[2]) : 1;
    for (int i = 0; i < blobs; i++) {
        if (i > 0)
            usleep(300000); /* aosrun has answered the last one by then */
        if (aos__send_with_fd(sock, &h, sizeof h, -1) != 0 ||
            aos__send_exact(sock, blob, AOS__BOOT_BLOB_MAX) != 0) {
            perror("deaf_pe: blob");
            free(blob);
            return 2;
        }
    }
    free(blob);
    sleep(argc > 1 ? (unsigned)atoi(argv[1]) : 30);
    return 0;
}
