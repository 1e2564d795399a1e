/* The words rooflens uses for its concepts (speed of light, fused,
 * prefetched, granularity, launch floor, power floor) and for the values
 * of the response's enumerations (bound, SOL model, granularity): one list,
 * so the Markdown, the CLI and the page say the same thing. Published whole
 * by rl_words(). */
#ifndef RL_WORDS_H
#define RL_WORDS_H

/* The kinds of entry: a concept of the glossary, or the value of one of the
 * response's enumerations. */
#define RL_WORD_TERM "term"
#define RL_WORD_BOUND "bound"
#define RL_WORD_SOL "sol"
#define RL_WORD_GRANULARITY "granularity"
#define RL_WORD_OP_CLASS "op_class"
#define RL_WORD_BASIS "basis" /* what a forecast rests on: forecast.basis */

/* The name a user reads for `id` of `kind` ("bound", "overhead" ->
 * "launch floor"); `id` itself when the list has no such entry, so a new
 * value is shown rather than lost. Never NULL for a non-NULL `id`. */
const char *rl_word_name(const char *kind, const char *id);

#endif
