#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aosrun.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: aosrun -n N [--bind core|cluster|none] [--timeout S] [-v] prog [args...]\n"
            "       aosrun [-n N] --hosts H1:N1,H2:N2... [--rsh CMD] [options] prog [args...]\n"
            "  -n N            number of PEs to start on this node (with --hosts: in all,\n"
            "                  which must be the sum of the host counts; may be left out)\n"
            "  --hosts LIST    start Ni PEs on host Hi (at most 16 hosts), ranks consecutive\n"
            "                  per host in the order given; one aosrun daemon per host\n"
            "                  serves them\n"
            "  --rsh CMD       the command that runs a command on a host, as\n"
            "                  'CMD HOST /path/of/aosrun --daemon ...' (default ssh; words\n"
            "                  split on blanks); every host needs aosrun and the program at\n"
            "                  the same paths\n"
            "  --bind MODE     core: one core per PE (default); cluster: the cores sharing a\n"
            "                  last-level cache; none: leave placement to the OS\n"
            "  --timeout S     stop the job after S seconds (exit status 124); inf: never\n"
            "  -v              report every PE's end, not only the first failure\n"
            "When a PE fails the others are stopped and aosrun exits with its status.\n"
            "With --hosts the PEs start in this directory on every host and get the AOS_*,\n"
            "UCX_* and SHMEM_* variables set here; their stdout comes here, their stdin is\n"
            "/dev/null. A host that cannot be reached or whose daemon dies, or says nothing\n"
            "for 10 s, stops the job.\n");
}

static void on_sigpipe(int sig)
{
    (void)sig;
}

void aosrun_catch_sigpipe(void)
{
    struct sigaction sa = {.sa_handler = on_sigpipe};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, NULL);
}

/* Started with stdin, stdout or stderr closed, the descriptors aosrun opens
 * next (its signal descriptor, a host's channel) would take those numbers,
 * and output meant for the user would go into them: point the closed ones
 * at /dev/null first. 0, or -1 when that fails. */
static int open_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int nfd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (nfd != fd) { /* the lowest free number: fd itself */
            if (nfd >= 0)
                close(nfd);
            return -1;
        }
    }
    return 0;
}

static int parse_int(const char *s, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 1 || v > 4096)
        return -1;
    *out = (int)v;
    return 0;
}

int main(int argc, char **argv)
{
    struct aosrun_options o = {.npes = 0, .bind = AOSRUN_BIND_CORE};
    if (open_std_fds() != 0)
        return 2; /* nowhere to say so */
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "-v") == 0) {
            o.verbose = 1;
            continue;
        }
        if (strcmp(a, "--daemon") == 0) {
            o.daemon = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "aosrun: %s needs a value\n", a);
            usage(stderr);
            return 2;
        }
        const char *v = argv[++i];
        if (strcmp(a, "-n") == 0 || strcmp(a, "-np") == 0) {
            if (parse_int(v, &o.npes) != 0) {
                fprintf(stderr, "aosrun: -n '%s': expected a PE count from 1 to 4096\n", v);
                return 2;
            }
        } else if (strcmp(a, "--bind") == 0) {
            if (strcmp(v, "core") == 0)
                o.bind = AOSRUN_BIND_CORE;
            else if (strcmp(v, "cluster") == 0)
                o.bind = AOSRUN_BIND_CLUSTER;
            else if (strcmp(v, "none") == 0)
                o.bind = AOSRUN_BIND_NONE;
            else {
                fprintf(stderr, "aosrun: --bind '%s': expected core, cluster or none\n", v);
                return 2;
            }
        } else if (strcmp(a, "--hosts") == 0) {
            o.hosts = v;
        } else if (strcmp(a, "--rsh") == 0) {
            o.rsh = v;
        } else if (strcmp(a, "--timeout") == 0) {
            char *end = NULL;
            o.timeout_s = strtod(v, &end);
            if (end == v || *end != '\0' || !(o.timeout_s > 0)) {
                fprintf(stderr, "aosrun: --timeout '%s': expected seconds > 0 (or inf)\n", v);
                return 2;
            }
            /* inf, and anything beyond a century, is no timeout at all (a
             * deadline that far would overflow the clock arithmetic). */
            if (o.timeout_s > AOSRUN_TIMEOUT_MAX_S)
                o.timeout_s = 0;
        } else {
            fprintf(stderr, "aosrun: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    if ((o.npes == 0 && o.hosts == NULL && !o.daemon) || i >= argc) {
        usage(stderr);
        return 2;
    }
    o.argv = &argv[i];
    if (o.daemon)
        return aosrun_daemon_run(&o);
    if (o.hosts != NULL)
        return aosrun_hosts_run(&o);
    if (o.rsh != NULL) {
        fprintf(stderr, "aosrun: --rsh goes with --hosts\n");
        return 2;
    }
    if (aosrun_raise_fd_limit(&o) != 0)
        return 2;
    struct aosrun_topology t = {0};
    if (aosrun_topology_plan(&t, o.bind, o.npes) != 0) {
        aosrun_topology_free(&t);
        return 1;
    }
    int status = aosrun_supervise(&o, &t);
    aosrun_topology_free(&t);
    return status;
}
