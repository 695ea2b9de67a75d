#include "common.h"
int fa(struct big *g, shared_t *s) { return s->a + g->m; }
