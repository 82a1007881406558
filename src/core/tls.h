/* Thread-local variables of the library. initial-exec makes an access one
 * instruction instead of a __tls_get_addr call, which the progress and
 * wait loops would otherwise pay on every turn; the library's few words of
 * static TLS are reserved when it is loaded, with the program or by
 * dlopen (glibc keeps a surplus for such libraries). */
#ifndef AOS_CORE_TLS_H
#define AOS_CORE_TLS_H

#define AOS__TLS _Thread_local __attribute__((tls_model("initial-exec")))

#endif
