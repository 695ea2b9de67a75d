package bind

import (
	"io/fs"
	"syscall"
)

func statKey(st fs.FileInfo) fileKey {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return fileKey{uint64(s.Dev), uint64(s.Ino)}
	}
	return fileKey{}
}
