package record

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// pollAt is a poll of one master at second i.
func pollAt(i int) monitor.Poll {
	return monitor.Poll{Time: time.Unix(int64(1000+i), 0), Readings: []monitor.Reading{{Addr: "a:1",
		Keys: []monitor.KeyReading{{Key: "lock:a", Value: "token", PTTL: time.Second}}}}}
}

// TestARecordingReopensAfterARename: as logrotate renames a log then signals its writer, the recording renamed
// is ended cleanly (it reads back closed) and a new one begins at the path, with a header of its own and a
// whole first poll, so that each replays alone. Reopening a recording still at its path changes nothing.
func TestARecordingReopensAfterARename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.rec")
	news := 0
	w, err := Create(path, 0, Header{Started: time.Now(), Masters: []string{"a:1"}}, func() { news++ })
	if err != nil {
		t.Fatal(err)
	}
	write := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			if err := w.WritePoll(pollAt(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(0, 2)
	if err := w.Reopen(); err != nil || news != 0 {
		t.Fatalf("reopening a recording at its path: %v, %d new files; want nothing done", err, news)
	}
	write(2, 3)
	if err := os.Rename(path, path+".rotated"); err != nil {
		t.Fatal(err)
	}
	if err := w.Reopen(); err != nil {
		t.Fatal(err)
	}
	write(3, 5)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	old, err := Open(path + ".rotated")
	if err != nil || old.Len() != 3 || old.Unclosed || old.Header.Part != 1 {
		t.Fatalf("the renamed recording: %v, %+v; want its 3 polls, ended cleanly, part 1", err, old)
	}
	cur, err := Open(path)
	if err != nil || cur.Len() != 2 || cur.Unclosed || cur.Header.Part != 2 || news != 1 {
		t.Fatalf("the new recording: %v, %+v, %d new files; want 2 polls, ended cleanly, part 2, one new file",
			err, cur, news)
	}
	if got := NewPlayer(cur, nil).Snapshot(0); got.Lock("lock:a") == nil {
		t.Errorf("the new recording's first poll replays without lock:a: %+v", got.Locks)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the new recording names tokens: mode %v (%v), want 0600", info.Mode(), err)
	}
}

// TestARecordingAWriteErrorStoppedResumesOnReopen: after a write error the recording stops (Err says why);
// a reopen sets the stopped file aside as FILE.1 and resumes in a new FILE, which replays.
func TestARecordingAWriteErrorStoppedResumesOnReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.rec")
	w, err := Create(path, 0, Header{Started: time.Now(), Masters: []string{"a:1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WritePoll(pollAt(0)); err != nil {
		t.Fatal(err)
	}
	w.file.Close() // every write fails from here, as on a full disk
	if err := w.WritePoll(pollAt(1)); err == nil || w.Err() == nil {
		t.Fatalf("a write to a closed file: %v, Err %v; want an error", err, w.Err())
	}
	if err := w.WritePoll(pollAt(2)); err == nil {
		t.Fatal("a recording stopped by an error wrote again")
	}
	if err := w.Reopen(); err != nil || w.Err() != nil {
		t.Fatalf("reopening a stopped recording: %v, Err %v; want it resumed", err, w.Err())
	}
	if err := w.WritePoll(pollAt(3)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	stopped, err := Open(path + ".1")
	if err != nil || stopped.Len() != 1 {
		t.Errorf("the stopped recording, set aside: %v, %+v; want its one poll", err, stopped)
	}
	cur, err := Open(path)
	if err != nil || cur.Len() != 1 || cur.Header.Part != 2 || !pollsOf(cur)[0].Time.Equal(pollAt(3).Time) {
		t.Errorf("the resumed recording: %v, %+v; want the poll written after the reopen, part 2", err, cur)
	}
}
