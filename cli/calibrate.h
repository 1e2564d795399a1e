/* rooflens calibrate: measures the machine it runs on (FP32 FMA peak on all
 * cores and on one, memory and last-level-cache bandwidth, the cost of a
 * dispatch) and writes a hardware profile of those figures, each of kind
 * "measured" with its provenance. Native only: the measurement threads and
 * vector kernels need the real machine. */
#ifndef ROOFLENS_CALIBRATE_H
#define ROOFLENS_CALIBRATE_H

/* The subcommand: argv[0] is "calibrate". Returns the exit status. */
int rl_calibrate_main(int argc, char **argv);
#endif
