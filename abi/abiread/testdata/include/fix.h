#include "sub/ioctl.h"

struct list { struct list *next, *prev; int value; };
union number { int i; double d; unsigned char raw[8]; };
enum mode { MODE_A, MODE_B = 4, MODE_C = -1 };
typedef int handle_t;
struct table {
	handle_t owner;
	struct { unsigned lo : 4, hi : 12; } bits;
	union { long l; void *p; };
	char cells[2][3];
	struct list *lists[];
};
typedef struct { handle_t hRoot; handle_t hObjectNew; struct table *t; } NVOS_PARAMS;
typedef struct { int a; } NVOS_OTHER;
