/* aos status codes: the one table every return value comes from.
 *
 * AOS_STATUS_TABLE(X) expands X(name, value, message) once per code; the enum
 * below and aos_strerror() are both generated from it, so a code and its text
 * cannot drift apart. Success is 0, every error is negative. */
#ifndef AOS_STATUS_H
#define AOS_STATUS_H

#define AOS_STATUS_TABLE(X)                                                               \
    X(AOS_OK, 0, "success")                                                               \
    X(AOS_ERR_NOT_INITIALIZED, -1, "aos_init has not been called (or aos_finalize has)")  \
    X(AOS_ERR_ALREADY_INITIALIZED, -2, "aos_init was already called")                     \
    X(AOS_ERR_INVALID, -3, "invalid argument")                                            \
    X(AOS_ERR_NULL, -4, "NULL pointer where a buffer or handle is required")              \
    X(AOS_ERR_PE, -5, "PE number out of range")                                           \
    X(AOS_ERR_BOUNDS, -6, "offset or length outside the segment")                         \
    X(AOS_ERR_NO_KEY, -7, "no segment with this key on that PE")                          \
    X(AOS_ERR_EXISTS, -8, "a segment with this key already exists on this PE")            \
    X(AOS_ERR_PROTOCOL, -9, "the segment was not created with this protocol")             \
    X(AOS_ERR_DESTROYED, -10, "the segment has been destroyed by its owner")              \
    X(AOS_ERR_NOT_SYMMETRIC, -11, "address is not in symmetric memory")                   \
    X(AOS_ERR_OVERLAP, -12, "source and destination overlap")                             \
    X(AOS_ERR_ALIGN, -13, "misaligned address or size")                                   \
    X(AOS_ERR_SIZE, -14, "size is zero where it must not be, or too large")               \
    X(AOS_ERR_NO_MEMORY, -15, "out of memory or address space")                           \
    X(AOS_ERR_NOT_LOCAL, -16, "the PE is not on this node: no load/store pointer")        \
    X(AOS_ERR_TIMEOUT, -17, "timed out")                                                  \
    X(AOS_ERR_AGAIN, -18, "resource busy, try again")                                     \
    X(AOS_ERR_CONFIG, -19, "bad value in an AOS_* environment variable")                  \
    X(AOS_ERR_BOOTSTRAP, -20, "bootstrap with the launcher failed")                       \
    X(AOS_ERR_SYSTEM, -21, "an operating system call failed (see errno)")                 \
    X(AOS_ERR_UNSUPPORTED, -22, "operation not supported by this transport")              \
    X(AOS_ERR_PE_DIED, -23, "a peer PE has died")                                         \
    X(AOS_ERR_TOO_MANY, -24, "too many objects (segments, teams or RPC handlers)")        \
    X(AOS_ERR_FINALIZED, -25, "aos_finalize was called: a launched job cannot start again") \
    X(AOS_ERR_RPC_MISMATCH, -26,                                                           \
      "RPC handler tables differ between PEs (registered in another order, with another "  \
      "name, or not yet on the target)")                                                   \
    X(AOS_ERR_NETWORK, -27, "the network transport failed to reach the peer (see stderr)")

enum aos_status {
#define AOS__STATUS_ENUM(name, value, message) name = value,
    AOS_STATUS_TABLE(AOS__STATUS_ENUM)
#undef AOS__STATUS_ENUM
};

#endif
