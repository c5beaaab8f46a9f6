/* The regions file (docs/timing.md "The regions file"): one region a line,
 *   START END FETCH_WS DATA_WS NAME
 * (hex or decimal, START inclusive, END exclusive), and for a region behind a flash accelerator
 *   accel NAME LINES LINE_BYTES PREFETCH
 * '#' starts a comment. An address in no region costs no wait state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "memory.h"

static int add_accel(struct memory *m, const char *line, char *err, int errlen)
{
    char name[32];
    int lines, line_bytes, prefetch;
    if (sscanf(line, "accel %31s %d %d %d", name, &lines, &line_bytes, &prefetch) != 4) {
        snprintf(err, errlen, "expected 'accel NAME LINES LINE_BYTES PREFETCH': %s", line);
        return -1;
    }
    if (lines < 1 || lines > MAX_LINES || line_bytes < 4 || (line_bytes & (line_bytes - 1))) {
        snprintf(err, errlen, "accel %s: 1-%d lines of a power of two >= 4 bytes", name, MAX_LINES);
        return -1;
    }
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->r[i].name, name)) {
            struct accel *a = calloc(1, sizeof *a);
            a->lines = lines;
            a->line_bytes = line_bytes;
            a->prefetch = prefetch != 0;
            a->last_line = UINT32_MAX;
            a->newest = a->oldest = -1;
            m->r[i].accel = a;
            return 0;
        }
    snprintf(err, errlen, "accel %s: no region of that name above it", name);
    return -1;
}

static int add_region(struct memory *m, const char *line, char *err, int errlen)
{
    char start[24], end[24], name[32];
    int fetch_ws, data_ws;
    if (sscanf(line, "%23s %23s %d %d %31s", start, end, &fetch_ws, &data_ws, name) != 5) {
        snprintf(err, errlen, "expected 'START END FETCH_WS DATA_WS NAME': %s", line);
        return -1;
    }
    if (m->n == MAX_REGIONS) {
        snprintf(err, errlen, "more than %d regions", MAX_REGIONS);
        return -1;
    }
    struct region *r = &m->r[m->n];
    char *e1, *e2;
    unsigned long long s = strtoull(start, &e1, 0), e = strtoull(end, &e2, 0);
    if (*e1 || *e2 || s >= e || e > 0x100000000ULL || fetch_ws < 0 || data_ws < 0) {
        snprintf(err, errlen, "bad region (START < END <= 0x100000000, wait states >= 0): %s", line);
        return -1;
    }
    r->start = (uint32_t)s;
    r->end = (uint32_t)(e - 1) + 1; /* 0x100000000 wraps to 0: memory_find treats end 0 as 2^32 */
    r->fetch_ws = fetch_ws;
    r->data_ws = data_ws;
    snprintf(r->name, sizeof r->name, "%s", name);
    m->any_data_ws |= data_ws > 0;
    m->n++;
    return 0;
}

int memory_load(struct memory *m, const char *path, char *err, int errlen)
{
    char line[256];
    FILE *f = fopen(path, "r");
    memset(m, 0, sizeof *m);
    if (!f) {
        snprintf(err, errlen, "cannot read the regions file %s", path);
        return -1;
    }
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        line[strcspn(line, "\r\n")] = 0;
        char *p = line + strspn(line, " \t");
        if (!*p) continue;
        rc = !strncmp(p, "accel ", 6) ? add_accel(m, p, err, errlen) : add_region(m, p, err, errlen);
    }
    fclose(f);
    return rc;
}

const struct region *memory_find(const struct memory *m, uint32_t addr)
{
    for (int i = 0; i < m->n; i++)
        if (addr >= m->r[i].start && (m->r[i].end == 0 || addr < m->r[i].end)) return &m->r[i];
    return NULL;
}

/* the buffer is fully associative with least-recently-used replacement: a hash from line to
 * slot (linear probing, deletion by backward shift) and a recency list keep each fetch O(1) */
static unsigned bucket_of(uint32_t line) { return (line * 2654435761u) >> 19 & (ACCEL_BUCKETS - 1); /* the top 13 bits */ }

static int find_slot(const struct accel *a, uint32_t line)
{
    for (unsigned b = bucket_of(line);; b = (b + 1) & (ACCEL_BUCKETS - 1)) {
        uint64_t e = a->bucket[b];
        if (!e) return -1;
        if ((e >> 13) == (uint64_t)line + 1) return (int)(e & 8191);
    }
}

static void forget(struct accel *a, uint32_t line)
{
    unsigned b = bucket_of(line);
    while ((a->bucket[b] >> 13) != (uint64_t)line + 1) b = (b + 1) & (ACCEL_BUCKETS - 1);
    a->bucket[b] = 0;
    for (unsigned j = (b + 1) & (ACCEL_BUCKETS - 1); a->bucket[j]; j = (j + 1) & (ACCEL_BUCKETS - 1)) {
        unsigned home = bucket_of((uint32_t)((a->bucket[j] >> 13) - 1));
        /* move the entry back into the hole unless its home lies cyclically in (b, j] */
        if (((j - home) & (ACCEL_BUCKETS - 1)) >= ((j - b) & (ACCEL_BUCKETS - 1))) {
            a->bucket[b] = a->bucket[j];
            a->bucket[j] = 0;
            b = j;
        }
    }
}

static void unlink_slot(struct accel *a, int s)
{
    if (a->newer[s] >= 0) a->older[a->newer[s]] = a->older[s]; else a->newest = a->older[s];
    if (a->older[s] >= 0) a->newer[a->older[s]] = a->newer[s]; else a->oldest = a->newer[s];
}

static void make_newest(struct accel *a, int s)
{
    a->newer[s] = -1;
    a->older[s] = a->newest;
    if (a->newest >= 0) a->newer[a->newest] = (int16_t)s;
    a->newest = (int16_t)s;
    if (a->oldest < 0) a->oldest = (int16_t)s;
}

/* one line: a hit waits 0; a miss on the line after the last one fetched is the prefetcher's
 * (when the buffer has one) and waits 0; any other miss waits the region's fetch wait states */
static int accel_line(struct accel *a, uint32_t line, int fetch_ws)
{
    int s = find_slot(a, line);
    int sequential = a->prefetch && line == a->last_line + 1;
    a->last_line = line;
    if (s >= 0) {
        if (a->newest != s) {
            unlink_slot(a, s);
            make_newest(a, s);
        }
        a->hits++;
        return 0;
    }
    if (a->used < a->lines) {
        s = a->used++;
    } else {
        s = a->oldest;
        forget(a, a->tag[s]);
        unlink_slot(a, s);
    }
    a->tag[s] = line;
    make_newest(a, s);
    unsigned b = bucket_of(line);
    while (a->bucket[b]) b = (b + 1) & (ACCEL_BUCKETS - 1);
    a->bucket[b] = ((uint64_t)line + 1) << 13 | (uint64_t)s;
    if (sequential) {
        a->prefetched++;
        return 0;
    }
    a->misses++;
    return fetch_ws;
}

int accel_fetch(struct accel *a, uint32_t first, uint32_t last, int fetch_ws)
{
    int waits = 0;
    if (first == last && first == a->last_line) { /* the line fetched last: the newest, a hit */
        a->hits++;
        return 0;
    }
    for (uint32_t line = first; line <= last; line++) waits += accel_line(a, line, fetch_ws);
    return waits;
}
