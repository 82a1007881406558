/* OpenSHMEM 1.5 C11 type-generic interfaces; included by shmem.h.
 *
 * shmem_put(dest, source, nelems, pe) picks shmem_long_put for a long *dest,
 * and so on; with a context first, shmem_put(ctx, dest, ...) picks
 * shmem_ctx_long_put. Selection is on the pointed-to type with qualifiers
 * dropped, so const sources work. Only the C standard types take part
 * (int64_t is long here, size_t unsigned long, ...): a type of the
 * specification's tables that is another name for one of them is covered by
 * it. Not in C++ (no _Generic), nor when SHMEM_NO_GENERIC is defined. */
#ifndef AOS_SHMEM_GENERIC_H
#define AOS_SHMEM_GENERIC_H

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L &&  \
    !defined(SHMEM_NO_GENERIC)

/* Argument counting: SHMEM__NARGS(a, b, c) is 3. */
#define SHMEM__ARGN(_1, _2, _3, _4, _5, _6, _7, _8, _9, N, ...) N
#define SHMEM__NARGS(...) SHMEM__ARGN(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define SHMEM__CAT2(a, b) a##b
#define SHMEM__CAT(a, b) SHMEM__CAT2(a, b)
/* name_<n>(args) where n is the number of arguments. */
#define SHMEM__BY_NARGS(name, ...) SHMEM__CAT(name, SHMEM__NARGS(__VA_ARGS__))(__VA_ARGS__)

/* One association T: prefix##N##suffix per entry of a list below. */
#define SHMEM__ASSOC(T, N, P, S) T: P##N##S,

#define SHMEM__G_RMA(F, P, S)                                                              \
    F(float, float, P, S) F(double, double, P, S) F(long double, longdouble, P, S)         \
    F(char, char, P, S) F(signed char, schar, P, S) F(short, short, P, S)                  \
    F(int, int, P, S) F(long, long, P, S) F(long long, longlong, P, S)                     \
    F(unsigned char, uchar, P, S) F(unsigned short, ushort, P, S)                          \
    F(unsigned int, uint, P, S) F(unsigned long, ulong, P, S)                              \
    F(unsigned long long, ulonglong, P, S)
#define SHMEM__G_AMO_STD(F, P, S)                                                          \
    F(int, int, P, S) F(long, long, P, S) F(long long, longlong, P, S)                     \
    F(unsigned int, uint, P, S) F(unsigned long, ulong, P, S)                              \
    F(unsigned long long, ulonglong, P, S)
#define SHMEM__G_AMO_EXT(F, P, S)                                                          \
    SHMEM__G_AMO_STD(F, P, S) F(float, float, P, S) F(double, double, P, S)
#define SHMEM__G_AMO_BIT(F, P, S)                                                          \
    F(unsigned int, uint, P, S) F(unsigned long, ulong, P, S)                              \
    F(unsigned long long, ulonglong, P, S) F(int, int32, P, S) F(long, int64, P, S)
#define SHMEM__G_SYNC(F, P, S)                                                             \
    F(short, short, P, S) F(int, int, P, S) F(long, long, P, S)                            \
    F(long long, longlong, P, S) F(unsigned short, ushort, P, S)                           \
    F(unsigned int, uint, P, S) F(unsigned long, ulong, P, S)                              \
    F(unsigned long long, ulonglong, P, S)
#define SHMEM__G_RED_BIT(F, P, S)                                                          \
    F(unsigned char, uchar, P, S) F(unsigned short, ushort, P, S)                          \
    F(unsigned int, uint, P, S) F(unsigned long, ulong, P, S)                              \
    F(unsigned long long, ulonglong, P, S) F(signed char, int8, P, S)                      \
    F(short, int16, P, S) F(int, int32, P, S) F(long, int64, P, S)
#define SHMEM__G_RED_MINMAX(F, P, S)                                                       \
    F(char, char, P, S) F(signed char, schar, P, S) F(short, short, P, S)                  \
    F(int, int, P, S) F(long, long, P, S) F(long long, longlong, P, S)                     \
    F(unsigned char, uchar, P, S) F(unsigned short, ushort, P, S)                          \
    F(unsigned int, uint, P, S) F(unsigned long, ulong, P, S)                              \
    F(unsigned long long, ulonglong, P, S) F(float, float, P, S)                           \
    F(double, double, P, S) F(long double, longdouble, P, S)
#define SHMEM__G_RED_ARITH(F, P, S)                                                        \
    SHMEM__G_RED_MINMAX(F, P, S) F(double _Complex, complexd, P, S)                        \
    F(float _Complex, complexf, P, S)

/* The function for *(ptr)'s type from list L, named P<typename>S. A type
 * the routine does not take selects this function, which takes no
 * arguments: the compiler stops there with its name. */
void shmem_generic_routine_has_no_form_for_this_type(void);
#define SHMEM__PICK(L, ptr, P, S)                                                          \
    _Generic(*(ptr), L(SHMEM__ASSOC, P, S) default: shmem_generic_routine_has_no_form_for_this_type)

/* ---- RMA and signals: (dest, ...) or (ctx, dest, ...) ---------------------- */
#define shmem_put(...) SHMEM__BY_NARGS(SHMEM__put_, __VA_ARGS__)
#define SHMEM__put_4(d, s, n, pe) SHMEM__PICK(SHMEM__G_RMA, d, shmem_, _put)(d, s, n, pe)
#define SHMEM__put_5(c, d, s, n, pe) SHMEM__PICK(SHMEM__G_RMA, d, shmem_ctx_, _put)(c, d, s, n, pe)
#define shmem_get(...) SHMEM__BY_NARGS(SHMEM__get_, __VA_ARGS__)
#define SHMEM__get_4(d, s, n, pe) SHMEM__PICK(SHMEM__G_RMA, d, shmem_, _get)(d, s, n, pe)
#define SHMEM__get_5(c, d, s, n, pe) SHMEM__PICK(SHMEM__G_RMA, d, shmem_ctx_, _get)(c, d, s, n, pe)
#define shmem_put_nbi(...) SHMEM__BY_NARGS(SHMEM__put_nbi_, __VA_ARGS__)
#define SHMEM__put_nbi_4(d, s, n, pe) SHMEM__PICK(SHMEM__G_RMA, d, shmem_, _put_nbi)(d, s, n, pe)
#define SHMEM__put_nbi_5(c, d, s, n, pe)                                                   \
    SHMEM__PICK(SHMEM__G_RMA, d, shmem_ctx_, _put_nbi)(c, d, s, n, pe)
#define shmem_get_nbi(...) SHMEM__BY_NARGS(SHMEM__get_nbi_, __VA_ARGS__)
#define SHMEM__get_nbi_4(d, s, n, pe) SHMEM__PICK(SHMEM__G_RMA, d, shmem_, _get_nbi)(d, s, n, pe)
#define SHMEM__get_nbi_5(c, d, s, n, pe)                                                   \
    SHMEM__PICK(SHMEM__G_RMA, d, shmem_ctx_, _get_nbi)(c, d, s, n, pe)
#define shmem_p(...) SHMEM__BY_NARGS(SHMEM__p_, __VA_ARGS__)
#define SHMEM__p_3(d, v, pe) SHMEM__PICK(SHMEM__G_RMA, d, shmem_, _p)(d, v, pe)
#define SHMEM__p_4(c, d, v, pe) SHMEM__PICK(SHMEM__G_RMA, d, shmem_ctx_, _p)(c, d, v, pe)
#define shmem_g(...) SHMEM__BY_NARGS(SHMEM__g_, __VA_ARGS__)
#define SHMEM__g_2(s, pe) SHMEM__PICK(SHMEM__G_RMA, s, shmem_, _g)(s, pe)
#define SHMEM__g_3(c, s, pe) SHMEM__PICK(SHMEM__G_RMA, s, shmem_ctx_, _g)(c, s, pe)
#define shmem_iput(...) SHMEM__BY_NARGS(SHMEM__iput_, __VA_ARGS__)
#define SHMEM__iput_6(d, s, t, ss, n, pe)                                                  \
    SHMEM__PICK(SHMEM__G_RMA, d, shmem_, _iput)(d, s, t, ss, n, pe)
#define SHMEM__iput_7(c, d, s, t, ss, n, pe)                                               \
    SHMEM__PICK(SHMEM__G_RMA, d, shmem_ctx_, _iput)(c, d, s, t, ss, n, pe)
#define shmem_iget(...) SHMEM__BY_NARGS(SHMEM__iget_, __VA_ARGS__)
#define SHMEM__iget_6(d, s, t, ss, n, pe)                                                  \
    SHMEM__PICK(SHMEM__G_RMA, d, shmem_, _iget)(d, s, t, ss, n, pe)
#define SHMEM__iget_7(c, d, s, t, ss, n, pe)                                               \
    SHMEM__PICK(SHMEM__G_RMA, d, shmem_ctx_, _iget)(c, d, s, t, ss, n, pe)
#define shmem_put_signal(...) SHMEM__BY_NARGS(SHMEM__put_signal_, __VA_ARGS__)
#define SHMEM__put_signal_7(d, s, n, a, v, o, pe)                                          \
    SHMEM__PICK(SHMEM__G_RMA, d, shmem_, _put_signal)(d, s, n, a, v, o, pe)
#define SHMEM__put_signal_8(c, d, s, n, a, v, o, pe)                                       \
    SHMEM__PICK(SHMEM__G_RMA, d, shmem_ctx_, _put_signal)(c, d, s, n, a, v, o, pe)
#define shmem_put_signal_nbi(...) SHMEM__BY_NARGS(SHMEM__put_signal_nbi_, __VA_ARGS__)
#define SHMEM__put_signal_nbi_7(d, s, n, a, v, o, pe)                                      \
    SHMEM__PICK(SHMEM__G_RMA, d, shmem_, _put_signal_nbi)(d, s, n, a, v, o, pe)
#define SHMEM__put_signal_nbi_8(c, d, s, n, a, v, o, pe)                                   \
    SHMEM__PICK(SHMEM__G_RMA, d, shmem_ctx_, _put_signal_nbi)(c, d, s, n, a, v, o, pe)

/* ---- atomics: (dest, ...) or (ctx, dest, ...) ---------------------------------- */
#define shmem_atomic_fetch(...) SHMEM__BY_NARGS(SHMEM__afetch_, __VA_ARGS__)
#define SHMEM__afetch_2(s, pe) SHMEM__PICK(SHMEM__G_AMO_EXT, s, shmem_, _atomic_fetch)(s, pe)
#define SHMEM__afetch_3(c, s, pe)                                                          \
    SHMEM__PICK(SHMEM__G_AMO_EXT, s, shmem_ctx_, _atomic_fetch)(c, s, pe)
#define shmem_atomic_set(...) SHMEM__BY_NARGS(SHMEM__aset_, __VA_ARGS__)
#define SHMEM__aset_3(d, v, pe) SHMEM__PICK(SHMEM__G_AMO_EXT, d, shmem_, _atomic_set)(d, v, pe)
#define SHMEM__aset_4(c, d, v, pe)                                                         \
    SHMEM__PICK(SHMEM__G_AMO_EXT, d, shmem_ctx_, _atomic_set)(c, d, v, pe)
#define shmem_atomic_swap(...) SHMEM__BY_NARGS(SHMEM__aswap_, __VA_ARGS__)
#define SHMEM__aswap_3(d, v, pe) SHMEM__PICK(SHMEM__G_AMO_EXT, d, shmem_, _atomic_swap)(d, v, pe)
#define SHMEM__aswap_4(c, d, v, pe)                                                        \
    SHMEM__PICK(SHMEM__G_AMO_EXT, d, shmem_ctx_, _atomic_swap)(c, d, v, pe)
#define shmem_atomic_compare_swap(...) SHMEM__BY_NARGS(SHMEM__acswap_, __VA_ARGS__)
#define SHMEM__acswap_4(d, k, v, pe)                                                       \
    SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_, _atomic_compare_swap)(d, k, v, pe)
#define SHMEM__acswap_5(c, d, k, v, pe)                                                    \
    SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_ctx_, _atomic_compare_swap)(c, d, k, v, pe)
#define shmem_atomic_fetch_inc(...) SHMEM__BY_NARGS(SHMEM__afinc_, __VA_ARGS__)
#define SHMEM__afinc_2(d, pe) SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_, _atomic_fetch_inc)(d, pe)
#define SHMEM__afinc_3(c, d, pe)                                                           \
    SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_ctx_, _atomic_fetch_inc)(c, d, pe)
#define shmem_atomic_inc(...) SHMEM__BY_NARGS(SHMEM__ainc_, __VA_ARGS__)
#define SHMEM__ainc_2(d, pe) SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_, _atomic_inc)(d, pe)
#define SHMEM__ainc_3(c, d, pe) SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_ctx_, _atomic_inc)(c, d, pe)
#define shmem_atomic_fetch_add(...) SHMEM__BY_NARGS(SHMEM__afadd_, __VA_ARGS__)
#define SHMEM__afadd_3(d, v, pe)                                                           \
    SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_, _atomic_fetch_add)(d, v, pe)
#define SHMEM__afadd_4(c, d, v, pe)                                                        \
    SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_ctx_, _atomic_fetch_add)(c, d, v, pe)
#define shmem_atomic_add(...) SHMEM__BY_NARGS(SHMEM__aadd_, __VA_ARGS__)
#define SHMEM__aadd_3(d, v, pe) SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_, _atomic_add)(d, v, pe)
#define SHMEM__aadd_4(c, d, v, pe)                                                         \
    SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_ctx_, _atomic_add)(c, d, v, pe)
#define shmem_atomic_fetch_and(...) SHMEM__BY_NARGS(SHMEM__afand_, __VA_ARGS__)
#define SHMEM__afand_3(d, v, pe) SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_, _atomic_fetch_and)(d, v, pe)
#define SHMEM__afand_4(c, d, v, pe)                                                        \
    SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_ctx_, _atomic_fetch_and)(c, d, v, pe)
#define shmem_atomic_and(...) SHMEM__BY_NARGS(SHMEM__aand_, __VA_ARGS__)
#define SHMEM__aand_3(d, v, pe) SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_, _atomic_and)(d, v, pe)
#define SHMEM__aand_4(c, d, v, pe)                                                         \
    SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_ctx_, _atomic_and)(c, d, v, pe)
#define shmem_atomic_fetch_or(...) SHMEM__BY_NARGS(SHMEM__afor_, __VA_ARGS__)
#define SHMEM__afor_3(d, v, pe) SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_, _atomic_fetch_or)(d, v, pe)
#define SHMEM__afor_4(c, d, v, pe)                                                         \
    SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_ctx_, _atomic_fetch_or)(c, d, v, pe)
#define shmem_atomic_or(...) SHMEM__BY_NARGS(SHMEM__aor_, __VA_ARGS__)
#define SHMEM__aor_3(d, v, pe) SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_, _atomic_or)(d, v, pe)
#define SHMEM__aor_4(c, d, v, pe)                                                          \
    SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_ctx_, _atomic_or)(c, d, v, pe)
#define shmem_atomic_fetch_xor(...) SHMEM__BY_NARGS(SHMEM__afxor_, __VA_ARGS__)
#define SHMEM__afxor_3(d, v, pe) SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_, _atomic_fetch_xor)(d, v, pe)
#define SHMEM__afxor_4(c, d, v, pe)                                                        \
    SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_ctx_, _atomic_fetch_xor)(c, d, v, pe)
#define shmem_atomic_xor(...) SHMEM__BY_NARGS(SHMEM__axor_, __VA_ARGS__)
#define SHMEM__axor_3(d, v, pe) SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_, _atomic_xor)(d, v, pe)
#define SHMEM__axor_4(c, d, v, pe)                                                         \
    SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_ctx_, _atomic_xor)(c, d, v, pe)

/* Non-blocking fetching atomics: (fetch, dest, ...) or (ctx, fetch, dest, ...). */
#define shmem_atomic_fetch_nbi(...) SHMEM__BY_NARGS(SHMEM__afetchn_, __VA_ARGS__)
#define SHMEM__afetchn_3(f, s, pe)                                                         \
    SHMEM__PICK(SHMEM__G_AMO_EXT, s, shmem_, _atomic_fetch_nbi)(f, s, pe)
#define SHMEM__afetchn_4(c, f, s, pe)                                                      \
    SHMEM__PICK(SHMEM__G_AMO_EXT, s, shmem_ctx_, _atomic_fetch_nbi)(c, f, s, pe)
#define shmem_atomic_swap_nbi(...) SHMEM__BY_NARGS(SHMEM__aswapn_, __VA_ARGS__)
#define SHMEM__aswapn_4(f, d, v, pe)                                                       \
    SHMEM__PICK(SHMEM__G_AMO_EXT, d, shmem_, _atomic_swap_nbi)(f, d, v, pe)
#define SHMEM__aswapn_5(c, f, d, v, pe)                                                    \
    SHMEM__PICK(SHMEM__G_AMO_EXT, d, shmem_ctx_, _atomic_swap_nbi)(c, f, d, v, pe)
#define shmem_atomic_compare_swap_nbi(...) SHMEM__BY_NARGS(SHMEM__acswapn_, __VA_ARGS__)
#define SHMEM__acswapn_5(f, d, k, v, pe)                                                   \
    SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_, _atomic_compare_swap_nbi)(f, d, k, v, pe)
#define SHMEM__acswapn_6(c, f, d, k, v, pe)                                                \
    SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_ctx_, _atomic_compare_swap_nbi)(c, f, d, k, v, pe)
#define shmem_atomic_fetch_inc_nbi(...) SHMEM__BY_NARGS(SHMEM__afincn_, __VA_ARGS__)
#define SHMEM__afincn_3(f, d, pe)                                                          \
    SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_, _atomic_fetch_inc_nbi)(f, d, pe)
#define SHMEM__afincn_4(c, f, d, pe)                                                       \
    SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_ctx_, _atomic_fetch_inc_nbi)(c, f, d, pe)
#define shmem_atomic_fetch_add_nbi(...) SHMEM__BY_NARGS(SHMEM__afaddn_, __VA_ARGS__)
#define SHMEM__afaddn_4(f, d, v, pe)                                                       \
    SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_, _atomic_fetch_add_nbi)(f, d, v, pe)
#define SHMEM__afaddn_5(c, f, d, v, pe)                                                    \
    SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_ctx_, _atomic_fetch_add_nbi)(c, f, d, v, pe)
#define shmem_atomic_fetch_and_nbi(...) SHMEM__BY_NARGS(SHMEM__afandn_, __VA_ARGS__)
#define SHMEM__afandn_4(f, d, v, pe)                                                       \
    SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_, _atomic_fetch_and_nbi)(f, d, v, pe)
#define SHMEM__afandn_5(c, f, d, v, pe)                                                    \
    SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_ctx_, _atomic_fetch_and_nbi)(c, f, d, v, pe)
#define shmem_atomic_fetch_or_nbi(...) SHMEM__BY_NARGS(SHMEM__aforn_, __VA_ARGS__)
#define SHMEM__aforn_4(f, d, v, pe)                                                        \
    SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_, _atomic_fetch_or_nbi)(f, d, v, pe)
#define SHMEM__aforn_5(c, f, d, v, pe)                                                     \
    SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_ctx_, _atomic_fetch_or_nbi)(c, f, d, v, pe)
#define shmem_atomic_fetch_xor_nbi(...) SHMEM__BY_NARGS(SHMEM__afxorn_, __VA_ARGS__)
#define SHMEM__afxorn_4(f, d, v, pe)                                                       \
    SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_, _atomic_fetch_xor_nbi)(f, d, v, pe)
#define SHMEM__afxorn_5(c, f, d, v, pe)                                                    \
    SHMEM__PICK(SHMEM__G_AMO_BIT, d, shmem_ctx_, _atomic_fetch_xor_nbi)(c, f, d, v, pe)

/* Deprecated generic atomics (no context form). */
#define shmem_fetch(s, pe) SHMEM__PICK(SHMEM__G_AMO_EXT, s, shmem_, _atomic_fetch)(s, pe)
#define shmem_set(d, v, pe) SHMEM__PICK(SHMEM__G_AMO_EXT, d, shmem_, _atomic_set)(d, v, pe)
#define shmem_swap(d, v, pe) SHMEM__PICK(SHMEM__G_AMO_EXT, d, shmem_, _atomic_swap)(d, v, pe)
#define shmem_cswap(d, k, v, pe)                                                           \
    SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_, _atomic_compare_swap)(d, k, v, pe)
#define shmem_finc(d, pe) SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_, _atomic_fetch_inc)(d, pe)
#define shmem_inc(d, pe) SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_, _atomic_inc)(d, pe)
#define shmem_fadd(d, v, pe) SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_, _atomic_fetch_add)(d, v, pe)
#define shmem_add(d, v, pe) SHMEM__PICK(SHMEM__G_AMO_STD, d, shmem_, _atomic_add)(d, v, pe)

/* ---- collectives (team first) ------------------------------------------------------ */
/* shmem_sync(team) is shmem_team_sync; with four arguments it is the
 * deprecated active-set shmem_sync (the parenthesised name is the function). */
#define shmem_sync(...) SHMEM__BY_NARGS(SHMEM__sync_, __VA_ARGS__)
#define SHMEM__sync_1(t) shmem_team_sync(t)
#define SHMEM__sync_4(s, l, n, p) (shmem_sync)(s, l, n, p)
#define shmem_broadcast(t, d, s, n, r) SHMEM__PICK(SHMEM__G_RMA, d, shmem_, _broadcast)(t, d, s, n, r)
#define shmem_collect(t, d, s, n) SHMEM__PICK(SHMEM__G_RMA, d, shmem_, _collect)(t, d, s, n)
#define shmem_fcollect(t, d, s, n) SHMEM__PICK(SHMEM__G_RMA, d, shmem_, _fcollect)(t, d, s, n)
#define shmem_alltoall(t, d, s, n) SHMEM__PICK(SHMEM__G_RMA, d, shmem_, _alltoall)(t, d, s, n)
#define shmem_alltoalls(t, d, s, dst, sst, n)                                              \
    SHMEM__PICK(SHMEM__G_RMA, d, shmem_, _alltoalls)(t, d, s, dst, sst, n)
#define shmem_and_reduce(t, d, s, n) SHMEM__PICK(SHMEM__G_RED_BIT, d, shmem_, _and_reduce)(t, d, s, n)
#define shmem_or_reduce(t, d, s, n) SHMEM__PICK(SHMEM__G_RED_BIT, d, shmem_, _or_reduce)(t, d, s, n)
#define shmem_xor_reduce(t, d, s, n) SHMEM__PICK(SHMEM__G_RED_BIT, d, shmem_, _xor_reduce)(t, d, s, n)
#define shmem_max_reduce(t, d, s, n)                                                       \
    SHMEM__PICK(SHMEM__G_RED_MINMAX, d, shmem_, _max_reduce)(t, d, s, n)
#define shmem_min_reduce(t, d, s, n)                                                       \
    SHMEM__PICK(SHMEM__G_RED_MINMAX, d, shmem_, _min_reduce)(t, d, s, n)
#define shmem_sum_reduce(t, d, s, n) SHMEM__PICK(SHMEM__G_RED_ARITH, d, shmem_, _sum_reduce)(t, d, s, n)
#define shmem_prod_reduce(t, d, s, n)                                                      \
    SHMEM__PICK(SHMEM__G_RED_ARITH, d, shmem_, _prod_reduce)(t, d, s, n)

/* ---- point-to-point synchronization ------------------------------------------------ */
#define shmem_wait_until(v, c, x) SHMEM__PICK(SHMEM__G_SYNC, v, shmem_, _wait_until)(v, c, x)
#define shmem_wait_until_all(v, n, st, c, x)                                               \
    SHMEM__PICK(SHMEM__G_SYNC, v, shmem_, _wait_until_all)(v, n, st, c, x)
#define shmem_wait_until_any(v, n, st, c, x)                                               \
    SHMEM__PICK(SHMEM__G_SYNC, v, shmem_, _wait_until_any)(v, n, st, c, x)
#define shmem_wait_until_some(v, n, i, st, c, x)                                           \
    SHMEM__PICK(SHMEM__G_SYNC, v, shmem_, _wait_until_some)(v, n, i, st, c, x)
#define shmem_wait_until_all_vector(v, n, st, c, x)                                        \
    SHMEM__PICK(SHMEM__G_SYNC, v, shmem_, _wait_until_all_vector)(v, n, st, c, x)
#define shmem_wait_until_any_vector(v, n, st, c, x)                                        \
    SHMEM__PICK(SHMEM__G_SYNC, v, shmem_, _wait_until_any_vector)(v, n, st, c, x)
#define shmem_wait_until_some_vector(v, n, i, st, c, x)                                    \
    SHMEM__PICK(SHMEM__G_SYNC, v, shmem_, _wait_until_some_vector)(v, n, i, st, c, x)
#define shmem_test(v, c, x) SHMEM__PICK(SHMEM__G_SYNC, v, shmem_, _test)(v, c, x)
#define shmem_test_all(v, n, st, c, x) SHMEM__PICK(SHMEM__G_SYNC, v, shmem_, _test_all)(v, n, st, c, x)
#define shmem_test_any(v, n, st, c, x) SHMEM__PICK(SHMEM__G_SYNC, v, shmem_, _test_any)(v, n, st, c, x)
#define shmem_test_some(v, n, i, st, c, x)                                                 \
    SHMEM__PICK(SHMEM__G_SYNC, v, shmem_, _test_some)(v, n, i, st, c, x)
#define shmem_test_all_vector(v, n, st, c, x)                                              \
    SHMEM__PICK(SHMEM__G_SYNC, v, shmem_, _test_all_vector)(v, n, st, c, x)
#define shmem_test_any_vector(v, n, st, c, x)                                              \
    SHMEM__PICK(SHMEM__G_SYNC, v, shmem_, _test_any_vector)(v, n, st, c, x)
#define shmem_test_some_vector(v, n, i, st, c, x)                                          \
    SHMEM__PICK(SHMEM__G_SYNC, v, shmem_, _test_some_vector)(v, n, i, st, c, x)

#endif
#endif
