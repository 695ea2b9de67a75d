/* Types two libraries share, so that dwz moves them to the alternate file. */
struct shared { int a; long b; const char *name; struct shared *next; };
typedef struct shared shared_t;
struct point { double x, y, z; };
struct box { struct point lo, hi; shared_t *owner; unsigned flags : 3; };
enum mode { MODE_A, MODE_B, MODE_C };
union val { int i; double d; struct point p; };
struct big { struct box boxes[4]; enum mode m; union val v; char tag[16]; };
