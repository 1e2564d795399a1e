/* rooflens calibrate --from MODEL=PROFILE: the forecast's parameters fitted
 * to measured kernels (rl_fit_forecast in the core does the fitting; this
 * file reads the files, builds the request and prints the fit). */
#ifndef ROOFLENS_CALIBRATE_FIT_H
#define ROOFLENS_CALIBRATE_FIT_H
#include <stdbool.h>

#define FIT_MAX_FROM 64
#define FIT_MAX_DIMS 32

typedef struct fit_args {
    const char *from[FIT_MAX_FROM]; /* "MODEL.onnx=PROFILE" as given (argv's strings), --from and --probe */
    bool probe[FIT_MAX_FROM];       /* from[i] came with --probe (rl_fit_input.probe) */
    int n_from;
    const char *base;       /* --profile FILE or ID: fit onto it instead of measuring this machine */
    const char *write_probes; /* --write-probes FILE: write the probe model there, and nothing else */
    const char *stack;      /* --stack TEXT: the software stack the runs were measured on */
    const char *format;     /* --measured-format (auto, ort, trtexec, csv) */
    const char *power_mode; /* --power-mode: the mode the runs were measured in */
    const char *precision;  /* --precision */
    const char *batch;      /* --batch N */
    const char *dims[FIT_MAX_DIMS]; /* --dim NAME=V */
    int n_dims;
} fit_args;

/* Takes one option of the fit at argv[i] (value at argv[i + 1]). Returns 1
 * when it was one (the caller skips its value), 0 when it is not a fit
 * option, 2 on a usage error (said on stderr). */
int fit_parse_option(fit_args *a, const char *opt, const char *value);

/* Writes the probe model (rl_probe_model) to path and says what to do
 * with it, on stderr. Returns the exit code. */
int write_probe_model(const char *path);

/* Fits `profile_text` (a hardware profile) to every --from pair and returns
 * the fitted profile's text (malloc'd; the caller frees it), or NULL with the
 * reason on stderr. *status is the exit code to return on NULL. */
char *fit_profile(const char *profile_text, const fit_args *a, int *status);
#endif
