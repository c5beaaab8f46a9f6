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

/* one line through a fully associative, least-recently-used buffer; a miss on the line after the
 * last one fetched is served by the prefetcher (when the buffer has one) at no wait */
static int accel_line(struct accel *a, uint32_t line, int fetch_ws)
{
    int victim = 0;
    a->clock++;
    for (int i = 0; i < a->lines; i++) {
        if (a->used[i] && a->tag[i] == line) {
            a->used[i] = a->clock;
            a->hits++;
            a->last_line = line;
            return 0;
        }
        if (a->used[i] < a->used[victim]) victim = i;
    }
    int sequential = a->prefetch && line == a->last_line + 1;
    a->tag[victim] = line;
    a->used[victim] = a->clock;
    a->last_line = line;
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
    for (uint32_t line = first; line <= last; line++) waits += accel_line(a, line, fetch_ws);
    return waits;
}
