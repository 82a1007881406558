/* The AOS_* variable table: parsing of sizes, integers and booleans, bad
 * values named in the error, and aos_init refusing a bad environment. */
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
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
