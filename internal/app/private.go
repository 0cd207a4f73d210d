package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// privateMode is the mode of the files that name lock tokens: the owner's alone. A token is a capability:
// whoever knows it can release the lock.
const privateMode fs.FileMode = 0o600

// openPrivate opens name for flag (--debug, --events) to append lines that name lock tokens. A new file is
// created with privateMode; an existing regular file that others may read or write is tightened to it through
// the open descriptor (so that it is the file written that is tightened), its lines kept: the usual umask
// makes 0644 files, and a user who names one expects the program to keep the tokens private, not to refuse.
// A symbolic link at name is not followed to a file: it could send the tokens to, or create, a file the user
// never named. Devices and pipes are written as they are, also through a link (--debug /dev/stderr).
func openPrivate(flag, name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, privateMode)
	if err != nil {
		if info, lerr := os.Lstat(name); lerr == nil && info.Mode()&fs.ModeSymlink != 0 {
			if f := openLinkedStream(name); f != nil {
				return f, nil
			}
			return nil, fmt.Errorf("%s %s: is a symbolic link, which is not followed to a file since the file "+
				"names lock tokens: give the path of the file itself", flag, name)
		}
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	if perm := info.Mode().Perm(); info.Mode().IsRegular() && perm&^privateMode != 0 {
		if err := f.Chmod(privateMode); err != nil {
			f.Close()
			var pathErr *fs.PathError
			if errors.As(err, &pathErr) {
				err = pathErr.Err
			}
			return nil, fmt.Errorf("%s %s: others may read it (mode %04o) and it cannot be made private (%v): "+
				"chmod 600 it, or give another file", flag, name, perm, err)
		}
	}
	return f, nil
}

// openLinkedStream opens what the symbolic link name points to when that exists and is not a regular file nor
// a directory (a terminal, a pipe, /dev/null: /dev/stderr is such a link), and returns nil otherwise. It never
// creates a file, and it checks what it opened, not what it looked at before.
func openLinkedStream(name string) *os.File {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil
	}
	if info, err := f.Stat(); err != nil || info.Mode().IsRegular() || info.IsDir() {
		f.Close()
		return nil
	}
	return f
}
