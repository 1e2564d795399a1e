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

/* What bounds a time: the one table of bounds (words.c), each with its id
 * as the answer writes it, the word a user reads, its meaning and the
 * colour every surface draws it in (the graph and module views, the
 * charts, Compare and the CLI's Graphviz output: rl_words() publishes the
 * colours). The order breaks a tie in time when a module's bound is the one
 * its layers spend most time in. Adding a bound: a value here, a row in
 * words.c (the static_assert counts them). */
typedef enum {
    RL_BOUND_COMPUTE,       /* the peak FLOP/s */
    RL_BOUND_MEMORY,        /* the memory bandwidth */
    RL_BOUND_OVERHEAD,      /* the launch floor */
    RL_BOUND_POWER,         /* the power floor */
    RL_BOUND_COMMUNICATION, /* the links between devices (the parallel view) */
    RL_BOUND_NONE,          /* no work on the device */
    RL_BOUND_UNKNOWN,       /* a layer the core cannot cost */
    RL_BOUND_COUNT
} rl_bound;

/* The id the answer writes ("compute"); "unknown" for a value out of range. */
const char *rl_bound_id(rl_bound b);
/* The bound written `id`; RL_BOUND_UNKNOWN for NULL or an id of no bound. */
rl_bound rl_bound_from_id(const char *id);
/* The bound's colour, "#rrggbb", dark enough for white text. */
const char *rl_bound_color(rl_bound b);

#endif
