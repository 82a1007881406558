/* The AOS_* variable table: parsing of sizes, integers and booleans, bad
 * values named in the error, and aos_init refusing a bad environment. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/check.h"
#include "core/config.h"

static int visited;

static void count_var(const char *name, const char *value, const char *def, const char *meaning,
                      void *arg)
{
    (void)arg;
    CHECK(strncmp(name, "AOS_", 4) == 0);
    CHECK(value != NULL && def != NULL && meaning != NULL && strlen(meaning) > 10);
    visited++;
}

/* aos_init's status, with what it printed to stderr in err. */
static int init_saying(char *err, size_t cap)
{
    FILE *f = tmpfile();
    CHECK(f != NULL);
    fflush(stderr);
    int saved = dup(2);
    CHECK(saved >= 0 && dup2(fileno(f), 2) == 2);
    int rc = aos_init();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    size_t n = fread(err, 1, cap - 1, f);
    err[n] = '\0';
    fclose(f);
    fputs(err, stderr);
    return rc;
}

/* Values that parse but exceed a limit are refused, naming the variable. */
static void check_limits(void)
{
    static const char *const too_large[][2] = {
        {"AOS_HEAP_SIZE", "18446744073709551615"},  /* once a 0-byte heap */
        {"AOS_HEAP_SIZE", "33T"},
        {"AOS_SEGMENT_SPACE", "18446744073709551615"},
        {"AOS_SEGMENT_SPACE", "16383T"},
        {"AOS_RPC_QUEUE_DEPTH", "500000000"},       /* once committed up front */
        {"AOS_RPC_QUEUE_DEPTH", "65537"},
        {"AOS_RPC_PENDING_MAX", "65537"},
        {"AOS_SLEEP_US", "18446744073709551615"},   /* once wrapped to nanoseconds */
        {"AOS_CLUSTER_SIZE", "1048577"},
        {"AOS_NODE_SIZE", "18446744073709551615"},
        {"AOS_BOOT_TIMEOUT", "86401"},
        {"AOS_BOOT_TIMEOUT", "99999999999999999999"}, /* once "not valid" */
        {"AOS_SPIN_COUNT", "99999999999999999999"},
        {"AOS_HEAP_SIZE", "99999999999999999999"},
    };
    char err[4096];
    for (size_t i = 0; i < sizeof too_large / sizeof too_large[0]; i++) {
        setenv(too_large[i][0], too_large[i][1], 1);
        CHECK_RC(init_saying(err, sizeof err), AOS_ERR_CONFIG);
        CHECK(strstr(err, too_large[i][0]) != NULL && strstr(err, "too large") != NULL);
        unsetenv(too_large[i][0]);
    }
    /* Within the limits but not together: the queue does not fit the space. */
    setenv("AOS_RPC_QUEUE_DEPTH", "65536", 1);
    setenv("AOS_SEGMENT_SPACE", "1M", 1);
    int rc = init_saying(err, sizeof err);
    CHECK(rc != AOS_OK && aos_initialized() == 0);
    CHECK(strstr(err, "AOS_RPC_QUEUE_DEPTH") != NULL && strstr(err, "AOS_SEGMENT_SPACE") != NULL);
    unsetenv("AOS_RPC_QUEUE_DEPTH");
    unsetenv("AOS_SEGMENT_SPACE");
}

int main(void)
{
    check_limits();
    uint64_t v = 0;
    CHECK_OK(aos__config_parse_size("4096", &v));
    CHECK(v == 4096);
    CHECK_OK(aos__config_parse_size("64K", &v));
    CHECK(v == 65536);
    CHECK_OK(aos__config_parse_size("3M", &v));
    CHECK(v == 3u << 20);
    CHECK_OK(aos__config_parse_size("32G", &v));
    CHECK(v == (uint64_t)32 << 30);
    CHECK_OK(aos__config_parse_size("2GiB", &v));
    CHECK(v == (uint64_t)2 << 30);
    CHECK_OK(aos__config_parse_size("1t", &v));
    CHECK(v == (uint64_t)1 << 40);
    v = 7;
    CHECK_RC(aos__config_parse_size("", &v), AOS_ERR_CONFIG);
    CHECK_RC(aos__config_parse_size("abc", &v), AOS_ERR_CONFIG);
    CHECK_RC(aos__config_parse_size("-5", &v), AOS_ERR_CONFIG);
    CHECK_RC(aos__config_parse_size("12Q", &v), AOS_ERR_CONFIG);
    CHECK_RC(aos__config_parse_size("12GG", &v), AOS_ERR_CONFIG);
    CHECK_RC(aos__config_parse_size("99999999999999999999", &v), AOS_ERR_CONFIG);
    CHECK_RC(aos__config_parse_size("17000000000T", &v), AOS_ERR_CONFIG); /* overflow */
    CHECK(v == 7); /* untouched on failure */
    CHECK_OK(aos__config_parse_uint("0", &v));
    CHECK(v == 0);
    CHECK_RC(aos__config_parse_uint("1.5", &v), AOS_ERR_CONFIG);
    CHECK_RC(aos__config_parse_uint("-1", &v), AOS_ERR_CONFIG);
    CHECK_OK(aos__config_parse_bool("yes", &v));
    CHECK(v == 1);
    CHECK_OK(aos__config_parse_bool("OFF", &v));
    CHECK(v == 0);
    CHECK_RC(aos__config_parse_bool("maybe", &v), AOS_ERR_CONFIG);

    /* Every variable is visited with its value, default and meaning. */
    CHECK_OK(aos_config_visit(count_var, NULL));
    CHECK(visited >= 7);

    /* A bad value stops aos_init with AOS_ERR_CONFIG (stderr names it). */
    setenv("AOS_HEAP_SIZE", "lots", 1);
    CHECK_RC(aos_init(), AOS_ERR_CONFIG);
    CHECK(aos_initialized() == 0);
    visited = 0;
    CHECK_RC(aos_config_visit(count_var, NULL), AOS_ERR_CONFIG);
    CHECK(visited >= 7); /* still visits all */
    setenv("AOS_HEAP_SIZE", "1K", 1); /* below the minimum */
    CHECK_RC(aos_init(), AOS_ERR_CONFIG);
    setenv("AOS_HEAP_SIZE", "64M", 1);
    setenv("AOS_SPIN_COUNT", "x", 1);
    CHECK_RC(aos_init(), AOS_ERR_CONFIG);
    unsetenv("AOS_SPIN_COUNT");
    CHECK_OK(aos_init()); /* a small heap is fine */
    CHECK(aos_malloc((size_t)100 << 20) == NULL);
    void *p = aos_malloc(1 << 20);
    CHECK(p != NULL);
    aos_free(p);
    CHECK_OK(aos_finalize());
    return 0;
}
