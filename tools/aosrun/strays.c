/* Strays: processes a PE started that left its process group (setsid, a
 * daemon's double fork) and outlived their parent. The signals to each
 * PE's group miss them; as the job's subreaper, aosrun becomes their
 * parent when their own ends, and ends them with the job. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "job.h"

/* How long aosrun goes on ending strays, and how often it looks: a stray's
 * own orphans come to aosrun only once the stray has died. */
#define STRAY_ROUNDS 100
#define STRAY_PAUSE_NS 10000000L

void aosrun_strays_adopt(void)
{
    /* Failure leaves the strays to init, as before; nothing else changes. */
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/* pid's parent from /proc/pid/stat, or -1: the field after the command,
 * which is in parentheses and may hold anything but ends at the last ')'. */
static pid_t parent_of(const char *pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *end = strrchr(buf, ')');
    char state;
    int ppid;
    if (end == NULL || sscanf(end + 1, " %c %d", &state, &ppid) != 2)
        return -1;
    return (pid_t)ppid;
}

/* SIGKILL to every child of mine still alive; how many there were. */
static int kill_children(void)
{
    DIR *d = opendir("/proc");
    if (d == NULL)
        return 0;
    pid_t me = getpid();
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strspn(e->d_name, "0123456789") != strlen(e->d_name))
            continue;
        if (parent_of(e->d_name) == me) {
            kill((pid_t)atol(e->d_name), SIGKILL);
            found++;
        }
    }
    closedir(d);
    return found;
}

void aosrun_strays_end(void)
{
    for (int round = 0; round < STRAY_ROUNDS; round++) {
        int ws;
        while (waitpid(-1, &ws, WNOHANG) > 0) {
        }
        if (kill_children() == 0)
            return;
        nanosleep(&(struct timespec){.tv_nsec = STRAY_PAUSE_NS}, NULL);
    }
}
