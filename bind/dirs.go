package bind

// SearchDirs is the part of ld.so's search for a DT_NEEDED name that an
// object itself sets: the directories of its DT_RUNPATH, or, when it has
// none, of its DT_RPATH (and then callers append the DT_RPATH of the
// objects that loaded it, as ld.so does), with $ORIGIN expanded to
// origin, the object's directory. A directory naming $LIB or $PLATFORM
// is dropped (they need the object's architecture and the image). Used by
// floor to tell whether a library a tree ships is where the loader looks.
func SearchDirs(origin, rpath, runpath string) (dirs []string, hasRunpath bool) {
	p := rpath
	if runpath != "" {
		p, hasRunpath = runpath, true
	}
	for _, d := range splitPath(p) {
		if e, ok := expandTokens(d, origin, "", ""); ok && d != "" {
			dirs = append(dirs, e)
		}
	}
	return dirs, hasRunpath
}
