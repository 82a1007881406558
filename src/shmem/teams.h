/* Teams and contexts of the OpenSHMEM front end. */
#ifndef AOS_SHMEM_TEAMS_H
#define AOS_SHMEM_TEAMS_H

/* Builds SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED over aos's world and node
 * teams (after aos_init); stop releases what start made. */
int shmem__teams_start(void);
void shmem__teams_stop(void);

#endif
