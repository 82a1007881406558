/* One supervisor's view of a job, shared by the three ways aosrun runs:
 *  - single host: pes[] are all the PEs, children of this process;
 *  - daemon (--daemon): pes[] are this host's PEs, children of this
 *    process; what needs every PE (the exchange, all-gathers, judging an
 *    end) goes up to the root through the uplink;
 *  - root (--hosts): pes[] are all the PEs as the daemons report them; no
 *    PE is a child of the root, which signals them through the daemons. */
#ifndef AOSRUN_JOB_H
#define AOSRUN_JOB_H

#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "aosrun.h"
#include "core/boot_proto.h"
#include "outbox.h"

enum pe_state { PE_RUNNING, PE_DONE };

struct pe {
    pid_t pid;        /* in the root: the pid on its host, for messages only */
    int sock;         /* our end of the bootstrap socketpair; -1 once closed (root: always) */
    int arena_fd;     /* received with the hello; -1 before and after the exchange */
    const struct aos__arena_header *header; /* its arena's first page, or NULL */
    int said_hello;
    int said_bye;
    enum pe_state state;
    /* when part of a message first waited on sock, alone (0: none) */
    long long partial_since_ms;
    struct aosrun_outbox out; /* what sock has yet to take */
};

struct job;

/* What the daemon and the root change in the single-host supervisor; NULL
 * members keep its behaviour. */
struct aosrun_uplink {
    /* daemon: a local PE's hello (in j->table), blob, global exit, end */
    void (*hello)(struct job *j, int rank);
    void (*blob)(struct job *j, int rank, const char *blob, uint64_t len);
    void (*global_exit)(struct job *j, int rank, int status);
    void (*end)(struct job *j, int rank, int wait_status);
    /* daemon: it stopped the job itself (status as aosrun would exit) */
    void (*failed)(struct job *j, int status);
    /* root: sends sig to every PE (through the daemons) */
    void (*signal)(struct job *j, int sig);
    /* root: a child that is not a PE ended */
    void (*child)(struct job *j, pid_t pid, int wait_status);
    /* root: starts the daemons instead of PEs (old: the signal mask to give
     * them) */
    void (*start)(struct job *j, const sigset_t *old);
    /* further descriptors to poll (at most max), then their results */
    int (*pollfds)(struct job *j, struct pollfd *fds, int max);
    void (*events)(struct job *j, const struct pollfd *fds, int n);
    /* nonzero while the job needs the loop though none of its PEs runs */
    int (*busy)(struct job *j);
    /* when the uplink next needs the loop to come round (pollfds, events)
     * though nothing happens, in aosrun_now_ms() time; -1: never */
    long long (*wake_ms)(struct job *j);
    /* "host NAME: " before a message about PE rank, or "" */
    const char *(*where)(const struct job *j, int rank);
};

#define AOSRUN_UPLINK_FDS 17 /* the root: 16 hosts and its stdout */

struct job {
    const struct aosrun_options *o;
    const struct aosrun_topology *t; /* NULL in the root */
    const struct aosrun_uplink *up;  /* NULL on a single host */
    void *ctx;                       /* the uplink's state */
    int n;               /* entries in pes[] */
    int first;           /* global rank of pes[0] */
    int total;           /* PEs in the job */
    int node;            /* host index of pes[] (sent to the PEs as .node) */
    int local;           /* pes[] are this process's children */
    int pe_stdout;       /* the PEs' stdout, or -1: aosrun's own */
    struct pe *pes;
    struct aos__boot_peer *table; /* total: every PE's hello, cluster and host */
    int table_in;        /* entries of table filled */
    char **blob;         /* total: this round's all-gather contributions */
    uint64_t *blob_len;
    int running;
    int hellos;
    int exchanged;
    int blobs;           /* PEs whose blob of the current all-gather round arrived */
    int failed;          /* the first failure is the job's result */
    int exit_status;
    int failed_pe;       /* the PE whose end or global exit set exit_status, or -1 */
    int timed_out;       /* exit_status is --timeout's */
    int stopping;        /* SIGTERM sent; SIGKILL at kill_at_ms */
    long long kill_at_ms;
    long long deadline_ms; /* --timeout, or 0 */
};

long long aosrun_now_ms(void);
/* Sets up j for count PEs from global rank first of a job of total PEs;
 * local: they are to be started here. Returns 0 or -1 (no memory). */
int aosrun_job_init(struct job *j, const struct aosrun_options *o,
                    const struct aosrun_topology *t, int first, int count, int total, int local);
/* Starts the local PEs, runs the job to its end, frees j; returns the
 * exit status. */
int aosrun_job_run(struct job *j);

/* Forks a child with one end of a new socketpair (*sock: ours) that runs
 * child(j, index, its end) in a process group of its own, with the signal
 * mask old and death_sig when aosrun dies. Returns its pid, or -1 after a
 * message (the job failed). */
pid_t aosrun_job_spawn(struct job *j, int index, int death_sig, const sigset_t *old,
                       void (*child)(struct job *j, int index, int sock), int *sock);
/* strays.c: aosrun becomes the subreaper of what its PEs start (before it
 * starts them), and at the job's end kills its children left then: what
 * the PEs started outside their process groups. */
void aosrun_strays_adopt(void);
void aosrun_strays_end(void);
/* Starts the PEs in pes[] as children (old: the signal mask they get). */
void aosrun_job_start_pes(struct job *j, const sigset_t *old);
/* pe: the PE whose end is the failure, or -1 when it is aosrun's doing. */
void aosrun_job_fail(struct job *j, int status, int pe);
/* Sends sig to the local PEs and stops them (SIGKILL after a grace). */
void aosrun_job_stop(struct job *j, int sig);
/* Judges PE rank's end (its state already recorded). */
void aosrun_job_judge_end(struct job *j, int rank, int wait_status);
void aosrun_job_global_exit(struct job *j, int rank, int status);
/* Reports a PE that ended without saying hello while others wait. */
void aosrun_job_check_missing_hello(struct job *j);
/* Every entry of j->table is in: the local PEs get their peers. */
void aosrun_job_exchange(struct job *j);
/* Keeps rank's blob of this round (takes blob); returns 1 when every PE's
 * is in, 0 when not yet, -1 when rank already sent one (blob freed). */
int aosrun_job_store_blob(struct job *j, int rank, char *blob, uint64_t len);
/* Every blob is in: the local PEs get them all, and the round ends. */
void aosrun_job_allgather(struct job *j);

#endif
