/* 2D heat diffusion (Jacobi) over a grid split into tiles, one per PE.
 *
 * Every iteration each PE computes its tile, then puts its edge rows and
 * columns straight into its neighbours' halo cells with 2D strided puts
 * (columns are a 1-element run with a row-pitch stride), waits for them on
 * one event, and raises a per-direction flag at each neighbour. Neighbours
 * wait on their flags, not on a barrier. At the end PE 0 gathers the grid,
 * recomputes it serially with the same operation order and reports the
 * largest difference (0 expected), and writes the field as a PNG.
 *
 * usage: stencil2d [grid=512] [iterations=1000] [out=stencil2d.png] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aos.h"
#include "png.h"

#define DIE(...)                                                                           \
    do {                                                                                   \
        fprintf(stderr, "stencil2d: " __VA_ARGS__);                                        \
        fputc('\n', stderr);                                                               \
        exit(1);                                                                           \
    } while (0)
#define TRY(call)                                                                          \
    do {                                                                                   \
        int try_rc_ = (call);                                                              \
        if (try_rc_ != AOS_OK)                                                             \
            DIE("%s: %s", #call, aos_strerror(try_rc_));                                   \
    } while (0)

enum { NORTH, SOUTH, WEST, EAST };

/* Fixed temperature on the global boundary: a hot, sine-shaped top edge and
 * a warm left edge. (gy, gx) index the (G+2)x(G+2) grid with its boundary. */
static double boundary(int gy, int gx, int g)
{
    if (gy == 0)
        return 100.0 * sin(M_PI * gx / (g + 1));
    if (gx == 0)
        return 40.0 * (1.0 - (double)gy / (g + 1));
    return 0.0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One Jacobi sweep of rows x cols interior points; pitch in elements. The
 * expression is written once and used by both the tiles and the serial
 * reference, so the results agree bit for bit. */
static void sweep(double *dst, const double *src, int rows, int cols, int pitch)
{
    for (int y = 1; y <= rows; y++)
        for (int x = 1; x <= cols; x++) {
            const double *c = src + (size_t)y * pitch + x;
            dst[(size_t)y * pitch + x] = ((c[-pitch] + c[pitch]) + (c[-1] + c[1])) * 0.25;
        }
}

struct tiling {
    int px, py;           /* PEs per row, per column */
    int tx, ty;           /* my tile coordinates */
    int x0, y0, nx, ny;   /* my tile's first interior point and size */
    int pitch, height;    /* allocated tile dims with halo (same on all PEs) */
    int nbr[4];           /* neighbour PEs or -1 */
};

static void split(int g, int parts, int i, int *start, int *len)
{
    int base = g / parts, extra = g % parts;
    *len = base + (i < extra);
    *start = i * base + (i < extra ? i : extra);
}

static struct tiling make_tiling(int g, int me, int n)
{
    struct tiling t;
    t.px = 1;
    for (int d = 1; d * d <= n; d++)
        if (n % d == 0)
            t.px = d;
    t.py = n / t.px;
    t.tx = me % t.px;
    t.ty = me / t.px;
    split(g, t.px, t.tx, &t.x0, &t.nx);
    split(g, t.py, t.ty, &t.y0, &t.ny);
    t.pitch = g / t.px + 1 + 2;
    t.height = g / t.py + 1 + 2;
    t.nbr[NORTH] = t.ty > 0 ? me - t.px : -1;
    t.nbr[SOUTH] = t.ty < t.py - 1 ? me + t.px : -1;
    t.nbr[WEST] = t.tx > 0 ? me - 1 : -1;
    t.nbr[EAST] = t.tx < t.px - 1 ? me + 1 : -1;
    return t;
}

/* Puts my edge of `buf` into the facing halo of the neighbour's `buf`
 * (same symmetric address, so the same buffer on every PE). Rows are one
 * contiguous run; columns are ny runs of one element, one row pitch apart,
 * on both sides: a 2D strided put with no packing. */
static void send_edge(const struct tiling *t, int g, double *buf, int dir, aos_event_t *ev)
{
    size_t pitch = (size_t)t->pitch;
    aos_block_t b = {.count = {1, 1},
                     .local_stride = {pitch * sizeof(double), 0},
                     .remote_stride = {pitch * sizeof(double), 0}};
    size_t src, dst; /* element offsets in the tile buffers */
    int start, len;
    switch (dir) {
    case NORTH: /* my first row -> the north tile's bottom halo */
        split(g, t->py, t->ty - 1, &start, &len);
        src = pitch + 1;
        dst = (size_t)(len + 1) * pitch + 1;
        b.run = (size_t)t->nx * sizeof(double);
        break;
    case SOUTH: /* my last row -> the south tile's top halo */
        src = (size_t)t->ny * pitch + 1;
        dst = 1;
        b.run = (size_t)t->nx * sizeof(double);
        break;
    case WEST: /* my first column -> the west tile's right halo */
        split(g, t->px, t->tx - 1, &start, &len);
        src = pitch + 1;
        dst = pitch + (size_t)len + 1;
        b.run = sizeof(double);
        b.count[0] = (size_t)t->ny;
        break;
    default: /* EAST: my last column -> the east tile's left halo */
        src = pitch + (size_t)t->nx;
        dst = pitch;
        b.run = sizeof(double);
        b.count[0] = (size_t)t->ny;
        break;
    }
    TRY(aos_putmem_block(t->nbr[dir], buf + dst, buf + src, &b, ev));
}

static void fill_boundary(const struct tiling *t, int g, double *buf)
{
    for (int y = 0; y < t->ny + 2; y++)
        for (int x = 0; x < t->nx + 2; x++) {
            int gy = t->y0 + y, gx = t->x0 + x;
            if (gy == 0 || gx == 0 || gy == g + 1 || gx == g + 1)
                buf[(size_t)y * t->pitch + x] = boundary(gy, gx, g);
        }
}

static void colour(double v, uint8_t *rgb)
{
    double f = v / 100.0;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    rgb[0] = (uint8_t)(255 * sqrt(f));
    rgb[1] = (uint8_t)(255 * f * f);
    rgb[2] = (uint8_t)(255 * (1 - f) * 0.6);
}

/* PE 0: the same computation on the whole grid, serially. */
static double *serial(int g, int iters)
{
    int pitch = g + 2;
    size_t cells = (size_t)pitch * pitch;
    double *a = calloc(cells, sizeof *a), *b = calloc(cells, sizeof *b);
    if (a == NULL || b == NULL)
        DIE("out of memory");
    struct tiling whole = {.x0 = 0, .y0 = 0, .nx = g, .ny = g, .pitch = pitch};
    fill_boundary(&whole, g, a);
    fill_boundary(&whole, g, b);
    for (int it = 0; it < iters; it++) {
        double *src = it % 2 ? b : a, *dst = it % 2 ? a : b;
        sweep(dst, src, g, g, pitch);
    }
    free(iters % 2 ? a : b);
    return iters % 2 ? b : a;
}

int main(int argc, char **argv)
{
    int g = argc > 1 ? atoi(argv[1]) : 512;
    int iters = argc > 2 ? atoi(argv[2]) : 1000;
    const char *out = argc > 3 ? argv[3] : "stencil2d.png";
    if (g < 2 || iters < 1)
        DIE("usage: stencil2d [grid>=2] [iterations>=1] [out.png]");
    TRY(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    struct tiling t = make_tiling(g, me, n);
    if (t.nx < 1 || t.ny < 1)
        DIE("grid %d is too small for %d PEs", g, n);

    size_t cells = (size_t)t.pitch * t.height;
    double *buf[2] = {aos_calloc(cells, sizeof(double)), aos_calloc(cells, sizeof(double))};
    uint64_t *ready = aos_calloc(4, sizeof(uint64_t)); /* ready[d]: iterations d's neighbour sent */
    double *grid = aos_calloc((size_t)g * g, sizeof(double)); /* gathered on PE 0 */
    if (!buf[0] || !buf[1] || !ready || !grid)
        DIE("symmetric allocation failed");
    fill_boundary(&t, g, buf[0]);
    fill_boundary(&t, g, buf[1]);
    aos_event_t *ev;
    TRY(aos_event_create(&ev));
    static const int opposite[4] = {SOUTH, NORTH, EAST, WEST};
    TRY(aos_barrier_all());

    double t0 = now_s();
    for (int it = 0; it < iters; it++) {
        double *src = buf[it % 2], *dst = buf[(it + 1) % 2];
        /* My halos of src hold the neighbours' iteration it-1 edges. */
        for (int d = 0; d < 4; d++)
            if (t.nbr[d] >= 0)
                TRY(aos_wait_until_u64(&ready[d], AOS_CMP_GE, (uint64_t)it));
        sweep(dst, src, t.ny, t.nx, t.pitch);
        for (int d = 0; d < 4; d++)
            if (t.nbr[d] >= 0)
                send_edge(&t, g, dst, d, ev);
        TRY(aos_event_wait(ev));
        uint64_t done = (uint64_t)it + 1;
        for (int d = 0; d < 4; d++)
            if (t.nbr[d] >= 0)
                TRY(aos_putmem(t.nbr[d], &ready[opposite[d]], &done, sizeof done, NULL));
    }
    double per_iter = (now_s() - t0) / iters;

    /* Gather: my interior into PE 0's full grid, one 2D put. */
    double *final = buf[iters % 2];
    aos_block_t tile = {.run = (size_t)t.nx * sizeof(double),
                        .count = {(size_t)t.ny, 1},
                        .local_stride = {(size_t)t.pitch * sizeof(double), 0},
                        .remote_stride = {(size_t)g * sizeof(double), 0}};
    TRY(aos_putmem_block(0, grid + (size_t)t.y0 * g + t.x0, final + t.pitch + 1, &tile, NULL));
    TRY(aos_barrier_all());

    int status = 0;
    if (me == 0) {
        double s0 = now_s();
        double *ref = serial(g, iters);
        double serial_iter = (now_s() - s0) / iters;
        double maxdiff = 0;
        uint8_t *rgb = malloc((size_t)g * g * 3);
        if (rgb == NULL)
            DIE("out of memory");
        for (int y = 0; y < g; y++)
            for (int x = 0; x < g; x++) {
                double v = grid[(size_t)y * g + x];
                double d = fabs(v - ref[(size_t)(y + 1) * (g + 2) + x + 1]);
                if (d > maxdiff)
                    maxdiff = d;
                colour(v, rgb + ((size_t)y * g + x) * 3);
            }
        printf("stencil2d: %dx%d grid, %d iterations, %d PEs as %dx%d tiles\n", g, g, iters,
               n, t.py, t.px);
        printf("  time per iteration: %.2f us parallel, %.2f us serial (speed-up %.2fx)\n",
               per_iter * 1e6, serial_iter * 1e6, serial_iter / per_iter);
        printf("  max |parallel - serial| = %g (%s)\n", maxdiff,
               maxdiff == 0 ? "identical" : "MISMATCH");
        if (png_write_rgb(out, rgb, (uint32_t)g, (uint32_t)g) != 0)
            DIE("cannot write %s", out);
        printf("  temperature field written to %s\n", out);
        status = maxdiff == 0 ? 0 : 1;
        free(rgb);
        free(ref);
    }
    TRY(aos_event_destroy(ev));
    aos_free(grid);
    aos_free(ready);
    aos_free(buf[1]);
    aos_free(buf[0]);
    TRY(aos_finalize());
    return status;
}
