package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// silentLogger is go-redis's logger once a test's debug log is closed.
type silentLogger struct{}

func (silentLogger) Printf(context.Context, string, ...any) {}

// logOpeners are the files that name lock tokens, each opened as its flag opens it: --debug and --events.
var logOpeners = []struct {
	flag string
	open func(name string) (close func(), err error)
}{
	{"--debug", func(name string) (func(), error) {
		d, err := openDebug(name)
		if err != nil {
			return nil, err
		}
		return func() { d.close(); redis.SetLogger(silentLogger{}) }, nil
	}},
	{"--events", func(name string) (func(), error) {
		f := &Feed{}
		err := f.openEvents(name, nil)
		return f.close, err
	}},
}

// TestLogFilesThatNameTokensAreTheOwnersAlone: --debug and --events files name lock tokens, which are
// capabilities. A new file is created 0600; an existing one that others may read or write is tightened to
// 0600 (what a user who ran the program against a file made with the usual umask expects), its lines kept.
func TestLogFilesThatNameTokensAreTheOwnersAlone(t *testing.T) {
	for _, o := range logOpeners {
		for _, tc := range []struct {
			name     string
			existing os.FileMode // 0: no file yet
		}{
			{"new file", 0},
			{"existing 0644", 0o644},
			{"existing 0666", 0o666},
			{"existing 0604", 0o604},
			{"existing 0600", 0o600},
		} {
			t.Run(o.flag+"/"+tc.name, func(t *testing.T) {
				name := filepath.Join(t.TempDir(), "log")
				if tc.existing != 0 {
					if err := os.WriteFile(name, []byte("earlier line\n"), 0o600); err != nil {
						t.Fatal(err)
					}
					if err := os.Chmod(name, tc.existing); err != nil { // past the umask
						t.Fatal(err)
					}
				}
				closeFile, err := o.open(name)
				if err != nil {
					t.Fatalf("%s %s: %v", o.flag, tc.name, err)
				}
				closeFile()
				info, err := os.Stat(name)
				if err != nil {
					t.Fatal(err)
				}
				if info.Mode().Perm() != 0o600 {
					t.Errorf("%s (%s) leaves mode %v: others can read the lock tokens it names; want 0600",
						o.flag, tc.name, info.Mode().Perm())
				}
				if b, _ := os.ReadFile(name); tc.existing != 0 && !strings.HasPrefix(string(b), "earlier line\n") {
					t.Errorf("%s lost the lines already in the file: %q", o.flag, b)
				}
			})
		}
	}
}

// TestASymlinkAtALogPathIsRefused: a symbolic link where a --debug or --events file is to be is not followed
// (it could send lock tokens to, or create, a file the user never named): the open fails with a message that
// says why and names the flag, and the link's target is left as it was, or not created.
func TestASymlinkAtALogPathIsRefused(t *testing.T) {
	for _, o := range logOpeners {
		for _, dangling := range []bool{false, true} {
			name := o.flag + "/to a file"
			if dangling {
				name = o.flag + "/to nothing"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
				if !dangling {
					if err := os.WriteFile(target, []byte("someone else's\n"), 0o600); err != nil {
						t.Fatal(err)
					}
					if err := os.Chmod(target, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
				closeFile, err := o.open(link)
				if err == nil {
					closeFile()
					t.Fatalf("%s %s: opened through the symbolic link", o.flag, link)
				}
				if msg := err.Error(); !strings.Contains(msg, o.flag) || !strings.Contains(msg, "symbolic link") ||
					!strings.Contains(msg, link) {
					t.Errorf("the refusal does not name the flag, the path and why: %q", msg)
				}
				info, statErr := os.Stat(target)
				switch {
				case dangling && statErr == nil:
					t.Errorf("%s created the dangling link's target %s", o.flag, target)
				case !dangling && (statErr != nil || info.Mode().Perm() != 0o644):
					t.Errorf("%s changed the link's target: %v, %v", o.flag, info.Mode(), statErr)
				case !dangling:
					if b, _ := os.ReadFile(target); string(b) != "someone else's\n" {
						t.Errorf("%s wrote to the link's target: %q", o.flag, b)
					}
				}
			})
		}
	}
}

// TestALinkToAStreamIsWritten: --debug /dev/stderr is a symbolic link to a terminal or a pipe, not to a file
// someone could have planted: it is written.
func TestALinkToAStreamIsWritten(t *testing.T) {
	for _, o := range logOpeners {
		t.Run(o.flag, func(t *testing.T) {
			link := filepath.Join(t.TempDir(), "stream")
			if err := os.Symlink(os.DevNull, link); err != nil {
				t.Fatal(err)
			}
			closeFile, err := o.open(link)
			if err != nil {
				t.Fatalf("%s through a link to %s: %v", o.flag, os.DevNull, err)
			}
			closeFile()
			if info, err := os.Stat(os.DevNull); err != nil || info.Mode().IsRegular() {
				t.Fatalf("%s is no longer a device: %v, %v", os.DevNull, info, err)
			}
		})
	}
}
