/* Parsing of request JSON that belongs to no single analysis section: the
 * reader limits a request may set (docs/api.md, "limits"). API layer: the
 * reader below knows only the rl_limits struct, never JSON. */
#ifndef ROOFLENS_REQUEST_H
#define ROOFLENS_REQUEST_H
#include "internal.h"

/* The request's "limits" object (NULL or JSON null: all defaults). *l is
 * zeroed first; unset fields stay 0 (= the reader's default). -1 with *err
 * set (bad_request, naming the limit) when a limit is unknown, not a whole
 * number or out of range. Allocates nothing. */
struct cJSON;
int rl_limits_from_json(const struct cJSON *obj, rl_limits *l, rl_error *err);
#endif
