#include "common.h"
long fb(struct big *g, shared_t *s, int k) { return s->b + k + g->v.i; }
