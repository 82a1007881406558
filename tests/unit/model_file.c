/* Reading and writing the machine model file: a device or a FIFO named as
 * the model is refused at once (reading /dev/zero ran on forever, opening a
 * FIFO nobody writes blocked), values the planner cannot use (0 where a
 * cost must be positive, inf, nan, negative) are refused, what aos-probe
 * writes reads back (costs it measured as 0 included), and its write
 * replaces the file in one step (a reader never sees half of one). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/check.h"
#include "coll/model.h"

static char dir[4096];

/* CHAIN_MODEL with the value of `key` replaced by `value`, at path. */
static void variant(const char *path, const char *key, const char *value)
{
    FILE *in = fopen(CHAIN_MODEL, "r"), *out = fopen(path, "w");
    CHECK(in != NULL && out != NULL);
    char line[512];
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, in) != NULL) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ' ')
            fprintf(out, "%s %s\n", key, value);
        else
            fputs(line, out);
    }
    fclose(in);
    CHECK(fclose(out) == 0);
}

static void check_values(void)
{
    char path[4200];
    struct aos__model m;
    snprintf(path, sizeof path, "%s/values", dir);
    CHECK_OK(aos__model_read(CHAIN_MODEL, &m)); /* contention_base_ns 0 is allowed */
    static const char *const bad[][2] = {
        {"latency_ns", "0"},       {"latency_ns", "inf"},   {"per_byte_ns", "nan"},
        {"cache_bytes", "1e999"},  {"overhead_ns", "-1"},
        {"contention_ns", "0"}, /* with the chain's b of 0: T(1) would be 0 */
        {"contention_base_ns", "inf"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        variant(path, bad[i][0], bad[i][1]);
        m.L = 12345;
        if (aos__model_read(path, &m) != AOS_ERR_CONFIG) {
            fprintf(stderr, "FAIL: model %s %s accepted\n", bad[i][0], bad[i][1]);
            exit(1);
        }
        CHECK(m.L == 12345); /* untouched */
    }
    /* A flat contention line (c 0, as aos-probe writes when a noisy fit
     * tilts downwards) with a positive b is a model. */
    FILE *f = fopen(path, "w");
    FILE *in = fopen(CHAIN_MODEL, "r");
    CHECK(f != NULL && in != NULL);
    char line[512];
    while (fgets(line, sizeof line, in) != NULL) {
        if (strncmp(line, "contention_ns ", 14) == 0)
            fputs("contention_ns 0\n", f);
        else if (strncmp(line, "contention_base_ns ", 19) == 0)
            fputs("contention_base_ns 3.5\n", f);
        else
            fputs(line, f);
    }
    fclose(in);
    CHECK(fclose(f) == 0);
    CHECK_OK(aos__model_read(path, &m));
    CHECK(m.c == 0 && m.b == 3.5);
    variant(path, "latency_ns", "7.5");
    CHECK_OK(aos__model_read(path, &m));
    CHECK(m.L == 7.5 && m.b == 0 && m.from_file == 1);
    unlink(path);
}

static void check_not_regular(void)
{
    struct aos__model m;
    CHECK_RC(aos__model_read("/dev/zero", &m), AOS_ERR_SYSTEM);
    CHECK(errno == EINVAL);
    char fifo[4200];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK_RC(aos__model_read(fifo, &m), AOS_ERR_SYSTEM);
    CHECK(errno == EINVAL);
    unlink(fifo);
    CHECK_RC(aos__model_read(dir, &m), AOS_ERR_SYSTEM); /* a directory */
}

/* What aos-probe measured as 0 (a difference of two timings that noise
 * took to 0), or a contention line of c = b = 0, is written so that the
 * file reads back: a probe run never leaves a model every PE refuses. */
static void check_written_reads_back(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/zeros", dir);
    struct aos__model m, back;
    aos__model_defaults(&m);
    m.G_dirty_small = 0;
    m.line_fresh = 0;
    m.L = 42;
    m.c = 0;
    m.b = 0;
    m.net_measured = 1;
    m.net_G = 0;
    CHECK_OK(aos__model_write(path, &m, "zeros"));
    CHECK_OK(aos__model_read(path, &back));
    CHECK(back.G_dirty_small > 0 && back.G_dirty_small < 0.01);
    CHECK(back.line_fresh > 0 && back.line_fresh < 0.01);
    CHECK(back.net_G > 0 && back.net_G < 0.01 && back.net_measured == 1);
    CHECK(back.c == 0 && back.b > 0 && back.b < 0.01);
    CHECK(back.L == 42); /* a value the reader takes is written as it is */
    unlink(path);
}

static void check_atomic_write(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/model", dir);
    struct aos__model a, b, back;
    aos__model_defaults(&a);
    aos__model_defaults(&b);
    a.L = 111;
    b.L = 222;
    CHECK_OK(aos__model_write(path, &a, "first"));
    /* A reader that opened the first file keeps reading the first file,
     * whole, while the second is written: the write replaces, it does not
     * truncate and refill. */
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    struct stat before, after;
    CHECK(fstat(fd, &before) == 0);
    CHECK_OK(aos__model_write(path, &b, "second"));
    CHECK(fstat(fd, &after) == 0 && after.st_size == before.st_size && after.st_size > 0);
    char text[8192];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    CHECK(n == before.st_size);
    text[n] = '\0';
    CHECK(strstr(text, "# first") != NULL && strstr(text, "latency_ns           111") != NULL);
    close(fd);
    CHECK_OK(aos__model_read(path, &back));
    CHECK(back.L == 222);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
    unlink(path);
    /* nothing else left in the directory (no temporary file) */
    CHECK(rmdir(dir) == 0);
}

int main(void)
{
    alarm(30); /* a read that blocks or never ends fails the test */
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/aos-model-test.XXXXXX", tmp != NULL ? tmp : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    check_values();
    check_not_regular();
    check_written_reads_back();
    check_atomic_write();
    printf("model files: bad values, devices and FIFOs refused; writes replace\n");
    return 0;
}
