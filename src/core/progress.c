#include "core/progress.h"

#include "core/progress_thread.h"
#include "core/runtime.h"
#include "core/wait.h"

#define HOOKS_MAX 8

struct aos__serve_point aos__serve_point;

/* Written during aos_init and after aos_finalize only, when no other
 * thread of this library runs: plain accesses. */
static void (*hooks[HOOKS_MAX])(void);
static int nhooks;
static void (*thread_serve)(void);

int aos__progress_hook_add(void (*hook)(void))
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i] == hook)
            return AOS_OK;
    if (nhooks == HOOKS_MAX)
        return AOS_ERR_NO_MEMORY;
    hooks[nhooks++] = hook;
    return AOS_OK;
}

void aos__progress_thread_work(struct aos__bell *bell, void (*serve)(void))
{
    aos__progress_thread_bell = bell;
    thread_serve = serve;
}

void aos__progress_reset(void)
{
    nhooks = 0;
    thread_serve = NULL;
    aos__progress_thread_bell = NULL;
    aos__serve_point = (struct aos__serve_point){0};
}

void aos__progress(void)
{
    aos__progress_transports();
    if (aos__in_progress_thread) {
        if (thread_serve != NULL)
            thread_serve();
        return;
    }
    for (int i = 0; i < nhooks; i++)
        hooks[i]();
}
