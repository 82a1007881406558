/* The machine model's parameters: defaults, the model file, loading. */
#include "coll/model.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aos.h"
#include "core/bootstrap.h"
#include "core/runtime.h"

static struct aos__model current;
static int current_set;
static unsigned generation;

void aos__model_set(const struct aos__model *m)
{
    current = *m;
    current_set = 1;
    generation++;
}

unsigned aos__model_generation(void)
{
    return generation;
}

void aos__model_defaults(struct aos__model *m)
{
#define AOS__MODEL_DEFAULT(field, key, def, meaning) m->field = def;
    AOS__MODEL_TABLE(AOS__MODEL_DEFAULT)
    AOS__MODEL_NET_TABLE(AOS__MODEL_DEFAULT)
#undef AOS__MODEL_DEFAULT
    m->from_file = 0;
    m->net_measured = 0;
}

const struct aos__model *aos__model(void)
{
    if (!current_set) {
        aos__model_defaults(&current);
        current_set = 1;
    }
    return &current;
}

int aos__model_path(char *buf, size_t len)
{
    const char *explicit_path = getenv("AOS_MODEL_FILE");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (explicit_path != NULL && explicit_path[0] != '\0')
        n = snprintf(buf, len, "%s", explicit_path);
    else if (xdg != NULL && xdg[0] != '\0')
        n = snprintf(buf, len, "%s/aos/model", xdg);
    else if (home != NULL && home[0] != '\0')
        n = snprintf(buf, len, "%s/.cache/aos/model", home);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

#define AOS__MODEL_COUNT(field, k, def, meaning) +1
enum {
    AOS__MODEL_KEYS = 0 AOS__MODEL_TABLE(AOS__MODEL_COUNT),
    AOS__MODEL_NET_KEYS = 0 AOS__MODEL_NET_TABLE(AOS__MODEL_COUNT)
};
#undef AOS__MODEL_COUNT
_Static_assert(AOS__MODEL_KEYS + AOS__MODEL_NET_KEYS <= 64,
               "aos__model_read keeps a bit per key in 64");

/* A model file is a short regular file: anything else (a device such as
 * /dev/zero, a FIFO nobody writes, a huge file) is refused before it is
 * read, so that reading cannot block or run on without end. */
#define AOS__MODEL_FILE_MAX (64 * 1024)

/* The file's text, NUL-terminated, in buf; 0 or -1 with errno set. */
static int slurp(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0)
        goto fail;
    if (!S_ISREG(st.st_mode)) {
        errno = EINVAL;
        goto fail;
    }
    if ((uint64_t)st.st_size >= cap) {
        errno = EFBIG;
        goto fail;
    }
    size_t used = 0;
    for (;;) {
        ssize_t n = read(fd, buf + used, cap - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto fail;
        if (n == 0)
            break;
        used += (size_t)n;
        if (used == cap - 1) { /* grew while we read */
            errno = EFBIG;
            goto fail;
        }
    }
    buf[used] = '\0';
    close(fd);
    return 0;
fail:;
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

/* A value the planner can use: finite, and positive except the contention
 * line's slope c and intercept b, either of which may be 0 (not both:
 * checked once the file is read). */
static int valid_value(const char *key, double value)
{
    if (!isfinite(value) || value < 0.0)
        return 0;
    return value > 0.0 || strcmp(key, "contention_base_ns") == 0 ||
           strcmp(key, "contention_ns") == 0;
}

/* Lines "key value"; '#' starts a comment. Every key of the table must be
 * there with a valid value; unknown keys are an error (a typo would
 * otherwise silently leave a default in place). The network tier's keys
 * come all together or not at all (a file measured on one node). */
int aos__model_read(const char *path, struct aos__model *m)
{
    static char text[AOS__MODEL_FILE_MAX];
    if (slurp(path, text, sizeof text) != 0)
        return AOS_ERR_SYSTEM;
    FILE *f = fmemopen(text, strlen(text), "r");
    if (f == NULL)
        return AOS_ERR_NO_MEMORY;
    struct aos__model out;
    aos__model_defaults(&out);
    uint64_t seen = 0, all = 0, bit = 1; /* a bit per key of the table */
    char line[256];
    int rc = AOS_OK;
    while (rc == AOS_OK && fgets(line, sizeof line, f) != NULL) {
        char key[64];
        double value;
        char *hash = strchr(line, '#');
        if (hash != NULL)
            *hash = '\0';
        if (sscanf(line, " %63s", key) != 1)
            continue; /* blank or comment */
        if (sscanf(line, " %63s %lf", key, &value) != 2 || !valid_value(key, value)) {
            rc = AOS_ERR_CONFIG;
            break;
        }
        uint64_t hit = 0;
        bit = 1;
#define AOS__MODEL_PARSE(field, k, def, meaning)                                           \
    if (strcmp(key, k) == 0) {                                                             \
        out.field = value;                                                                 \
        hit = bit;                                                                         \
    }                                                                                      \
    bit <<= 1;
        AOS__MODEL_TABLE(AOS__MODEL_PARSE)
        AOS__MODEL_NET_TABLE(AOS__MODEL_PARSE)
#undef AOS__MODEL_PARSE
        if (hit == 0)
            rc = AOS_ERR_CONFIG;
        seen |= hit;
    }
    fclose(f);
    bit = 1;
    uint64_t net = 0;
#define AOS__MODEL_ALL(field, k, def, meaning) all |= bit, bit <<= 1;
#define AOS__MODEL_NET(field, k, def, meaning) net |= bit, bit <<= 1;
    AOS__MODEL_TABLE(AOS__MODEL_ALL)
    AOS__MODEL_NET_TABLE(AOS__MODEL_NET)
#undef AOS__MODEL_NET
#undef AOS__MODEL_ALL
    uint64_t net_seen = seen & net;
    if (rc == AOS_OK && ((seen & all) != all || (net_seen != 0 && net_seen != net)))
        rc = AOS_ERR_CONFIG;
    if (rc == AOS_OK && !(out.c + out.b > 0.0)) /* T(1) = c + b divides */
        rc = AOS_ERR_CONFIG;
    if (rc != AOS_OK)
        return rc;
    out.from_file = 1;
    out.net_measured = net_seen != 0;
    *m = out;
    return AOS_OK;
}

/* What the file gets for a value: the value, unless the reader would
 * refuse it. A measured cost is a difference of two timings, which noise
 * can take to 0 or below (aos-probe clamps those to 0); such a cost is
 * below what the run resolves, and is written as MIN_COST (as is the
 * contention line's b when c and b are both 0), so that the file
 * aos-probe writes is always one aos reads. */
#define MIN_COST 1e-3
static double written(const char *key, double value)
{
    return valid_value(key, value) ? value : MIN_COST;
}

/* Written beside the file, then renamed over it: a PE starting meanwhile
 * reads the old model or the new one, never half of one. */
int aos__model_write(const char *path, const struct aos__model *m, const char *comment)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return AOS_ERR_SYSTEM;
    }
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return AOS_ERR_SYSTEM;
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        close(fd);
        unlink(tmp);
        return AOS_ERR_SYSTEM;
    }
    fchmod(fd, 0644);
    struct aos__model w = *m;
    if (!(w.c + w.b > 0.0))
        w.b = MIN_COST;
    fprintf(f, "# aos machine model (aos-probe); times in nanoseconds\n");
    if (comment != NULL)
        fprintf(f, "# %s\n", comment);
#define AOS__MODEL_PRINT(field, key, def, meaning)                                          \
    fprintf(f, "%-20s %.6g  # %s\n", key, written(key, w.field), meaning);
    AOS__MODEL_TABLE(AOS__MODEL_PRINT)
    if (w.net_measured) {
        AOS__MODEL_NET_TABLE(AOS__MODEL_PRINT)
    }
#undef AOS__MODEL_PRINT
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        errno = saved;
        return AOS_ERR_SYSTEM;
    }
    return AOS_OK;
}

int aos__model_no_file;

/* What each PE contributes to the model agreement: whether its model loaded,
 * and (PE 0 only) the model itself. */
struct model_vote {
    int32_t rc;
    uint32_t has_model;
    struct aos__model model;
};

/* Every PE plans collectives with the same model, or they wait for each
 * other at different places: all use PE 0's. A PE whose model failed to
 * load (a file AOS_MODEL_FILE names is broken) fails aos_init on every PE
 * alike instead of leaving the others waiting for it. */
static int agree(int my_rc)
{
    struct model_vote mine = {.rc = my_rc, .has_model = aos__rt.me == 0};
    if (mine.has_model)
        mine.model = current;
    size_t len = mine.has_model ? sizeof mine : offsetof(struct model_vote, model);
    char *all = NULL;
    size_t *offs = NULL;
    int rc = aos__bootstrap_allgather(&aos__rt, &mine, len, &all, &offs);
    if (rc != AOS_OK)
        return rc;
    size_t n = (size_t)aos__rt.npes;
    rc = my_rc;
    for (size_t pe = 0; pe < n && rc == AOS_OK; pe++) {
        struct model_vote v;
        size_t got = offs[pe + 1] - offs[pe];
        memset(&v, 0, sizeof v);
        memcpy(&v, all + offs[pe], got < sizeof v ? got : sizeof v);
        if (got < offsetof(struct model_vote, model) || v.rc != AOS_OK) {
            fprintf(stderr, "aos: PE %d: PE %zu could not load the machine model; stopping\n",
                    aos__rt.me, pe);
            rc = AOS_ERR_CONFIG;
        } else if (pe == 0) {
            if (got != sizeof v || !v.has_model) {
                rc = AOS_ERR_BOOTSTRAP;
            } else if (memcmp(&v.model, &current, sizeof current) != 0) {
                aos__debug("model: mine differs from PE 0's; using PE 0's");
                current = v.model;
            }
        }
    }
    free(all);
    free(offs);
    return rc;
}

static int load(void)
{
    char path[4096];
    aos__model_defaults(&current);
    current_set = 1;
    generation++;
    if (aos__model_no_file) {
        aos__debug("model: no file read (aos-probe measures afresh); defaults");
        return AOS_OK;
    }
    if (aos__model_path(path, sizeof path) != 0) {
        aos__debug("model: no place for a model file (no HOME); defaults");
        return AOS_OK;
    }
    const char *explicit_path = getenv("AOS_MODEL_FILE");
    int must = explicit_path != NULL && explicit_path[0] != '\0';
    int rc = aos__model_read(path, &current);
    if (rc == AOS_OK) {
        aos__debug("model: loaded %s", path);
        return AOS_OK;
    }
    if (rc == AOS_ERR_SYSTEM && errno == ENOENT && !must) {
        aos__debug("model: no file at %s; defaults", path); /* none measured here */
        return AOS_OK;
    }
    const char *why = "not a model (a bad, missing or unknown line)";
    if (rc == AOS_ERR_SYSTEM)
        why = errno == EINVAL  ? "not a regular file"
              : errno == EFBIG ? "too large for a model"
                               : strerror(errno);
    fprintf(stderr, "aos: model file %s: %s; run aos-probe to write a new one%s\n", path, why,
            must ? "" : " (using defaults)");
    aos__model_defaults(&current);
    return must ? AOS_ERR_CONFIG : AOS_OK;
}

int aos__model_start(void)
{
    return agree(load());
}
