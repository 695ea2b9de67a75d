/* A small library exercising the type kinds the model has. */
#include "include/fix.h"

struct list *head;
const char *const names[3] = { "a", "b", "c" };
int apply(struct list *l, int (*fn)(int, ...), union number n, enum mode m) { return fn(l->value + n.i + m); }
unsigned long table_size(const struct table *t) { return sizeof t->cells + t->bits.lo; }
