#include "core/config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "aos.h"

int aos__config_parse_uint(const char *text, uint64_t *out)
{
    if (text == NULL || *text == '\0' || *text == '-' || *text == '+')
        return AOS_ERR_CONFIG;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0')
        return AOS_ERR_CONFIG;
    *out = (uint64_t)v;
    return AOS_OK;
}

int aos__config_parse_size(const char *text, uint64_t *out)
{
    if (text == NULL || *text < '0' || *text > '9')
        return AOS_ERR_CONFIG;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0)
        return AOS_ERR_CONFIG;
    unsigned shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    case 't': case 'T': shift = 40; break;
    default: return AOS_ERR_CONFIG;
    }
    if (*end != '\0') {
        end++;
        if (*end == 'i')
            end++;
        if (*end == 'b' || *end == 'B')
            end++;
        if (*end != '\0')
            return AOS_ERR_CONFIG;
    }
    if (shift != 0 && v > (UINT64_MAX >> shift))
        return AOS_ERR_CONFIG;
    *out = (uint64_t)v << shift;
    return AOS_OK;
}

int aos__config_parse_bool(const char *text, uint64_t *out)
{
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off"};
    if (text == NULL)
        return AOS_ERR_CONFIG;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(text, yes[i]) == 0) {
            *out = 1;
            return AOS_OK;
        }
        if (strcasecmp(text, no[i]) == 0) {
            *out = 0;
            return AOS_OK;
        }
    }
    return AOS_ERR_CONFIG;
}

static const char *kind_hint(int (*parse)(const char *, uint64_t *))
{
    if (parse == aos__config_parse_size)
        return "a size in bytes such as 4096, 64M or 32G";
    if (parse == aos__config_parse_bool)
        return "0 or 1 (also yes/no, true/false, on/off)";
    return "a non-negative integer";
}

/* Upper limits, beyond which a value passes parsing but breaks something:
 * the arena (heap + segment space + the rest) must fit the 128 TiB of a
 * process's address space without its size arithmetic wrapping; sleeps are
 * turned into nanoseconds; the RPC queue is committed when aos_init makes
 * it, and pending RPCs bound memory only if their cap does; PE groupings
 * count PEs, of which a job has at most 2^20; start-up waits are turned
 * into milliseconds. */
static const struct {
    const char *var;
    uint64_t max;
    const char *why;
} limits[] = {
    {"AOS_HEAP_SIZE", (uint64_t)32 << 40, "32T (the arena must fit the address space)"},
    {"AOS_SEGMENT_SPACE", (uint64_t)32 << 40, "32T (the arena must fit the address space)"},
    {"AOS_SLEEP_US", 10000000, "10000000 (10 s)"},
    {"AOS_RPC_QUEUE_DEPTH", 65536, "65536 (the queue is committed up front)"},
    {"AOS_RPC_PENDING_MAX", 65536, "65536 (each pending call may hold 4 KiB of arguments)"},
    {"AOS_CLUSTER_SIZE", 1u << 20, "1048576 (the most PEs a job has)"},
    {"AOS_NODE_SIZE", 1u << 20, "1048576 (the most PEs a job has)"},
    {"AOS_BOOT_TIMEOUT", 86400, "86400 (a day)"},
    {"AOS_NET_WAKEUP", 2, "2 (the worker's event descriptor)"},
};

static int check_limit(const char *var, const char *text, uint64_t v)
{
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        if (strcmp(limits[i].var, var) == 0 && v > limits[i].max) {
            fprintf(stderr, "aos: %s='%s' is too large: the maximum is %s\n", var, text,
                    limits[i].why);
            return AOS_ERR_CONFIG;
        }
    }
    return AOS_OK;
}

/* Only decimal digits: a number that a parser refused for not fitting. */
static int all_digits(const char *text)
{
    if (*text == '\0')
        return 0;
    while (*text >= '0' && *text <= '9')
        text++;
    return *text == '\0';
}

/* Parses one variable; the value text in effect is written to *shown. */
static int load_one(const char *var, int (*parse)(const char *, uint64_t *),
                    const char *def, uint64_t min, uint64_t *field, const char **shown)
{
    const char *text = getenv(var);
    if (text == NULL)
        text = def;
    *shown = text;
    uint64_t v = 0;
    if (parse(text, &v) != AOS_OK) {
        if (parse != aos__config_parse_bool && all_digits(text))
            fprintf(stderr, "aos: %s='%s' is too large: it does not fit 64 bits\n", var, text);
        else
            fprintf(stderr, "aos: %s='%s' is not valid: expected %s\n", var, text,
                    kind_hint(parse));
        return AOS_ERR_CONFIG;
    }
    if (v < min) {
        fprintf(stderr, "aos: %s='%s' is too small: the minimum is %" PRIu64 "\n", var, text,
                min);
        return AOS_ERR_CONFIG;
    }
    if (check_limit(var, text, v) != AOS_OK)
        return AOS_ERR_CONFIG;
    *field = v;
    return AOS_OK;
}

#define AOS__PARSER_SIZE aos__config_parse_size
#define AOS__PARSER_UINT aos__config_parse_uint
#define AOS__PARSER_BOOL aos__config_parse_bool

int aos__config_load(struct aos__config *out)
{
    struct aos__config cfg;
    const char *shown = NULL;
    int rc = AOS_OK;
#define AOS__CONFIG_LOAD(field, var, kind, def, min, meaning)                               \
    if (load_one(var, AOS__PARSER_##kind, def, min, &cfg.field, &shown) != AOS_OK)          \
        rc = AOS_ERR_CONFIG;
    AOS__CONFIG_TABLE(AOS__CONFIG_LOAD)
#undef AOS__CONFIG_LOAD
    if (rc == AOS_OK)
        *out = cfg;
    return rc;
}

int aos_config_visit(aos_config_visit_fn fn, void *arg)
{
    if (fn == NULL)
        return AOS_ERR_NULL;
    int rc = AOS_OK;
    uint64_t scratch = 0;
    const char *shown = NULL;
#define AOS__CONFIG_VISIT(field, var, kind, def, min, meaning)                              \
    if (load_one(var, AOS__PARSER_##kind, def, min, &scratch, &shown) != AOS_OK)            \
        rc = AOS_ERR_CONFIG;                                                                 \
    fn(var, shown, def, meaning, arg);
    AOS__CONFIG_TABLE(AOS__CONFIG_VISIT)
#undef AOS__CONFIG_VISIT
    return rc;
}
