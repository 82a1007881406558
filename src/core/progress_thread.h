/* The optional progress thread that serves RPCs (AOS_PROGRESS_THREAD=1). */
#ifndef AOS_CORE_PROGRESS_THREAD_H
#define AOS_CORE_PROGRESS_THREAD_H

struct aos__bell;
/* The bell it sleeps on, given by aos__progress_thread_work (progress.h). */
extern struct aos__bell *aos__progress_thread_bell;

/* Starts it when the configuration asks for one (else does nothing). */
int aos__progress_thread_start(void);
/* Wakes it, lets it finish the handler it runs, and joins it. */
void aos__progress_thread_stop(void);

#endif
