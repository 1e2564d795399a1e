/*
 * rooflens_text.h — the text helpers of rooflens's faces.
 *
 * What the command-line tool, the diff's Markdown and the gate write their
 * text with, so that every surface writes a figure, a name and a cell the
 * same way: the one number format (rl_format_eng) and the CSV's number text
 * (rl_format_number), one CSV text cell (rl_csv_text), the accessors that
 * read an answer back (rl_json_get*, over cJSON's objects), and text made
 * safe for a terminal (rl_text_escape) or a Markdown comment
 * (rl_markdown_text). The analysis itself is rooflens.h's.
 *
 * OWNERSHIP
 *
 *   - The writers into `buf` never write more than `cap` bytes and never
 *     allocate; the text they return is the caller's buffer.
 *   - rl_markdown_text returns a new string the caller frees with rl_free()
 *     (rooflens.h).
 *   - rl_json_get returns a member of the caller's object, rl_json_get_str
 *     its string (or a static ""): both live as long as the object.
 */
#ifndef ROOFLENS_TEXT_H
#define ROOFLENS_TEXT_H

#include <stddef.h>

#include "rooflens.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The mark every text writes where the answer gives no figure (a member it
 * does not give, a share of a total that is not positive): one mark, so
 * "unknown" reads the same in every table. A figure that does not apply
 * (the communication of one device) is "-" instead. */
#define RL_NO_FIGURE "n/a"

/* The one number format of every text rooflens writes (the CLI's tables,
 * the Markdown, the gate's messages): three significant digits with an SI
 * prefix, "1.23 GFLOP", "4.5 MB", "12 k" (unit ""); seconds, joules and
 * watts also take m, µ, n, p, f ("2.88 ns", "57.8 µJ"); 0 is "0 s";
 * a value that is not finite is RL_NO_FIGURE. sign: always write + or - (not
 * for 0). Writes at most cap bytes into buf and returns buf. */
const char *rl_format_eng(char *buf, size_t cap, double v, const char *unit, int sign);

/* A number as its shortest text that reads back as v, laid out as
 * JavaScript's String(v) writes it ("0.1", "1049600", "3.13e-7",
 * "1e+21"): the number text of every CSV rooflens writes, so that a CSV
 * read by a program gives back the answer's figures to the last bit. A
 * value that is not finite gives "" (an empty cell). Writes at most cap
 * bytes into buf (25 always hold it); returns the text's length. */
size_t rl_format_number(char *buf, size_t cap, double v);

/* One CSV cell of text, as every CSV rooflens writes it (the layer table's,
 * the CLI's batch and diff tables): a text a spreadsheet would read as a
 * formula (it starts with =, +, -, @, a tab or a CR: =HYPERLINK(...) in a
 * model's name) gets a leading ', and a text with a comma, a quote or a
 * line break is quoted, its quotes doubled. Writes at most cap - 1 bytes
 * and a NUL into buf (as snprintf; buf may be NULL when cap is 0); returns
 * the cell's whole length, at most 2 * strlen(s) + 3. s NULL: "". */
size_t rl_csv_text(char *buf, size_t cap, const char *s);

/* Reading an answer back (the CLI's printers, the core's diff and gate): the
 * one family of accessors, with one default for a member that is missing or
 * of another type: NULL (rl_json_get), NaN for a number (rl_json_get_num),
 * "" for a string (rl_json_get_str). Never a made-up 0, so a figure the
 * answer does not give stays unknown through any arithmetic and is shown as
 * unknown ("n/a" from rl_format_eng). A NULL object is fine. The objects are
 * cJSON's (the JSON library rooflens is built with). */
struct cJSON;
const struct cJSON *rl_json_get(const struct cJSON *o, const char *key);
double rl_json_get_num(const struct cJSON *o, const char *key);
const char *rl_json_get_str(const struct cJSON *o, const char *key);

/* Text made safe to print: every byte that is not part of valid UTF-8
 * becomes "\\xNN" and, when `controls` is non-zero, every character a
 * terminal would act on rather than show (C0 and C1 controls, DEL, the
 * bidirectional marks and overrides U+200E, U+200F, U+202A-202E,
 * U+2066-2069, and the separators U+2028, U+2029) becomes "\\xNN" or
 * "\\uNNNN". Writes at most cap - 1 bytes and a NUL into buf, cutting
 * between two characters (never inside a character or an escape); returns
 * the bytes written. 4 * strlen(s) + 1 bytes always hold the whole text. */
size_t rl_text_escape(char *buf, size_t cap, const char *s, int controls);

/* Text made safe to stand in a Markdown table cell or line of a comment on
 * GitHub, as the diff's Markdown, the batch's and the page's summary write
 * every name: line breaks and tabs as spaces; control characters (C0 and
 * C1, DEL, ESC, BEL, the bidirectional marks, overrides and isolates) and
 * bytes that are not UTF-8 dropped; then Markdown and HTML characters
 * escaped and no mention, issue reference, link or math (`@`, `#`, `://`,
 * `www.` broken by a zero-width space, `$` escaped) in the text as shown.
 * At most max_chars characters (0: all), cut between two characters and
 * marked with an ellipsis. Returns a new string (NULL when out of memory);
 * free it with rl_free(). */
char *rl_markdown_text(const char *s, int max_chars);

#ifdef __cplusplus
}
#endif
#endif
