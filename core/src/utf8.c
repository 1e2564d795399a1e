/* UTF-8 text (internal.h, rooflens.h's rl_text_escape): decoding, finding
 * and dropping what is not UTF-8, and the escapes that keep a name from
 * acting on a terminal. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

int rl_utf8_decode(const unsigned char *s, uint32_t *out) {
    unsigned c = s[0];
    int n = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
    if (n < 0 || c == 0xc0 || c == 0xc1 || c > 0xf4) return 0;
    uint32_t cp = n ? c & (0x3fu >> n) : c;
    for (int k = 1; k <= n; k++) {
        if ((s[k] & 0xc0) != 0x80) return 0; /* the NUL terminator stops here too */
        cp = (cp << 6) | (s[k] & 0x3fu);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    *out = cp;
    return n + 1;
}

static int utf8_seq_len(const unsigned char *s) {
    uint32_t cp;
    return rl_utf8_decode(s, &cp);
}

bool rl_char_is_control(uint32_t cp) {
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t rl_text_escape(char *buf, size_t cap, const char *str, int controls) {
    if (!cap) return 0;
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    size_t w = 0;
    for (size_t i = 0; s[i];) {
        uint32_t cp = s[i];
        int n = rl_utf8_decode(s + i, &cp);
        char piece[8];
        int len;
        if (!n) len = snprintf(piece, sizeof piece, "\\x%02x", s[i]), n = 1; /* not UTF-8: the byte */
        else if (controls && rl_char_is_control(cp)) len = snprintf(piece, sizeof piece, cp < 0x100 ? "\\x%02x" : "\\u%04x", (unsigned)cp);
        else memcpy(piece, s + i, (size_t)n), len = n;
        if (w + (size_t)len >= cap) break; /* a cut between two characters, never inside one */
        memcpy(buf + w, piece, (size_t)len);
        w += (size_t)len;
        i += (size_t)n;
    }
    buf[w] = 0;
    return w;
}

long rl_utf8_bad_at(const char *str) {
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; s[i];) {
        if (s[i] < 0x80) { /* names are nearly all ASCII: a byte, not a decode */
            i++;
            continue;
        }
        int n = utf8_seq_len(s + i);
        if (!n) return (long)i;
        i += (size_t)n;
    }
    return -1;
}

size_t rl_utf8_repair(char *str) {
    unsigned char *s = (unsigned char *)str;
    size_t r = 0, w = 0;
    while (s[r] && s[r] < 0x80) r++; /* the ASCII start stays where it is */
    w = r;
    while (s[r]) {
        int n = utf8_seq_len(s + r);
        if (!n) {
            r++; /* dropped */
            continue;
        }
        if (w != r) memmove(s + w, s + r, (size_t)n);
        w += (size_t)n;
        r += (size_t)n;
    }
    s[w] = 0;
    return w;
}

void rl_snprintf_utf8(char *buf, size_t cap, const char *fmt, ...) {
    if (!cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    rl_utf8_repair(buf);
}
