/* Sending and receiving one message with at most one file descriptor over a
 * Unix socket (SCM_RIGHTS). Used by the bootstrap on both sides. */
#ifndef AOS_CORE_FDPASS_H
#define AOS_CORE_FDPASS_H

#include <stddef.h>
#include <sys/types.h>

/* Returns 0 or -1 with errno set. fd < 0 sends no descriptor. */
int aos__send_with_fd(int sock, const void *buf, size_t len, int fd);
/* One sendmsg (flags, and MSG_NOSIGNAL) of up to len bytes, fd with the
 * first: the bytes sent, or -1 with errno set (EINTR is retried). */
ssize_t aos__send_some_with_fd(int sock, const void *buf, size_t len, int fd, int flags);
/* Receives exactly len bytes; *fd is the descriptor received or -1.
 * Returns 0, or -1 with errno set (ECONNRESET when the peer closed). */
int aos__recv_with_fd(int sock, void *buf, size_t len, int *fd);

/* Plain bytes on a stream socket, exactly len of them (a blob that follows
 * its header). Return 0, or -1 with errno set. */
int aos__send_exact(int sock, const void *buf, size_t len);
int aos__recv_exact(int sock, void *buf, size_t len);

#endif
