/* Arena memfds shared among the PEs of one host when the launcher cannot
 * pass descriptors (PMIx). The host's leader (its lowest rank) listens on
 * an abstract Unix socket whose name holds the job, the host and a random
 * tag; it publishes the tag, a random cookie and its pid to the PEs of its
 * host through the launcher's store (core/boot/pmix.c). Each other PE
 * connects, checks the listener is the leader's pid, and sends its rank,
 * the cookie and its memfd; the leader admits only the host's PEs with the
 * right cookie and pid, then hands each the memfds of all the others.
 * Nothing goes through files or /proc/PID/fd. Every wait ends by a
 * deadline. */
#ifndef AOS_CORE_BOOT_NODE_SHARE_H
#define AOS_CORE_BOOT_NODE_SHARE_H

#include <stdint.h>
#include <sys/types.h>

#define AOS__SHARE_COOKIE_LEN 32
#define AOS__SHARE_JOIN_MAGIC 0x616f734a4f494e21ull  /* "aosJOIN!" */
#define AOS__SHARE_ENTRY_MAGIC 0x616f734d454d4621ull /* "aosMEMF!" */

/* What the leader publishes to the PEs of its host. */
struct aos__share_ticket {
    uint8_t cookie[AOS__SHARE_COOKIE_LEN];
    uint64_t tag;  /* random: nobody can take the socket's name in advance */
    uint32_t pid;  /* the leader's */
    uint32_t rank; /* the leader's */
};

/* PE -> leader, carrying the PE's arena memfd. */
struct aos__share_join {
    uint64_t magic;
    uint8_t cookie[AOS__SHARE_COOKIE_LEN];
    uint32_t rank;
    uint32_t pad;
};

/* Leader -> PE, once per other PE of the host, carrying that PE's memfd. */
struct aos__share_entry {
    uint64_t magic;
    uint32_t rank;
    uint32_t pad;
};

/* One PE's view of its host. */
struct aos__share {
    const char *job;   /* the launcher's name for the job (PMIx namespace) */
    int host;          /* my host's number in the job */
    int me;
    const int *local;  /* the host's PEs, ascending: local[0] is the leader */
    int nlocal;
    const pid_t *pid;  /* every PE's pid, by rank, as the launcher's store has it */
    int arena_fd;      /* mine */
    uint64_t timeout_ms;
};

/* The abstract socket name (leading NUL) for job, host and tag; returns
 * its length for bind/connect. Exposed for the tests. */
int aos__share_name(const char *job, int host, uint64_t tag, char *path, size_t cap);

/* Leader: draws the cookie and tag into *t and listens (*lfd). */
int aos__share_listen(const struct aos__share *s, struct aos__share_ticket *t, int *lfd);

/* Leader: admits the host's other PEs, sets peer_fds[pe] to their memfds
 * and hands each the others'. Closes lfd in every case. */
int aos__share_serve(const struct aos__share *s, const struct aos__share_ticket *t, int lfd,
                     int *peer_fds);

/* Other PEs: join the leader and set peer_fds[pe] for every other PE of
 * the host. */
int aos__share_join(const struct aos__share *s, const struct aos__share_ticket *t,
                    int *peer_fds);

#endif
