/* State of the deprecated active-set collectives. */
#ifndef AOS_SHMEM_ACTIVE_SET_H
#define AOS_SHMEM_ACTIVE_SET_H

/* Collective (shmem_init / shmem_finalize): the symmetric board collect
 * uses; stop also destroys the syncs made for active sets. */
int shmem__active_sets_start(void);
void shmem__active_sets_stop(void);

#endif
