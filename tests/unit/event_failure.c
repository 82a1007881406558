/* Events whose operations fail after their calls returned (a network
 * completion with an error): the event completes, keeps the first status,
 * and its next wait or test that finds it complete reports it, once. The
 * failures are made as the network transport makes them
 * (aos__event_fail_async), without a job: events work before aos_init. */
#include "../common/check.h"
#include "core/event.h"

/* ev with n operations posted, as a put or get with an event posts them. */
static aos_event_t *posted(int n)
{
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    for (int i = 0; i < n; i++)
        aos__event_post(ev);
    return ev;
}

int main(void)
{
    /* One of two fails: the wait reports it once, the count has both. */
    aos_event_t *ev = posted(2);
    aos__event_fail_async(ev, AOS_ERR_PE_DIED);
    aos__event_complete_async(ev);
    CHECK_RC(aos_event_wait(ev), AOS_ERR_PE_DIED);
    CHECK_OK(aos_event_wait(ev));
    uint64_t count = 0;
    CHECK_OK(aos_event_count(ev, &count));
    CHECK(count == 2);

    /* Of several failures the first is kept. */
    aos__event_post(ev);
    aos__event_post(ev);
    aos__event_fail_async(ev, AOS_ERR_NETWORK);
    aos__event_fail_async(ev, AOS_ERR_PE_DIED);
    CHECK_RC(aos_event_wait_timed(ev, 1000), AOS_ERR_NETWORK);
    CHECK_OK(aos_event_wait_timed(ev, 1000));

    /* A test reports a failure only once the event is complete, and then
     * sets nothing; the next test finds it done. */
    aos__event_post(ev);
    aos__event_post(ev);
    aos__event_fail_async(ev, AOS_ERR_PE_DIED);
    int done = 7;
    CHECK_OK(aos_event_test(ev, &done));
    CHECK(done == 0);
    aos__event_complete(ev);
    done = 7;
    CHECK_RC(aos_event_test(ev, &done), AOS_ERR_PE_DIED);
    CHECK(done == 7);
    CHECK_OK(aos_event_test(ev, &done));
    CHECK(done == 1);

    /* An event whose operations all succeeded reports nothing. */
    aos__event_post(ev);
    aos__event_complete_async(ev);
    CHECK_OK(aos_event_wait(ev));

    /* wait_all reports the first event's failure and clears them all. */
    aos_event_t *other = posted(1);
    aos__event_post(ev);
    aos__event_fail_async(ev, AOS_ERR_PE_DIED);
    aos__event_fail_async(other, AOS_ERR_NETWORK);
    aos_event_t *both[] = {ev, other};
    CHECK_RC(aos_event_wait_all(both, 2), AOS_ERR_PE_DIED);
    CHECK_OK(aos_event_wait(ev));
    CHECK_OK(aos_event_wait(other));
    CHECK_OK(aos_event_wait_all(both, 2));

    /* wait_any names the complete event and leaves its failure to it. */
    aos__event_post(ev);
    aos__event_post(other);
    aos__event_fail_async(other, AOS_ERR_NETWORK);
    size_t index = 9;
    CHECK_OK(aos_event_wait_any(both, 2, &index));
    CHECK(index == 1);
    CHECK_RC(aos_event_wait(other), AOS_ERR_NETWORK);
    aos__event_complete_async(ev);
    CHECK_OK(aos_event_wait(ev));

    CHECK_OK(aos_event_destroy(other));
    CHECK_OK(aos_event_destroy(ev));
    printf("event_failure: ok\n");
    return 0;
}
