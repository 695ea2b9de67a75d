// Package bind answers, without running anything, the question the dynamic
// loader answers at start: will this binary load, and which of its symbols
// will only be found later? It exists for programs like NVIDIA's container
// toolkit that call functions of a library they dlopen() themselves: linked
// lazily they work, linked with -z now (or -fno-plt, or by Go's linker)
// they die with "symbol lookup error" before main.
//
// An Auditor does what glibc's ld.so does, in the same order. It builds the
// global scope: the executable, then its DT_NEEDED entries breadth-first,
// each found by the loader's search (DT_RPATH of the loading chain unless
// the object has DT_RUNPATH, LD_LIBRARY_PATH, DT_RUNPATH, ld.so.cache, the
// default directories; $ORIGIN, $LIB and $PLATFORM expanded; candidates of
// another machine or class skipped). It checks the version needs of every
// object, then resolves every undefined, non-weak symbol against the scope
// with glibc's version rules, and classifies each unresolved one by the
// relocations that use it: JUMP_SLOT in the PLT without BIND_NOW is lazy
// (bound at the first call, so a library loaded at run time may still
// provide it), anything else is eager and kills the program at start. The
// verdict carries the message ld.so would print.
//
// A shared library is audited as if loaded on its own, except that a
// dependency its own search misses is looked for through its hosts: in an
// Audit, the programs of the same run that load it (what their load brought
// in, systemd's RUNPATH finding libsystemd-shared for libsystemd-core), and
// otherwise beside the library, in its $ORIGIN ("found only via its host":
// a note in FileReport.ViaHost, not a death).
//
// To use it: New(Options{Sysroot: "/images/rootfs", Dlopen: []string{"libnvidia-ml.so.1"}})
// then Audit(ctx, paths). With Sysroot every path, link and the cache are
// resolved inside the image; ArgPath maps a command-line path into it as
// chroot would. Each library is parsed once per Auditor and
// shared by every binary it audits; a library's references are resolved
// against its own dependencies once, and only what is left over is looked
// up again per binary. Start reading at audit.go (verdicts), scope.go
// (load order) and search.go (where libraries are found); lib.go holds
// what is kept of each file and the symbol-matching rules.
//
// Not modelled: glibc-hwcaps and legacy hwcap subdirectories (the same
// library built for newer CPUs, equivalent for symbol resolution),
// LD_PRELOAD, LD_BIND_NOW in the environment, secure-execution mode, and
// namespaces other than the base one.
package bind
