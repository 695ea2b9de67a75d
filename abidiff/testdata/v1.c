/* Version 1 of the fixture library; v2.c changes it in one way per type. */
struct point { int x; int y; };
struct reorder { int a; long b; };
struct widen { int v; int w; };
enum color { RED, GREEN, BLUE };
struct flags { unsigned a : 1; unsigned b : 3; unsigned c : 4; };
union val { int i; float f; };
struct anon { int kind; union { int i; long l; }; struct { short s1; short s2; } pair; };
struct node { struct node *next; int v; };
struct same { char tag; double d; };
typedef struct { unsigned hRoot; unsigned hObjectParent; unsigned hObjectNew; } PARAMS;

int use_all(struct point *p, struct reorder *r, struct widen *w, enum color c,
            struct flags *f, union val *v, struct anon *a, struct node *n, struct same *s, PARAMS *pp)
{
	return p->x + (int)r->b + w->v + c + f->b + v->i + a->kind + n->v + s->tag + (int)pp->hObjectNew;
}
int removed_fn(void) { return 1; }
int bumped(void) { return 1; }
int private_fn(void) { return 2; }
int counter = 3;
