/* The board's memory as the cycle model sees it: regions with fetch and data wait states, and
 * optional line buffers (flash accelerators such as the STM32F4's ART) on instruction fetch. */
#ifndef CYCLES_MEMORY_H
#define CYCLES_MEMORY_H
#include <stdint.h>

#define MAX_REGIONS 16
#define MAX_LINES 4096 /* an XIP cache of 16 KB in 8-byte lines is 2048 */

#define ACCEL_BUCKETS 8192 /* a power of two, at least 2 * MAX_LINES: the line -> slot hash */

struct accel {
    int lines;        /* lines of the instruction buffer (ART: 64) */
    int line_bytes;   /* bytes a line holds (ART: 16) */
    int prefetch;     /* 1: the next sequential line is fetched while the current one executes */
    int used;         /* slots filled */
    uint32_t tag[MAX_LINES];
    int16_t newer[MAX_LINES], older[MAX_LINES]; /* the recency list, -1 at its ends */
    int16_t newest, oldest;
    uint64_t bucket[ACCEL_BUCKETS]; /* (line + 1) << 13 | slot, 0 empty (linear probing) */
    uint32_t last_line;
    uint64_t hits, misses, prefetched;
};

struct region {
    uint32_t start, end; /* [start, end) */
    int fetch_ws, data_ws;
    char name[32];
    struct accel *accel; /* NULL: every 32-bit fetch waits fetch_ws */
};

struct memory {
    int n;
    struct region r[MAX_REGIONS];
    int any_data_ws;
};

/* reads the regions file; on error writes a one-line message to err and returns -1 */
int memory_load(struct memory *m, const char *path, char *err, int errlen);
const struct region *memory_find(const struct memory *m, uint32_t addr);
/* fetch wait cycles of the lines [first, last] (line numbers) through an accelerator */
int accel_fetch(struct accel *a, uint32_t first, uint32_t last, int fetch_ws);
#endif
