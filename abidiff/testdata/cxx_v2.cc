// Version 2: see cxx_v1.cc.
namespace lib {
struct Base0 { int b0; };
struct Base1 { int b1; };
struct Derived : Base0, Base1 { int d; };
struct VApp { virtual ~VApp(); virtual int f(); virtual int g(); int x; };
struct VIns { virtual ~VIns(); virtual int f(); virtual int g(); virtual int h(); int x; };
struct Reord { long b; int a; };
template <typename T> struct Box { T v; };
struct Holder { Box<long> box; };
inline namespace v2 { struct S { int a; }; }
struct Area { int width; int height; };
struct WithStatic { static int count; int v; };
enum class Color : short { Red, Green };

VApp::~VApp() {}
int VApp::f() { return x; }
int VApp::g() { return 2; }
VIns::~VIns() {}
int VIns::f() { return x; }
int VIns::g() { return 2; }
int VIns::h() { return x + 1; }
int WithStatic::count = 0;

int use(Derived *d, Reord *r, Holder *h, WithStatic *w, Color c) { return d->d + r->a + (int)h->box.v + w->v + (int)c; }
int take(S *s) { return s->a; }
int by_ref(Reord &r, Reord &&m) { return r.a + m.a; }
}
extern "C" int area(lib::Area *r) { return r->width * r->height; }
