/* Version 2: see v1.c. */
struct point { int x; int y; int z; };            /* member added, size grows */
struct reorder { long b; int a; };                /* members reordered */
struct widen { long v; int w; };                  /* member widened */
enum color { RED, GREEN = 5, BLUE };              /* enum values changed */
struct flags { unsigned a : 1; unsigned b : 5; unsigned c : 4; }; /* bit-field widened */
union val { int i; float f; double d; };          /* union grows */
struct anon { int kind; union { int i; long l; }; struct { short s1; short s2; short s3; } pair; };
struct node { struct node *next; int v; };
struct same { char tag; double d; };
typedef struct { unsigned hRoot; unsigned hObjectParent; unsigned pad; unsigned hObjectNew; } PARAMS;

int use_all(struct point *p, struct reorder *r, struct widen *w, enum color c,
            struct flags *f, union val *v, struct anon *a, struct node *n, struct same *s, PARAMS *pp)
{
	return p->x + (int)r->b + (int)w->v + c + f->b + v->i + a->kind + n->v + s->tag + (int)pp->hObjectNew;
}
int bumped_old(void) { return 1; }
int bumped_new(void) { return 2; }
__asm__(".symver bumped_old,bumped@LIBT_1.0");
__asm__(".symver bumped_new,bumped@@LIBT_2.0");
int added_fn(void) { return 3; }
int counter = 3;
