/* The helpers behind cli.h that every subcommand shares: text made safe for
 * a terminal, and folder listings that say what they could not list. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ----------------------------------------------------------------- text -- */
/* The escaped texts live in a ring of slots, so that one printf can take
 * several of them; a slot is reused TXT_SLOTS calls later. */
#define TXT_SLOTS 32

static char *txt_slot(size_t cap) {
    static char *slot[TXT_SLOTS];
    static int next;
    char *b = malloc(cap);
    if (!b) return NULL;
    free(slot[next]);
    slot[next] = b;
    next = (next + 1) % TXT_SLOTS;
    return b;
}

const char *txt_cut(const char *s, size_t width) {
    if (!s) s = "";
    size_t whole = 4 * strlen(s) + 1; /* rl_text_escape's worst case */
    size_t cap = width && width + 1 < whole ? width + 1 : whole;
    char *b = txt_slot(cap);
    if (!b) return "(out of memory)";
    rl_text_escape(b, cap, s, 1);
    return b;
}

const char *txt(const char *s) { return txt_cut(s, 0); }

const char *txt_tail(const char *s, size_t width) {
    const char *all = txt(s);
    size_t len = strlen(all);
    if (len <= width) return all;
    const char *p = all + len - width;
    while (((unsigned char)*p & 0xc0) == 0x80) p++; /* start on a character, not inside one */
    return p;
}

/* -------------------------------------------------------------- folders -- */
int name_list_add(name_list *l, const char *s) {
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        char **np = realloc(l->names, (size_t)cap * sizeof *np);
        if (!np) return -1;
        l->names = np;
        l->cap = cap;
    }
    if (!(l->names[l->n] = strdup(s))) return -1;
    l->n++;
    return 0;
}

void name_list_free(name_list *l) {
    for (int i = 0; i < l->n; i++) free(l->names[i]);
    free(l->names);
    *l = (name_list){0};
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int list_folder(const char *dir, name_list *out, const char **why) {
    *out = (name_list){0};
    DIR *d = opendir(dir);
    if (!d) {
        *why = strerror(errno);
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    for (errno = 0; (e = readdir(d)); errno = 0) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (name_list_add(out, e->d_name)) { errno = ENOMEM; break; }
    }
    if (errno) {
        *why = strerror(errno);
        rc = -1;
        name_list_free(out);
    }
    closedir(d);
    if (!rc) qsort(out->names, (size_t)out->n, sizeof *out->names, cmp_name);
    return rc;
}
