// Version 1 of the C++ fixture library; cxx_v2.cc changes one thing per
// class, each a rule of abidiff's C++ comparison.
namespace lib {
struct Base0 { int b0; };
struct Base1 { int b1; };
struct Derived : Base1 { int d; };            // v2: a base inserted before Base1
struct VApp { virtual ~VApp(); virtual int f(); int x; };                  // v2: virtual g appended
struct VIns { virtual ~VIns(); virtual int f(); virtual int h(); int x; }; // v2: virtual g inserted before h
struct Reord { int a; long b; };              // v2: members reordered
template <typename T> struct Box { T v; };
struct Holder { Box<int> box; };              // v2: Box<long>
inline namespace v1 { struct S { int a; }; }  // v2: inline namespace v2
struct Rect { int w; int h; };                // v2: renamed Area, members renamed, same layout
struct WithStatic { static int count; int v; };
enum class Color : short { Red, Green };

VApp::~VApp() {}
int VApp::f() { return x; }                   // defined out of line: DW_AT_specification
VIns::~VIns() {}
int VIns::f() { return x; }
int VIns::h() { return x + 1; }
int WithStatic::count = 0;

int use(Derived *d, Reord *r, Holder *h, WithStatic *w, Color c) { return d->d + r->a + h->box.v + w->v + (int)c; }
int take(S *s) { return s->a; }
int by_ref(Reord &r, Reord &&m) { return r.a + m.a; }
}
extern "C" int area(lib::Rect *r) { return r->w * r->h; }
