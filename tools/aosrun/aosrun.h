/* aosrun: starts the PEs of one job on this node, serves their bootstrap
 * exchange, binds them with hwloc and supervises them to the end. */
#ifndef AOSRUN_H
#define AOSRUN_H

#include <hwloc.h>
#include <sys/resource.h>
#include <sys/types.h>

/* Longer timeouts (inf, 1e300) mean none: 100 years. */
#define AOSRUN_TIMEOUT_MAX_S (100.0 * 365 * 24 * 3600)

enum aosrun_bind { AOSRUN_BIND_NONE, AOSRUN_BIND_CORE, AOSRUN_BIND_CLUSTER };

struct aosrun_options {
    int npes;
    enum aosrun_bind bind;
    double timeout_s; /* 0: none; at most AOSRUN_TIMEOUT_MAX_S */
    int verbose;
    char **argv;      /* program and its arguments */
    struct rlimit nofile; /* RLIMIT_NOFILE as aosrun found it: the PEs get it back */
    const char *hosts;    /* --hosts h1:4,h2:4, or NULL: this host only */
    const char *rsh;      /* --rsh: the command that runs a command on a host */
    int daemon;           /* --daemon: one host's part of a --hosts job */
};

/* Raises aosrun's descriptor limit to the hard limit (it holds a socket per
 * PE, and each PE's memory until all have it); refuses, saying so, a PE
 * count it cannot serve. Returns 0, or -1 after the message. */
int aosrun_raise_fd_limit(struct aosrun_options *o);

struct aosrun_placement {
    int cluster;             /* last-level-cache domain; -1 when unbound */
    hwloc_bitmap_t cpuset;   /* NULL when unbound */
};

struct aosrun_topology {
    hwloc_topology_t topo;
    struct aosrun_placement *place; /* one per PE */
    int npes;
};

/* Loads the topology and decides where each PE runs. */
int aosrun_topology_plan(struct aosrun_topology *t, enum aosrun_bind bind, int npes);
/* In the child before exec: binds this process to PE rank's placement. */
void aosrun_topology_bind(const struct aosrun_topology *t, int rank);
void aosrun_topology_free(struct aosrun_topology *t);

/* Runs the job to its end; returns aosrun's exit status. */
int aosrun_supervise(const struct aosrun_options *o, const struct aosrun_topology *t);

/* --hosts: checks the host list against -n (o->npes 0: the sum), starts a
 * daemon on every host and runs the job to its end; returns aosrun's exit
 * status (2: a usage error, reported). */
int aosrun_hosts_run(struct aosrun_options *o);
/* --daemon: one host's PEs of a --hosts job, with stdin and stdout the
 * channel to the root (hosts_proto.h); returns the daemon's exit status. */
int aosrun_daemon_run(struct aosrun_options *o);

/* A handler that does nothing, so that a write to a channel whose reader is
 * gone fails with EPIPE instead of killing aosrun (a handler, unlike
 * SIG_IGN, does not pass on to the PEs through exec). */
void aosrun_catch_sigpipe(void);

#endif
