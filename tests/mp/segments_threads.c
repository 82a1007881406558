/* Threads of one PE create and destroy segments at the same moment: every
 * create gets a slot, a range and a key of its own (no two segments share
 * memory, and data written into each stays), of threads racing for one key
 * exactly one wins and the others get AOS_ERR_EXISTS, and every segment is
 * found by key from the next PE with its data. Half the threads publish
 * their own buffers in place (aos_seg_create_from), the rest take segment
 * space. Round after round, so slots and ranges freed by one round's
 * destroys are taken again by the next. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "../common/threads.h"

#define THREADS 6
#define PER_THREAD 6
#define ROUNDS 12
#define PAGE 4096

static pthread_barrier_t all_threads; /* the workers and main */
static int me, npes;
static int raced_wins[ROUNDS];

static uint64_t key_of(int round, int t, int i)
{
    return (uint64_t)round << 32 | (uint64_t)t << 16 | (uint64_t)i | 1u << 15;
}

static size_t size_of(int i)
{
    return (size_t)PAGE * (size_t)(1 + i % 3) - (size_t)(i % 2) * 100;
}

static unsigned seed_of(int pe, uint64_t key)
{
    return (unsigned)(pe * 7919 + (int)(key % 100003));
}

/* Everyone's segments of this round are in place on every PE: main's
 * aos_barrier_all between two thread barriers. */
static void sync_all(void)
{
    pthread_barrier_wait(&all_threads);
    pthread_barrier_wait(&all_threads);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    int in_place = t % 2;
    aos_seg_t *seg[PER_THREAD], *raced = NULL;
    void *buf[PER_THREAD] = {0};
    for (int r = 0; r < ROUNDS; r++) {
        pthread_barrier_wait(&all_threads); /* start together */
        int rc = aos_seg_create(key_of(r, 0xff, 0), PAGE, AOS_PROTO_ALL, &raced);
        CHECK(rc == AOS_OK || rc == AOS_ERR_EXISTS);
        if (rc == AOS_OK)
            __atomic_fetch_add(&raced_wins[r], 1, __ATOMIC_RELAXED); /* read after the joins */
        else
            raced = NULL;
        for (int i = 0; i < PER_THREAD; i++) {
            uint64_t key = key_of(r, t, i);
            size_t size = size_of(i);
            if (in_place) {
                CHECK(posix_memalign(&buf[i], PAGE, size) == 0);
                CHECK_OK(aos_seg_create_from(key, buf[i], size, AOS_PROTO_ALL, &seg[i]));
            } else {
                CHECK_OK(aos_seg_create(key, size, AOS_PROTO_ALL, &seg[i]));
            }
            void *p;
            CHECK_OK(aos_seg_ptr(seg[i], 0, &p));
            pattern_fill(p, size, seed_of(me, key));
            /* The buffer itself is the segment's memory. */
            CHECK(!in_place || pattern_check(buf[i], size, seed_of(me, key)) == size);
        }
        sync_all();
        /* My data is intact (no other segment shares its memory), and the
         * next PE's segments are found by key, with theirs. */
        int next = (me + 1) % npes;
        for (int i = 0; i < PER_THREAD; i++) {
            uint64_t key = key_of(r, t, i);
            size_t size = size_of(i);
            void *p;
            CHECK_OK(aos_seg_ptr(seg[i], 0, &p));
            CHECK(pattern_check(p, size, seed_of(me, key)) == size);
            aos_seg_t *theirs;
            CHECK_OK(aos_seg_attach(next, key, &theirs));
            char *got = malloc(size);
            CHECK(got != NULL);
            CHECK_OK(aos_get(got, theirs, 0, size, NULL));
            CHECK(pattern_check(got, size, seed_of(next, key)) == size);
            free(got);
            CHECK_OK(aos_seg_detach(theirs));
        }
        sync_all(); /* nobody reads my segments any more */
        for (int i = 0; i < PER_THREAD; i++) {
            CHECK_OK(aos_seg_destroy(seg[i]));
            free(buf[i]); /* private memory again, with its contents */
            buf[i] = NULL;
        }
        if (raced != NULL)
            CHECK_OK(aos_seg_destroy(raced));
    }
    return NULL;
}

static void *main_or_worker(void *arg)
{
    if ((intptr_t)arg < THREADS)
        return worker(arg);
    for (int r = 0; r < ROUNDS; r++) { /* the PE-wide steps of each round */
        pthread_barrier_wait(&all_threads);
        pthread_barrier_wait(&all_threads);
        CHECK_OK(aos_barrier_all());
        pthread_barrier_wait(&all_threads);
        pthread_barrier_wait(&all_threads);
        CHECK_OK(aos_barrier_all());
        pthread_barrier_wait(&all_threads);
    }
    return NULL;
}

int main(void)
{
    CHECK_OK(aos_init());
    me = aos_my_pe();
    npes = aos_n_pes();
    CHECK(pthread_barrier_init(&all_threads, NULL, THREADS + 1) == 0);
    test_run_threads(THREADS + 1, main_or_worker);
    for (int r = 0; r < ROUNDS; r++)
        CHECK(raced_wins[r] == 1);
    CHECK(pthread_barrier_destroy(&all_threads) == 0);
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_finalize());
    return 0;
}
