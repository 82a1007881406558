/* The machine model's parameters: defaults, the model file, loading. */
#include "coll/model.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aos.h"
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
#undef AOS__MODEL_DEFAULT
    m->from_file = 0;
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
enum { AOS__MODEL_KEYS = 0 AOS__MODEL_TABLE(AOS__MODEL_COUNT) };
#undef AOS__MODEL_COUNT
_Static_assert(AOS__MODEL_KEYS <= 64, "aos__model_read keeps a bit per key in 64");

/* Lines "key value"; '#' starts a comment. Every key of the table must be
 * there with a positive value; unknown keys are an error (a typo would
 * otherwise silently leave a default in place). */
int aos__model_read(const char *path, struct aos__model *m)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return AOS_ERR_SYSTEM;
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
        if (sscanf(line, " %63s %lf", key, &value) != 2 || !(value >= 0.0)) {
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
#undef AOS__MODEL_PARSE
        if (hit == 0)
            rc = AOS_ERR_CONFIG;
        seen |= hit;
    }
    fclose(f);
    bit = 1;
#define AOS__MODEL_ALL(field, k, def, meaning) all |= bit, bit <<= 1;
    AOS__MODEL_TABLE(AOS__MODEL_ALL)
#undef AOS__MODEL_ALL
    if (rc == AOS_OK && seen != all)
        rc = AOS_ERR_CONFIG;
    if (rc != AOS_OK)
        return rc;
    out.from_file = 1;
    *m = out;
    return AOS_OK;
}

int aos__model_write(const char *path, const struct aos__model *m, const char *comment)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return AOS_ERR_SYSTEM;
    fprintf(f, "# aos machine model (aos-probe); times in nanoseconds\n");
    if (comment != NULL)
        fprintf(f, "# %s\n", comment);
#define AOS__MODEL_PRINT(field, key, def, meaning) fprintf(f, "%-20s %.6g  # %s\n", key, m->field, meaning);
    AOS__MODEL_TABLE(AOS__MODEL_PRINT)
#undef AOS__MODEL_PRINT
    return fclose(f) == 0 ? AOS_OK : AOS_ERR_SYSTEM;
}

int aos__model_no_file;

int aos__model_start(void)
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
    fprintf(stderr, "aos: model file %s: %s; run aos-probe to write a new one%s\n", path,
            rc == AOS_ERR_SYSTEM ? strerror(errno) : "not a model (bad or missing line)",
            must ? "" : " (using defaults)");
    aos__model_defaults(&current);
    return must ? AOS_ERR_CONFIG : AOS_OK;
}
