/* Quiet and fence_all from several threads at once: each thread puts with
 * its own event to every other PE, then calls aos_quiet (or aos_fence_all
 * and aos_event_wait), while the other threads do the same. On return from
 * quiet the thread's own event must be complete, even when another
 * thread's flush of the same peer was still under way when it looked;
 * after a barrier every PE checks every word it was sent. */
#include "../common/check.h"
#include "../common/threads.h"

#define THREADS 4
#define ROUNDS 200
#define WORDS (THREADS * ROUNDS)

static int me, n;
static uint64_t *inbox; /* [sender][WORDS] */

static uint64_t word_of(int sender, int t, int r)
{
    return (uint64_t)sender << 40 | (uint64_t)t << 20 | (uint64_t)r;
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    uint64_t posted = 0;
    for (int r = 0; r < ROUNDS; r++) {
        for (int d = 1; d < n; d++) {
            int pe = (me + d) % n;
            uint64_t w = word_of(me, t, r);
            CHECK_OK(aos_putmem(pe, &inbox[(size_t)me * WORDS + (size_t)t * ROUNDS + (size_t)r],
                                &w, sizeof w, ev));
            posted++;
        }
        if (r % 2 == 0) {
            CHECK_OK(aos_quiet());
        } else {
            CHECK_OK(aos_fence_all());
            CHECK_OK(aos_event_wait(ev));
        }
        uint64_t done;
        CHECK_OK(aos_event_count(ev, &done));
        if (done != posted)
            fprintf(stderr, "PE %d thread %d round %d (%s): %llu of %llu complete\n", me, t, r,
                    r % 2 == 0 ? "quiet" : "fence_all, event wait", (unsigned long long)done,
                    (unsigned long long)posted);
        CHECK(done == posted); /* complete on return, mine included */
    }
    CHECK_OK(aos_event_destroy(ev));
    return NULL;
}

int main(void)
{
    CHECK_OK(aos_init());
    me = aos_my_pe();
    n = aos_n_pes();
    inbox = aos_calloc((size_t)n * WORDS, sizeof(uint64_t));
    CHECK(inbox != NULL);
    test_run_threads(THREADS, worker);
    CHECK_OK(aos_barrier_all());
    for (int s = 0; s < n; s++)
        for (int t = 0; s != me && t < THREADS; t++)
            for (int r = 0; r < ROUNDS; r++)
                CHECK(inbox[(size_t)s * WORDS + (size_t)t * ROUNDS + (size_t)r] == word_of(s, t, r));
    CHECK_OK(aos_barrier_all());
    aos_free(inbox);
    CHECK_OK(aos_finalize());
    return 0;
}
