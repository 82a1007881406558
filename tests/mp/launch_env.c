/* What a PE leaves to the program and to the processes it starts:
 *  - after aos_init the launcher's variables are gone and every descriptor
 *    aos holds is close-on-exec, so an aos program started from a PE
 *    (system()) runs as a single PE instead of joining or hanging;
 *  - aos keeps no descriptor to its arena memory (nothing to reach it with
 *    through /proc/PID/fd) and its launcher socket sits at a high number;
 *  - a program that closes every descriptor it did not open itself (and
 *    then reuses the numbers for its own files) still publishes buffers
 *    correctly and finalizes without aosrun blaming it; when the job spans
 *    nodes, the network transport's connections are descriptors of aos's
 *    that stay open, and the program closes those it inherited.
 * usage: launch_env [child]   (child: what the PE starts) */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/check.h"

#define BUF_WORDS 4096

/* Calls fn(fd, arg) for every open descriptor >= 3 of this process. */
static void each_fd(void (*fn)(int, void *), void *arg)
{
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL);
    int fds[1024], n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 1024) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd >= 3 && fd != dirfd(d))
            fds[n++] = fd;
    }
    closedir(d);
    for (int i = 0; i < n; i++)
        fn(fds[i], arg);
}

/* Descriptors open before aos_init: the test harness's, not aos's. */
static char before[1024];

static void note_fd(int fd, void *arg)
{
    (void)arg;
    if (fd < 1024)
        before[fd] = 1;
}

static void check_fd(int fd, void *arg)
{
    (void)arg;
    if (fd < 1024 && before[fd])
        return;
    char path[64], target[256];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t len = readlink(path, target, sizeof target - 1);
    target[len > 0 ? len : 0] = '\0';
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0 || (flags & FD_CLOEXEC) == 0) {
        fprintf(stderr, "FAIL PE %d: descriptor %d (%s) is inherited by programs it starts\n",
                aos_my_pe(), fd, target);
        exit(1);
    }
    if (strstr(target, "aos-arena") != NULL) {
        fprintf(stderr, "FAIL PE %d: descriptor %d keeps an arena open (%s)\n", aos_my_pe(), fd,
                target);
        exit(1);
    }
    /* Across nodes UCX's connections are sockets at low numbers. */
    if (strncmp(target, "socket:", 7) == 0 && fd < 128 && arg == NULL) {
        fprintf(stderr, "FAIL PE %d: aos's socket is at descriptor %d, among the program's\n",
                aos_my_pe(), fd);
        exit(1);
    }
}

/* arg non-NULL: only those open before aos_init. */
static void close_fd(int fd, void *arg)
{
    if (arg == NULL || (fd < 1024 && before[fd]))
        close(fd);
}

static int child(void)
{
    alarm(30); /* joining the parent's job would block in aos_init */
    CHECK_OK(aos_init());
    CHECK(aos_n_pes() == 1 && aos_my_pe() == 0);
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_finalize());
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child();
    const char *boot_env = getenv("AOS_BOOT_FD");
    int boot = boot_env != NULL ? atoi(boot_env) : -1;
    struct stat boot_st; /* the launcher's socket, to know it again */
    CHECK(boot < 0 || fstat(boot, &boot_st) == 0);
    each_fd(note_fd, NULL);
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    CHECK(getenv("AOS_BOOT_FD") == NULL && getenv("AOS_RANK") == NULL &&
          getenv("AOS_NPES") == NULL);
    /* aos moved the launcher's socket away from the number it came at,
     * which a descriptor aos opened later (UCX's) may have taken: whatever
     * is there now is aos's, not the program's. */
    if (boot >= 0 && boot < 1024)
        before[boot] = 0;
    int spans_nodes = aos_team_n_pes(aos_team_node()) != n;
    each_fd(check_fd, spans_nodes ? before : NULL);
    /* the launcher's socket left the number the program inherited it at
     * (which a descriptor aos opened later may have taken) */
    struct stat now_st;
    CHECK(boot < 0 || fstat(boot, &now_st) != 0 || now_st.st_ino != boot_st.st_ino ||
          now_st.st_dev != boot_st.st_dev);

    /* An aos program started from this PE is a job of its own. */
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' child", argv[0]);
    CHECK(strlen(argv[0]) < 4000 && strchr(argv[0], '\'') == NULL);
    int ws = system(cmd);
    CHECK(ws != -1 && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);

    /* The program closes everything it did not open, then opens files of
     * its own, which take the freed numbers. */
    CHECK_OK(aos_barrier_all());
    each_fd(close_fd, spans_nodes ? before : NULL);
    char tmpl[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(tmpl, sizeof tmpl, "%s/launch_env.XXXXXX", tmp != NULL ? tmp : "/tmp");
    int mine[8];
    for (int i = 0; i < 8; i++) {
        mine[i] = mkstemp(tmpl);
        CHECK(mine[i] >= 0);
        unlink(tmpl);
        snprintf(tmpl, sizeof tmpl, "%s/launch_env.XXXXXX", tmp != NULL ? tmp : "/tmp");
    }
    /* private memory (not symmetric), so that aos maps its arena over it */
    uint64_t *published = NULL;
    CHECK(posix_memalign((void **)&published, 4096, BUF_WORDS * sizeof *published) == 0);
    for (int i = 0; i < BUF_WORDS; i++)
        published[i] = ((uint64_t)me << 32) | (uint64_t)i;
    aos_seg_t *seg;
    CHECK_OK(aos_seg_create_from(42, published, BUF_WORDS * sizeof *published, AOS_PROTO_RMA, &seg));
    CHECK(published[7] == (((uint64_t)me << 32) | 7u)); /* still my data, in place */
    CHECK_OK(aos_barrier_all());
    int right = (me + 1) % n;
    aos_seg_t *peer;
    CHECK_OK(aos_seg_attach(right, 42, &peer));
    static uint64_t got[BUF_WORDS];
    CHECK_OK(aos_get(got, peer, 0, sizeof got, NULL));
    for (int i = 0; i < BUF_WORDS; i++)
        CHECK(got[i] == (((uint64_t)right << 32) | (uint64_t)i));
    /* my files are untouched by aos */
    for (int i = 0; i < 8; i++)
        CHECK(lseek(mine[i], 0, SEEK_END) == 0);
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_detach(peer));
    CHECK_OK(aos_seg_destroy(seg));
    free(published);
    CHECK_OK(aos_finalize());
    for (int i = 0; i < 8; i++) {
        CHECK(lseek(mine[i], 0, SEEK_END) == 0);
        close(mine[i]);
    }
    if (me == 0)
        printf("launch_env: %d PEs, child ran alone, descriptors closed by the program\n", n);
    return 0;
}
