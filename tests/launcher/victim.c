/* A PE program that misbehaves on purpose, for the aosrun tests.
 * usage: victim MODE [PE]
 *   ok          init, barrier, finalize
 *   kill PE     PE sends itself SIGKILL mid-run; the others wait in a barrier
 *   segv PE     PE dereferences NULL mid-run
 *   exit PE [S] PE exits with status S (3) mid-run
 *   gexit PE S  PE calls aos_global_exit(S) mid-run; the others wait in a barrier
 *   gexitbusy PE S  the same while the others compute and call nothing of aos
 *               (for at most 60 s, then they exit 9: stopped by nobody)
 *   nofinal PE  PE returns 0 without aos_finalize
 *   hang        every PE waits for a word nobody writes
 *   flood K     every PE prints K KiB of lines and "PE r flooded", finishes
 *   floodhang K the same, then waits as hang
 *   nap S       every PE sleeps S seconds between two barriers, then finishes
 *   noinit PE   PE exits 0 before aos_init; the others call it
 *   late PE     PE sleeps 10 minutes before aos_init; the others call it
 *   ranks       prints "rank R of N" and the node / cluster PE counts
 *   spawn PE    every PE starts a background sleep, then PE kills itself
 *   spawn -1    every PE starts a background sleep, then all finish
 *   spawnhang   every PE starts a background sleep, then waits as hang
 *   spawnsetsid PE  as spawn, the sleep in a session of its own (setsid):
 *               out of the PE's process group
 *   storm PE    PE kills itself while the others put, get and add into its
 *               memory without end
 *   deadtarget PE  PE kills itself; the others, SIGTERM blocked, put, get
 *               and fetch-add into its memory with an event, waiting for it,
 *               until one of these fails, say so ("PE r: put to the dead PE:
 *               <message>") and wait for the launcher's SIGKILL
 *   forkhold    every PE forks, before aos_init, a child that holds its
 *               end of aosrun's socket for 20 s, then as ok
 *   epolls      a thread opens nested epoll instances (one watching another
 *               that watches a readable pipe) while aos_init runs, then as ok */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "aos.h"

static uint64_t never;
static volatile uint64_t busy_sum; /* work the compiler must keep */

/* Nested epoll instances that stay readable, opened for 300 ms: the
 * network transport must not take them for UCX's (they are left open). */
static void *open_epolls(void *arg)
{
    (void)arg;
    for (int i = 0; i < 300; i++) {
        int p[2];
        if (pipe(p) != 0)
            break;
        if (write(p[1], "x", 1) != 1)
            break;
        close(p[1]); /* the byte stays readable */
        int inner = epoll_create1(EPOLL_CLOEXEC), outer = epoll_create1(EPOLL_CLOEXEC);
        struct epoll_event e = {.events = EPOLLIN};
        (void)epoll_ctl(inner, EPOLL_CTL_ADD, p[0], &e);
        (void)epoll_ctl(outer, EPOLL_CTL_ADD, inner, &e);
        usleep(1000);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    int victim = argc > 2 ? atoi(argv[2]) : 0;
    /* the rank before aos_init: aosrun's variable, else PMIx's */
    const char *rank = getenv("AOS_RANK") != NULL ? getenv("AOS_RANK") : getenv("PMIX_RANK");
    if (strcmp(mode, "noinit") == 0 && atoi(rank != NULL ? rank : "0") == victim)
        return 0;
    if (strcmp(mode, "late") == 0 && atoi(rank != NULL ? rank : "0") == victim)
        sleep(600);
    if (strcmp(mode, "forkhold") == 0 && fork() == 0) {
        sleep(20); /* the socket stays open after the PE ends */
        _exit(0);
    }
    if (strcmp(mode, "deadtarget") == 0) {
        /* aosrun's SIGTERM waits, in every thread aos starts too: its
         * SIGKILL 300 ms later leaves the others time to notice */
        sigset_t term;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &term, NULL);
    }
    pthread_t opener;
    int opening = strcmp(mode, "epolls") == 0 && pthread_create(&opener, NULL, open_epolls, NULL) == 0;
    if (aos_init() != AOS_OK)
        return 10;
    if (opening)
        pthread_join(opener, NULL);
    int me = aos_my_pe();
    /* buffers in every segment kind, so that leftovers would show */
    void *heap = aos_malloc(1 << 20);
    aos_seg_t *seg;
    if (heap == NULL || aos_seg_create(7, 1 << 20, AOS_PROTO_RMA, &seg) != AOS_OK)
        return 11;
    aos_barrier_all();
    if (strcmp(mode, "storm") == 0) {
        /* The others put, get and add into the victim's memory without end
         * while it dies: the job must end with the report, not hang. */
        if (me == victim) {
            usleep(300 * 1000);
            raise(SIGKILL);
        }
        uint64_t word = 1, back;
        for (;;) {
            (void)aos_putmem(victim, heap, &word, sizeof word, NULL);
            (void)aos_getmem(victim, &back, heap, sizeof back, NULL);
            (void)aos_amo_post_sym(victim, heap, AOS_AMO_ADD, AOS_AMO_U64, 1);
        }
    }
    if (strcmp(mode, "deadtarget") == 0) {
        static char buf[64 << 10];
        /* the others know how to reach its heap before it dies */
        if (aos_putmem(victim, heap, buf, sizeof buf, NULL) != AOS_OK)
            return 12;
        aos_barrier_all();
        if (me == victim)
            raise(SIGKILL);
        aos_event_t *ev;
        if (aos_event_create(&ev) != AOS_OK)
            return 14;
        for (;;) {
            uint64_t old;
            const char *what = "put";
            int rc = aos_putmem(victim, heap, buf, sizeof buf, ev);
            if (rc == AOS_OK) {
                what = "get";
                rc = aos_getmem(victim, buf, heap, sizeof old, ev);
            }
            if (rc == AOS_OK) {
                what = "fetch-add";
                rc = aos_amo_fetch_sym(victim, heap, AOS_AMO_ADD, AOS_AMO_U64, 1, 0, &old, ev);
            }
            if (rc == AOS_OK) {
                what = "event wait";
                rc = aos_event_wait(ev);
            }
            if (rc != AOS_OK) {
                fprintf(stderr, "PE %d: %s to the dead PE: %s\n", me, what, aos_strerror(rc));
                for (;;)
                    pause();
            }
        }
    }
    if ((strcmp(mode, "spawn") == 0 || strcmp(mode, "spawnhang") == 0) &&
        system("sleep 300 &") != 0)
        return 13;
    if (strcmp(mode, "spawnsetsid") == 0 && system("setsid sleep 300 &") != 0)
        return 13;
    if (strcmp(mode, "spawn") == 0 || strcmp(mode, "spawnsetsid") == 0) {
        aos_barrier_all();
        if (me == victim)
            raise(SIGKILL);
    }
    if (me == victim) {
        if (strcmp(mode, "kill") == 0)
            raise(SIGKILL);
        if (strcmp(mode, "segv") == 0)
            *(volatile int *)(uintptr_t)(argc * 16) = 0; /* a tiny, unmapped address */
        if (strcmp(mode, "exit") == 0)
            exit(argc > 3 ? atoi(argv[3]) : 3);
        if (strcmp(mode, "nofinal") == 0)
            return 0;
        if (strcmp(mode, "gexit") == 0 || strcmp(mode, "gexitbusy") == 0) {
            usleep(200 * 1000); /* the others are waiting or computing by then */
            aos_global_exit(argc > 3 ? atoi(argv[3]) : 0);
        }
    }
    if (strcmp(mode, "gexitbusy") == 0) {
        time_t end = time(NULL) + 60;
        while (time(NULL) < end)
            for (int i = 0; i < 1000000; i++)
                busy_sum += (uint64_t)i;
        return 9;
    }
    if (strcmp(mode, "flood") == 0 || strcmp(mode, "floodhang") == 0) {
        /* victim KiB of lines from every PE, then one line saying so */
        char line[64];
        memset(line, 'a' + me % 26, sizeof line - 1);
        line[sizeof line - 1] = '\n';
        for (int k = 0; k < victim * 16; k++)
            fwrite(line, 1, sizeof line, stdout);
        printf("PE %d flooded\n", me);
        fflush(stdout);
    }
    if (strcmp(mode, "nap") == 0)
        sleep((unsigned)victim);
    if (strcmp(mode, "hang") == 0 || strcmp(mode, "floodhang") == 0 ||
        strcmp(mode, "spawnhang") == 0)
        aos_wait_until_u64(&never, AOS_CMP_EQ, 1);
    if (strcmp(mode, "argv") == 0) {
        /* the words as the PE got them, brackets around each */
        printf("argv of %d:", me);
        for (int i = 2; i < argc; i++)
            printf(" [%s]", argv[i]);
        printf("\n");
    }
    if (strcmp(mode, "ranks") == 0) {
        int node = 0, cluster = 0;
        aos_node_pes(NULL, 0, &node);
        aos_cluster_pes(NULL, 0, &cluster);
        printf("rank %d of %d node %d cluster %d\n", me, aos_n_pes(), node, cluster);
    }
    /* the survivors wait here; a dead PE must not leave them hanging */
    aos_barrier_all();
    aos_barrier_all();
    aos_seg_destroy(seg);
    aos_free(heap);
    return aos_finalize() == AOS_OK ? 0 : 12;
}
