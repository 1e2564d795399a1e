/* The helpers behind cli.h that every subcommand shares: files, models and
 * profiles read; text made safe for a terminal; folder listings that say
 * what they could not list; the JSON accessors; CSV cells; numbers. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

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

/* The columns a text takes in a terminal: one a character. rooflens writes
 * no wide or combining characters (its non-ASCII ones are µ, ×, →, –, …),
 * so counting the bytes that start a UTF-8 character is exact. */
size_t text_columns(const char *s) {
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* One number conversion of tprintf (%d %i %u %x %c %f %g %e, with l, ll or
 * z) formatted with its own spec: digits are ASCII, so printf's padding is
 * already right. */
static void number_conversion(char *out, size_t cap, const char *spec, char type, int longs, bool size,
                              va_list *ap) {
    if (strchr("fFgGeE", type)) snprintf(out, cap, spec, va_arg(*ap, double));
    else if (size) snprintf(out, cap, spec, va_arg(*ap, size_t));
    else if (longs >= 2) snprintf(out, cap, spec, va_arg(*ap, long long));
    else if (longs == 1) snprintf(out, cap, spec, va_arg(*ap, long));
    else snprintf(out, cap, spec, va_arg(*ap, int));
}

int tprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int written = 0;
    for (const char *p = fmt; *p;) {
        if (*p != '%') {
            size_t n = strcspn(p, "%");
            written += (int)fwrite(p, 1, n, stdout);
            p += n;
            continue;
        }
        const char *start = p++;
        bool left = false;
        for (; *p && strchr("-+ #0", *p); p++) left |= *p == '-';
        const char *flags_end = p;
        int width = 0;
        bool star = *p == '*'; /* the width from the arguments, as printf's */
        if (star) {
            width = va_arg(ap, int);
            if (width < 0) left = true, width = -width;
            p++;
        }
        for (; isdigit((unsigned char)*p); p++) width = width * 10 + (*p - '0');
        if (*p == '.')
            for (p++; isdigit((unsigned char)*p); p++) {}
        int longs = 0;
        bool size = false;
        for (; *p == 'l' || *p == 'z' || *p == 'h'; p++) longs += *p == 'l', size |= *p == 'z';
        const char type = *p;
        if (!type) break;
        p++;
        char spec[32], num[512];
        const char *text = num;
        if (star) /* the spec of a number conversion with its width written out */
            snprintf(spec, sizeof spec, "%.*s%s%d%.*s", (int)(flags_end - start), start, left ? "-" : "", width,
                     (int)(p - flags_end - 1), flags_end + 1);
        else
            snprintf(spec, sizeof spec, "%.*s", (int)(p - start), start);
        if (type == 's') {
            text = va_arg(ap, const char *);
            if (!text) text = "(null)";
        } else if (type == '%') {
            text = "%";
        } else {
            number_conversion(num, sizeof num, spec, type, longs, size, &ap);
            width = 0; /* padded by its own spec */
        }
        size_t cols = text_columns(text), pad = width > 0 && (size_t)width > cols ? (size_t)width - cols : 0;
        if (!left) written += printf("%*s", (int)pad, "");
        written += (int)fwrite(text, 1, strlen(text), stdout);
        if (left) written += printf("%*s", (int)pad, "");
    }
    va_end(ap);
    return written;
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

/* ---------------------------------------------------------------- files -- */
int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "rooflens: ");
    fprintf(stderr, fmt, txt(arg)); /* arg: what the user typed, shown as typed but escaped */
    fprintf(stderr, "\nrun 'rooflens --help' for usage\n");
    return EXIT_USAGE;
}

/* Why a file of this kind is not read (NULL: it is read). */
static const char *kind_refused(const struct stat *st, bool pipe_ok) {
    if (S_ISREG(st->st_mode) || (pipe_ok && S_ISFIFO(st->st_mode))) return NULL;
    return S_ISDIR(st->st_mode) ? "a folder, not a file" : "not a regular file (a FIFO, a device or a socket): not read";
}

/* The one way the CLI opens a file it reads (a profile, a measured profile,
 * a model): links followed; the kind checked before the open (opening a
 * device can have effects of its own); opened without blocking, so that a
 * FIFO with no writer cannot hang the open; the kind checked again on the
 * opened descriptor (the path may have changed in between). A regular file,
 * or with pipe_ok a FIFO too (a model streamed through a pipe is read once,
 * to its end). The descriptor, blocking again, with *st; or -1 with *code
 * (cannot_open, not_a_file) and why[]. */
static int open_input(const char *path, bool pipe_ok, struct stat *st, const char **code, char *why, size_t cap) {
    const char *refused = NULL;
    int fd = -1, e = 0;
    if (stat(path, st) == 0 && !(refused = kind_refused(st, pipe_ok))) {
        fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
        if (fd >= 0 && (fstat(fd, st) != 0 || (refused = kind_refused(st, pipe_ok)))) {
            e = errno;
            close(fd);
            fd = -1;
        }
    }
    if (fd >= 0) {
        int flags = fcntl(fd, F_GETFL);
        if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK); /* a pipe's writer may be slower than us */
        return fd;
    }
    *code = refused ? "not_a_file" : "cannot_open";
    if (refused) snprintf(why, cap, "%s", refused);
    else snprintf(why, cap, "cannot open the file: %s", strerror(e ? e : errno));
    return -1;
}

char *read_text(const char *path, char *why, size_t cap) {
    struct stat st;
    const char *code = NULL;
    int fd = open_input(path, false, &st, &code, why, cap);
    if (fd < 0) return NULL;
    if ((uint64_t)st.st_size > TEXT_FILE_MAX) {
        close(fd);
        snprintf(why, cap, "%llu bytes, over the %d MiB a profile or measured text may hold: not read",
                 (unsigned long long)st.st_size, (int)(TEXT_FILE_MAX >> 20));
        return NULL;
    }
    /* the size it had when opened, plus a byte to see whether it grew since */
    size_t want = (size_t)st.st_size + 1, len = 0;
    char *buf = malloc(want + 1);
    ssize_t n = 0;
    while (buf && len < want && (n = read(fd, buf + len, want - len)) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        len += (size_t)n;
    }
    int e = errno;
    close(fd);
    const char *fail = !buf ? "out of memory" : n < 0 ? strerror(e) : len == want ? "it grew while it was read" : NULL;
    if (fail) {
        snprintf(why, cap, "cannot read the file: %s", fail);
        free(buf);
        return NULL;
    }
    buf[len] = 0;
    return buf;
}

const char *hw_dir(const char *override) {
    if (override) return override;
    const char *env = getenv("ROOFLENS_HW_DIR");
    if (env && env[0]) return env;
#ifdef ROOFLENS_HW_DIR
    return ROOFLENS_HW_DIR;
#else
    return "hw";
#endif
}

char *profile_text(const char *id_or_file, const char *dir, const char **shown_path) {
    static char path[4096];
    const char *p = id_or_file;
    if (!strchr(id_or_file, '/') && !strstr(id_or_file, ".json")) {
        snprintf(path, sizeof path, "%s/%s.json", dir, id_or_file);
        p = path;
    }
    char why[256];
    char *text = read_text(p, why, sizeof why);
    if (!text) {
        if (access(p, F_OK) != 0)
            fprintf(stderr, "rooflens: no hardware profile '%s' (looked for %s); run 'rooflens --list-hw'\n",
                    txt(id_or_file), txt(p));
        else
            fprintf(stderr, "rooflens: the hardware profile %s: %s\n", txt(p), why);
        return NULL;
    }
    if (shown_path) *shown_path = p;
    return text;
}

cJSON *load_profile(const char *id_or_file, const char *dir) {
    const char *p = NULL;
    char *text = profile_text(id_or_file, dir, &p);
    if (!text) return NULL;
    cJSON *j = cJSON_Parse(text);
    free(text);
    if (!j) fprintf(stderr, "rooflens: the hardware profile %s is not valid JSON\n", txt(p));
    return j;
}

char *error_json(const char *code, const char *message) {
    /* the same error object the core gives, so every caller reports it one way */
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "schema", ROOFLENS_SCHEMA);
    cJSON_AddFalseToObject(e, "ok");
    cJSON *eo = cJSON_AddObjectToObject(e, "error");
    cJSON_AddStringToObject(eo, "code", code);
    cJSON_AddStringToObject(eo, "message", message);
    cJSON_AddStringToObject(eo, "where", "");
    char *text = cJSON_PrintUnformatted(e);
    cJSON_Delete(e);
    return text;
}

/* The model file opened for reading (open_input), or NULL with *err. */
static FILE *open_model(const char *path, bool pipe_ok, char **err) {
    struct stat st;
    const char *code = "cannot_open";
    char why[300];
    int fd = open_input(path, pipe_ok, &st, &code, why, sizeof why);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (fd >= 0 && !f) {
        close(fd);
        snprintf(why, sizeof why, "cannot open the file: out of memory");
    }
    if (!f) *err = error_json(code, why);
    return f;
}

/* Read the model, jumping over weight payloads. */
rl_model *read_model(const char *path, bool pipe_ok, char **err) {
    FILE *f = open_model(path, pipe_ok, err);
    if (!f) return NULL;
    /* fseeko happily moves past the end of a file: clamp each skip to what
     * the file holds, so a truncated payload is reported at the file's real
     * end rather than at the offset its length field promised. */
    struct stat st;
    off_t size = fstat(fileno(f), &st) == 0 ? st.st_size : -1;
    rl_reader *r = rl_reader_new(NULL);
    static unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        int64_t skip = rl_reader_feed(r, buf, n);
        if (skip <= 0) {
            if (skip < 0) break;
            continue;
        }
        off_t pos = ftello(f);
        if (size >= 0 && pos >= 0 && (off_t)skip > size - pos) {
            rl_reader_skip(r, (uint64_t)(size - pos));
            break;
        }
        if (fseeko(f, (off_t)skip, SEEK_CUR) == 0) rl_reader_skip(r, (uint64_t)skip);
    }
    fclose(f);
    rl_model *m = rl_reader_finish(r, err);
    rl_reader_free(r);
    return m;
}

/* ---------------------------------------------------------- checkpoints -- */
static bool ends_with(const char *s, const char *end) {
    size_t n = strlen(s), m = strlen(end);
    return n >= m && strcmp(s + n - m, end) == 0;
}

static bool is_folder(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_checkpoint(const char *const *paths, int n) {
    for (int i = 0; i < n; i++) {
        const char *p = paths[i], *slash = strrchr(p, '/');
        const char *base = slash ? slash + 1 : p;
        bool part = ends_with(p, ".safetensors") || ends_with(p, ".safetensors.index.json") ||
                    strcmp(base, "config.json") == 0 || is_folder(p);
        if (!part || (n == 1 && strcmp(base, "config.json") == 0)) return false; /* config.json alone: a model file */
    }
    return n > 0;
}

/* One file of a checkpoint: its first 8 bytes, then the bytes the core
 * asks for (a shard's header, a JSON file whole); the weights are never
 * read. A file the checkpoint does not use is passed over (0); 1: given;
 * -1: *err set. */
static int give_file(rl_checkpoint *c, const char *path, char **err) {
    FILE *f = open_model(path, false, err);
    if (!f) return -1;
    struct stat st;
    uint64_t size = fstat(fileno(f), &st) == 0 ? (uint64_t)st.st_size : 0;
    uint8_t first[8];
    size_t n = fread(first, 1, sizeof first, f);
    uint64_t need = rl_checkpoint_need(path, size, first, n);
    uint8_t *buf = need ? malloc((size_t)need) : NULL;
    size_t got = 0;
    if (buf && fseeko(f, 0, SEEK_SET) == 0) got = fread(buf, 1, (size_t)need, f);
    fclose(f);
    if (need && !buf) {
        *err = error_json("out_of_memory", "out of memory reading a checkpoint's header");
        return -1;
    }
    if (need) rl_checkpoint_add(c, path, size, buf, got); /* a refusal is reported by rl_checkpoint_finish */
    free(buf);
    return need > 0;
}

/* A folder's files (not its sub-folders), in name order; a folder with none
 * a checkpoint uses (ONNX models, say) is refused as no checkpoint. 0, or
 * -1 with *err set. */
static int give_folder(rl_checkpoint *c, const char *dir, char **err) {
    name_list names;
    const char *why = NULL;
    if (list_folder(dir, &names, &why)) {
        char msg[300];
        snprintf(msg, sizeof msg, "cannot list the folder: %s", why);
        *err = error_json("cannot_open", msg);
        return -1;
    }
    int rc = 0, given = 0;
    for (int i = 0; i < names.n && rc >= 0; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names.names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) given += (rc = give_file(c, path, err)) > 0;
    }
    name_list_free(&names);
    if (rc >= 0 && !given) {
        *err = error_json("not_a_file", "a folder with no file of a Hugging Face checkpoint (config.json, "
                                        "*.safetensors, *.safetensors.index.json): give a model file, or run "
                                        "'rooflens batch DIR' for every model in the folder");
        return -1;
    }
    return rc < 0 ? -1 : 0;
}

rl_model *read_checkpoint(const char *const *paths, int n, char **err) {
    rl_checkpoint *c = rl_checkpoint_new(NULL);
    if (!c) {
        *err = error_json("out_of_memory", "out of memory starting a checkpoint");
        return NULL;
    }
    int rc = 0;
    for (int i = 0; i < n && rc >= 0; i++) rc = is_folder(paths[i]) ? give_folder(c, paths[i], err) : give_file(c, paths[i], err);
    rl_model *m = rc < 0 ? NULL : rl_checkpoint_finish(c, err);
    rl_checkpoint_free(c);
    return m;
}

void report_error_json(const char *answer, const char *path) {
    cJSON *e = cJSON_Parse(answer); /* an error answer: a few hundred bytes */
    print_error_line(path, get(e, "error"));
    cJSON_Delete(e);
}

void print_error_line(const char *path, const cJSON *eo) {
    fprintf(stderr, "rooflens: %s%s%s [%s]%s%s\n", path ? txt(path) : "", path ? ": " : "", tstr(eo, "message"),
            tstr(eo, "code"), str(eo, "where")[0] ? " at " : "", tstr(eo, "where"));
}

/* -------------------------------------------------------------- numbers -- */
const char *eng(double v, const char *unit, char *buf, size_t cap) { return rl_format_eng(buf, cap, v, unit, 0); }
const char *tsec(double s, char *buf, size_t cap) { return rl_format_eng(buf, cap, s, "s", 0); }
const char *numf(const char *fmt, double v) {
    if (!isfinite(v)) return RL_NO_FIGURE;
    char *b = txt_slot(48);
    if (!b) return "(out of memory)";
    snprintf(b, 48, fmt, v);
    return b;
}

/* ----------------------------------------------------------------- JSON -- */
const cJSON *get(const cJSON *o, const char *k) { return rl_json_get(o, k); }
double num(const cJSON *o, const char *k) { return rl_json_get_num(o, k); }
const char *str(const cJSON *o, const char *k) { return rl_json_get_str(o, k); }
bool is_true(const cJSON *o, const char *k) { return cJSON_IsTrue(get(o, k)); }
const char *tstr(const cJSON *o, const char *k) { return txt(str(o, k)); }

/* ------------------------------------------------------------------ CSV -- */
/* A text cell: a leading =, +, -, @, tab or CR would make a spreadsheet read
 * a model's name as a formula (=HYPERLINK(...)), so such a cell gets a
 * leading ' as the page's CSV does (web/js/export.js); then quoted when it
 * holds a comma, a quote or a line break. Numbers are written apart. */
void csv_field(FILE *f, const char *s) {
    char cell[512];
    size_t n = rl_csv_text(cell, sizeof cell, s);
    if (n < sizeof cell) {
        fwrite(cell, 1, n, f);
        return;
    }
    char *big = malloc(n + 1);
    if (big) fwrite(big, 1, rl_csv_text(big, n + 1, s), f);
    free(big);
}

/* A number cell as every CSV of rooflens writes it (the layer table's is
 * the core's): the shortest text that reads back as v; empty when not
 * finite. */
void csv_double(FILE *f, double v) {
    char text[32];
    fwrite(text, 1, rl_format_number(text, sizeof text, v), f);
}

void csv_number(FILE *f, const cJSON *v) {
    if (cJSON_IsNumber(v)) csv_double(f, v->valuedouble);
}

const char *word(const char *kind, const char *id) { return txt(rl_word_name(kind, id ? id : "")); }
