/* Completion means applied at the target, as a third PE sees it. Writer PE
 * w writes to holder h = w+1 and completes the write (a blocking put; a
 * put with an event, a held put, a posted add or a put of 200 KiB, each
 * followed by aos_quiet), then puts the round's number into a flag at
 * reader r = w+2. The reader, on seeing the flag, gets the holder's memory
 * and checks it, then answers the writer, which goes on to the next
 * round. Off-node, the three pairs are three connections: the reader sees
 * the write only if the writer's completion waited until the holder had
 * applied it, not just until it left. Also a put with an event that the
 * writer waits for (completed by a flush that settle starts, which does
 * not wait itself). Two threads per PE write, each to
 * its own words, so that completions of one peer overlap. Needs 3 PEs. */
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "../common/threads.h"

#define THREADS 2
#define ROUNDS 150
#define FORMS 6
#define BIG (200u << 10)

static int me, n;
static uint64_t *word;  /* [THREADS] at the holder: forms 0-2 and 5 */
static uint64_t *count; /* [THREADS] at the holder: form 3's adds */
static uint8_t *big;    /* [THREADS][BIG] at the holder: form 4 */
static uint64_t *flag;  /* [THREADS] at the reader: the round just completed */
static uint64_t *answer; /* [THREADS] at the writer: the round the reader checked */

static uint64_t value_of(int writer, int t, int round)
{
    return (uint64_t)writer << 40 | (uint64_t)t << 32 | (uint64_t)round;
}

static uint8_t byte_of(int writer, int t, int round, size_t i)
{
    return (uint8_t)(writer * 31 + t * 7 + round + i % 251);
}

static void *writer(void *arg)
{
    int t = (int)(intptr_t)arg, holder = (me + 1) % n, reader = (me + 2) % n;
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    uint8_t *src = malloc(BIG);
    CHECK(src != NULL);
    for (int r = 1; r <= ROUNDS; r++) {
        uint64_t v = value_of(me, t, r);
        switch (r % FORMS) {
        case 0: CHECK_OK(aos_putmem(holder, &word[t], &v, sizeof v, NULL)); break;
        case 1:
            CHECK_OK(aos_putmem(holder, &word[t], &v, sizeof v, ev));
            CHECK_OK(aos_quiet());
            break;
        case 2:
            CHECK_OK(aos_putmem_nbi(holder, &word[t], &v, sizeof v, ev));
            CHECK_OK(aos_quiet());
            break;
        case 3:
            CHECK_OK(aos_amo_post_sym(holder, &count[t], AOS_AMO_ADD, AOS_AMO_U64, 1));
            CHECK_OK(aos_quiet());
            break;
        case 5:
            CHECK_OK(aos_putmem(holder, &word[t], &v, sizeof v, ev));
            CHECK_OK(aos_event_wait(ev));
            break;
        default:
            for (size_t i = 0; i < BIG; i++)
                src[i] = byte_of(me, t, r, i);
            CHECK_OK(aos_putmem(holder, big + (size_t)t * BIG, src, BIG, ev));
            CHECK_OK(aos_quiet());
            break;
        }
        uint64_t done = (uint64_t)r;
        CHECK_OK(aos_putmem(reader, &flag[t], &done, sizeof done, NULL));
        CHECK_OK(aos_wait_until_u64(&answer[t], AOS_CMP_GE, done));
    }
    free(src);
    CHECK_OK(aos_event_destroy(ev));
    return NULL;
}

/* Checks round r of writer w's thread t at holder h. */
static void check_round(int w, int h, int t, int r, uint8_t *buf)
{
    int form = r % FORMS;
    if (form <= 2 || form == 5) {
        uint64_t got;
        CHECK_OK(aos_getmem(h, &got, &word[t], sizeof got, NULL));
        if (got != value_of(w, t, r))
            fprintf(stderr, "PE %d: round %d (form %d) of PE %d thread %d: PE %d holds %#llx\n",
                    me, r, form, w, t, h, (unsigned long long)got);
        CHECK(got == value_of(w, t, r));
    } else if (form == 3) {
        uint64_t got;
        CHECK_OK(aos_getmem(h, &got, &count[t], sizeof got, NULL));
        CHECK(got == (uint64_t)((r - 3) / FORMS + 1)); /* adds in rounds 3, 3 + FORMS, ... r */
    } else {
        CHECK_OK(aos_getmem(h, buf, big + (size_t)t * BIG, BIG, NULL));
        for (size_t i = 0; i < BIG; i++)
            if (buf[i] != byte_of(w, t, r, i)) {
                fprintf(stderr, "PE %d: round %d of PE %d thread %d: byte %zu stale at PE %d\n",
                        me, r, w, t, i, h);
                CHECK(0);
            }
    }
}

static void *reader(void *arg)
{
    int t = (int)(intptr_t)arg - THREADS;
    int w = (me + n - 2) % n, h = (me + n - 1) % n;
    uint8_t *buf = malloc(BIG);
    CHECK(buf != NULL);
    for (int r = 1; r <= ROUNDS; r++) {
        uint64_t done = (uint64_t)r;
        CHECK_OK(aos_wait_until_u64(&flag[t], AOS_CMP_GE, done));
        check_round(w, h, t, r, buf);
        CHECK_OK(aos_putmem(w, &answer[t], &done, sizeof done, NULL));
    }
    free(buf);
    return NULL;
}

static void *either(void *arg)
{
    return (intptr_t)arg < THREADS ? writer(arg) : reader(arg);
}

int main(void)
{
    CHECK_OK(aos_init());
    me = aos_my_pe();
    n = aos_n_pes();
    CHECK(n >= 3);
    word = aos_calloc(THREADS, sizeof *word);
    count = aos_calloc(THREADS, sizeof *count);
    big = aos_calloc(THREADS, BIG);
    flag = aos_calloc(THREADS, sizeof *flag);
    answer = aos_calloc(THREADS, sizeof *answer);
    CHECK(word && count && big && flag && answer);
    CHECK_OK(aos_barrier_all());
    test_run_threads(2 * THREADS, either);
    CHECK_OK(aos_barrier_all());
    aos_free(answer);
    aos_free(flag);
    aos_free(big);
    aos_free(count);
    aos_free(word);
    CHECK_OK(aos_finalize());
    return 0;
}
