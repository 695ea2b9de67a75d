package report

import "strings"

// The finding-to-rule tables of SARIF output. Rule ids are stable: code
// scanning tracks an alert by rule id and file, so renaming one reopens
// every alert. They are keyed by the models' own rule and kind names
// (strings), so report imports no model package.

// CheckRules are the rules of check's findings.
var CheckRules = []SARIFRule{
	{ID: "floor/limit", Name: "VersionAboveLimit", Short: "A symbol version is above the limit of a --max or a target.",
		Full: "The file needs a symbol version newer than the limit allows: on a system whose library is at the limit, the loader refuses to start it (version `X' not found).",
		Help: "Build against an older library (abifloor cc --glibc VER, or a manylinux image), or raise the limit if the target really has the newer library. abifloor check --why names the symbols that set the floor.", Level: "error"},
	{ID: "floor/symbol-versions", Name: "SymbolVersionNotAllowed", Short: "A symbol version is not in the policy's allowed set for the architecture.",
		Full: "The platform policy (manylinux, musllinux) lists the symbol versions a file may need per library and architecture; this one is not among them.",
		Help: "Build in the policy's reference image, or against stubs of its glibc (abifloor stubs, abifloor cc).", Level: "error"},
	{ID: "floor/lib-whitelist", Name: "LibraryNotAllowed", Short: "A needed library is outside the policy's lib_whitelist and not shipped.",
		Full: "The policy allows a file to load only the libraries every compliant system has; this one is neither among them nor shipped beside the file where the loader finds it.",
		Help: "Ship the library with the package (auditwheel repair does this for wheels) or link it statically.", Level: "error"},
	{ID: "floor/blacklist", Name: "SymbolForbidden", Short: "A symbol the policy forbids is used from a library.",
		Full: "The policy forbids some symbols of allowed libraries, because their behaviour differs across the systems it covers.",
		Help: "Avoid the symbol, or build in the policy's reference image.", Level: "error"},
	{ID: "floor/libc", Name: "WrongLibc", Short: "The file is linked against a C library none of the targets has.",
		Full: "A glibc file does not load on a musl system, nor the other way round.",
		Help: "Build once per C library, and check each build against targets of its own C library.", Level: "error"},
	{ID: "floor/arch", Name: "ArchitectureNotCovered", Short: "The policy has no rules for the file's architecture.",
		Full: "The target's policy covers other architectures: nothing says what this file may need.",
		Help: "Check the file against a target that covers its architecture.", Level: "error"},
	{ID: "floor/claim", Name: "ClaimNotMet", Short: "A file needs more than the package's own claim (Depends, platform tag) says.",
		Full: "The package says which C library it needs (a .deb's Depends, a wheel's platform tag); a file in it needs a newer one, so the package installs where it cannot run.",
		Help: "Raise the claim to what the files need, or build the files against the claimed release.", Level: "error"},
	{ID: "floor/undefined-symbol", Name: "UndefinedOnTarget", Short: "A symbol the target's libc.so.6 lacks, in a library the file does not need.",
		Full: "Before glibc 2.34, the functions of libpthread, libdl, librt, libutil, libanl and libresolv were in those libraries, not libc.so.6: a reference bound to libc.so.6 (unversioned, or with a version libc.so.6 has) is then found only when the file also needs that library. The target's loader says 'undefined symbol'.",
		Help: "Link the library the message names (-lresolv, -lpthread, ...), or build against the target's glibc (abifloor cc --target T).", Level: "error"},
	{ID: "floor/interpreter", Name: "InterpreterNotOnTarget", Short: "The program's interpreter (PT_INTERP) is not a loader the target has.",
		Full: "The kernel starts a program through the loader its PT_INTERP names; a path the target does not have (another C library's loader, a /run/host path, a typo) makes it refuse the program: 'cannot execute: required file not found'.",
		Help: "Link with the target's loader path (the toolchain's default, or -Wl,--dynamic-linker=/lib64/ld-linux-x86-64.so.2).", Level: "error"},
	{ID: "floor/bind-now-undefined", Name: "BoundAtStartUndefined", Short: "Linked with -z now, the program binds at start a symbol no library of the target's base system defines.",
		Full: "With BIND_NOW every symbol is bound before main: a function meant to come from a library the program dlopen()s later (the go-nvml pattern) kills it at start.",
		Help: "Link lazily (-z lazy), or resolve those functions with dlsym.", Level: "error"},
	{ID: "floor/not-in-base", Name: "LibraryNotInBase", Short: "A needed library is neither of the target's base system (glibc, the GCC runtimes) nor shipped where the loader finds it.",
		Full: "The target table knows glibc's libraries and the GCC runtimes of each target; any other library must come from the system, and whether the target has it, at a version that defines what the file needs, is not known. A warning; an error with --strict.",
		Help: "Ship the library beside the file on a RUNPATH ($ORIGIN/../lib), link it statically, or make sure the package depends on it.", Level: "warning"},
	{ID: "floor/lazy-undefined", Name: "LazilyBoundUndefined", Short: "A lazily bound symbol no library of the target's base system defines.",
		Full: "The program starts, and binds the symbol at its first call: a library it loads later (dlopen) must define it by then, or that call dies. Linked with -z now (or run with LD_BIND_NOW=1) it dies at start. A warning; an error with --strict.",
		Help: "Check the symbols against the library meant to define them (abifloor bind --dlopen LIB), and keep the program linked lazily.", Level: "warning"},
	{ID: "floor/unreadable", Name: "UnreadableFile", Short: "The file could not be read.",
		Full: "The file is not a well-formed ELF file or archive, or could not be opened: it was not checked.",
		Help: "Fix or exclude the file (--exclude PATTERN); a gate that could not read a file does not pass.", Level: "error"},
	{ID: "floor/limit-unused", Name: "LimitCheckedNothing", Short: "A --max limits a namespace no file needs: it checked nothing.",
		Full: "No file needs a version of the limited namespace, often because its name is misspelt (GLIBC, GLIBCXX, CXXABI, GCC).",
		Help: "Check the namespace's spelling with abifloor scan, which lists the namespaces the files need.", Level: "warning"},
	{ID: "floor/nothing-checked", Name: "NothingChecked", Short: "The paths hold no ELF file: nothing was checked.",
		Full: "A gate that checked nothing must not pass: the paths are wrong, or the build produced nothing.",
		Help: "Point the check at the build's output, or pass --allow-empty when an empty tree is expected.", Level: "error"},
	{ID: "floor/incomplete", Name: "RunIncomplete", Short: "The run was interrupted before every file was checked.",
		Full: "A signal or a limit cut the run short: the files not reached were not checked.",
		Help: "Run the check again to its end.", Level: "error"},
}

// CheckRuleID is the rule of a violation of floor's rule rule
// (floor.Violation.Rule: "symbol_versions", "claim", "" for a limit).
func CheckRuleID(rule string) string {
	switch rule {
	case "symbol_versions":
		return "floor/symbol-versions"
	case "lib_whitelist":
		return "floor/lib-whitelist"
	case "blacklist", "libc", "arch", "claim", "interpreter":
		return "floor/" + rule
	case "undefined_symbol":
		return "floor/undefined-symbol"
	case "bind_now_undefined":
		return "floor/bind-now-undefined"
	case "not_in_base":
		return "floor/not-in-base"
	case "lazy_undefined":
		return "floor/lazy-undefined"
	}
	return "floor/limit"
}

// BindRules are the rules of bind's findings.
var BindRules = []SARIFRule{
	{ID: "bind/dies-at-start", Name: "DiesAtStart", Short: "The loader stops the program before main.",
		Full: "A needed library is not found, or a symbol bound at start (eagerly, or by data relocation) is defined by no loaded library: the program never reaches main.",
		Help: "Ship the library where the loader searches (RUNPATH $ORIGIN/...), or link against the version the target has.", Level: "error"},
	{ID: "bind/dies-if-bind-now", Name: "DiesIfBoundNow", Short: "The program starts as linked, but would die before main if linked with -z now (or run with LD_BIND_NOW=1).",
		Full: "A lazily bound symbol is defined by no library loaded at start: bound at the first call, a library the program loads itself may provide it; bound at start (-z now, LD_BIND_NOW=1, a distribution's hardening flags), the loader stops the program.",
		Help: "Keep the program linked lazily (-z lazy) and say so to distributors, or resolve the symbols with dlsym instead of linking against them.", Level: "error"},
	{ID: "bind/dlopen-missing", Name: "DlopenLibraryLacksSymbol", Short: "A lazily bound symbol is defined by none of the --dlopen libraries.",
		Full: "The program expects a symbol from a library it opens at run time, and none of the libraries named with --dlopen defines it.",
		Help: "Name the library that defines it with --dlopen, or fix the program's expectation.", Level: "error"},
	{ID: "bind/lazy-unresolved", Name: "LazySymbolUnresolved", Short: "A lazily bound symbol no loaded library provides: the program dies at the first call.",
		Full: "The program starts, and dies with 'symbol lookup error' when it first calls the function.",
		Help: "Link the library that defines it, or pass --dlopen LIB for a plug-in host's symbols; --strict makes this fail the run.", Level: "warning"},
	{ID: "bind/plt-none", Name: "PLTRelocationNone", Short: "PLT relocations of type NONE: calls through them crash.",
		Full: "The linker left PLT relocations of type NONE for symbols it was told to ignore (--unresolved-symbols=ignore-all or ignore-in-object-files): under lazy binding the loader refuses them at start, under BIND_NOW a call through them jumps to nothing.",
		Help: "Link the library that defines the symbols, or export them (-rdynamic) so the loader binds them from a library loaded later.", Level: "error"},
	{ID: "bind/relr-ignored", Name: "RelrIgnored", Short: "DT_RELR relocations the root's loader ignores: the first use of a packed pointer crashes.",
		Full: "glibc's loader applies DT_RELR relocations (-z pack-relative-relocs) from 2.36 on; an older one skips the tag and maps the object with those pointers unrelocated. A file that needs libc.so.6 carries the GLIBC_ABI_DT_RELR marker and is refused instead; one linked without libc is not.",
		Help: "Link with -z nopack-relative-relocs for a glibc older than 2.36.", Level: "error"},
	{ID: "bind/unreadable", Name: "UnreadableFile", Short: "The file, a library or the loader cache could not be read.",
		Full: "The audit could not read what it needs, so it cannot say whether the program loads.",
		Help: "Fix or exclude the file.", Level: "error"},
	{ID: "bind/host-only", Name: "FoundOnlyViaHost", Short: "A library's dependency lies beside it, found only through a host program's search path.",
		Full: "The library loads only because the program that loads it searches the directory; another program would not find the dependency.",
		Help: "Give the library its own RUNPATH ($ORIGIN) to the dependency.", Level: "note"},
}

// DiffRuleID is the rule of an abidiff change of kind kind.
func DiffRuleID(kind string) string { return "abi/" + kind }

// DiffRules are the rules of diff's findings, one per change kind.
func DiffRules(kinds []string) []SARIFRule {
	rules := make([]SARIFRule, 0, len(kinds))
	for _, k := range kinds {
		words := strings.ReplaceAll(k, "-", " ")
		rules = append(rules, SARIFRule{ID: DiffRuleID(k), Short: "ABI change: " + words + ".",
			Full: "Between the two ABIs, " + words + ". An incompatible change breaks programs built against the old ABI; a compatible one does not.",
			Help: "If the change is incompatible, bump the library's soname or symbol version, or revert it; hide an intended change with --suppressions FILE.", Level: "warning"})
	}
	return rules
}
