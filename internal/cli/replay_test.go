package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redlock-tui/redlock-tui/record"
)

func TestRecordMaxTakesSizesWithUnits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"256M", 256 << 20, true}, {"256MiB", 256 << 20, true}, {"1G", 1 << 30, true}, {"2048K", 2 << 20, true},
		{"1048576", 1 << 20, true}, {"500K", 0, false}, {"lots", 0, false}, {"-5M", 0, false}, {"", 0, false},
	} {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("%q: %d, %v; want %d (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestRecordAndReplayCommandLinesAreChecked(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-m", "a:1", "--once", "--record", "x.rec"}, "--record applies to the dashboard and --headless, not --once"},
		{[]string{"-m", "a:1", "--headless", "--record", "x.rec", "--record-max", "500K"}, `--record-max "500K"`},
		{[]string{"replay"}, "replay takes one recording"},
		{[]string{"replay", "a.rec", "b.rec"}, "replay takes one recording"},
		{[]string{"replay", "a.rec", "--json"}, "give it with --at"},
		{[]string{"replay", "a.rec", "--at", "end", "--json", "--markdown"}, "exclude each other"},
		{[]string{"replay", "a.rec", "--moments", "--at", "end"}, "--moments lists the whole recording"},
	} {
		code, _, stderr := runCapture(tc.args, realEnv)
		checkOneUsageLine(t, tc.args, code, stderr, tc.want)
	}
}

// TestReplayRefusesARecordingOfALaterVersionClearly: a recording a later release wrote is refused, saying
// which version it is and what reads it.
func TestReplayRefusesARecordingOfALaterVersionClearly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "later.rec")
	later := record.Version + 1
	if err := os.WriteFile(path, []byte(fmt.Sprintf(`{"format":"redlock-tui recording","version":%d}`, later)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCapture([]string{"replay", path, "--at", "end", "--json"}, realEnv)
	if code != ExitFailure || stdout != "" || !strings.Contains(stderr, fmt.Sprintf("a recording of format version %d", later)) ||
		!strings.Contains(stderr, "replay it with a newer redlock-tui") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and the version refused, with what reads it", code, stdout, stderr)
	}
}

// TestReplayRefusesACraftedRecordingClearly: a recording whose polled record holds a crafted span count (a
// file sent after an incident is untrusted input) makes replay exit 1 with an error naming the line, not panic.
func TestReplayRefusesACraftedRecordingClearly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crafted.rec")
	crafted := `{"format":"redlock-tui recording","version":2,"masters":["a:1"]}
{"poll":{"time":"2026-11-27T03:00:00Z","readings":[{"Addr":"a:1","Keys":[{"Key":"lock:a","Value":"ta","PTTL":5000000000,"ReadAt":"2026-11-27T03:00:00Z"}]}]},"polled":[{"reading":0,"runs":[{"at":"2026-11-27T03:00:00Z","spans":[{"new":1}]}]}]}
{"poll":{"time":"2026-11-27T03:00:01Z","readings":[{"Addr":"a:1"}]},"polled":[{"reading":0,"runs":[{"at":"2026-11-27T03:00:01Z","spans":[{"changed":-91}]}]}]}
`
	if err := os.WriteFile(path, []byte(crafted), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"replay", path}, {"replay", path, "--at", "end", "--json"}} {
		code, stdout, stderr := runCapture(args, realEnv)
		if code != ExitFailure || stdout != "" ||
			!strings.Contains(stderr, "crafted.rec: line 3: the reading of a:1: run 1, span 1: a negative count of keys") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and the line's error", args, code, stdout, stderr)
		}
	}
}

// TestReplayRefusesAMomentOutsideTheRecordingNamingItsSpan: --at before the first poll or past the last is a
// usage error that names the recording's span, not the first or last poll shown as if it were then.
func TestReplayRefusesAMomentOutsideTheRecordingNamingItsSpan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "one.rec")
	one := `{"format":"redlock-tui recording","version":2,"masters":["a:1"]}
{"poll":{"time":"2026-11-27T03:00:00.25Z","readings":[{"Addr":"a:1","Keys":[{"Key":"lock:a","Value":"ta","PTTL":5000000000,"ReadAt":"2026-11-27T03:00:00.25Z"}]}]},"polled":[{"reading":0,"runs":[{"at":"2026-11-27T03:00:00.25Z","spans":[{"new":1}]}]}]}
`
	if err := os.WriteFile(path, []byte(one), 0o600); err != nil {
		t.Fatal(err)
	}
	span := "it spans 2026-11-27 03:00:00.250 to 03:00:00.250 (0ms)"
	for _, tc := range []struct{ at, want string }{
		{"03:00:01", `--at "03:00:01": 03:00:01.000 is after the recording ended: ` + span},
		{"+1h", `--at "+1h": 04:00:00.250 is after the recording ended: ` + span},
		{"2026-11-28T03:00:00Z", `--at "2026-11-28T03:00:00Z": 2026-11-28 03:00:00.000 is after the recording ended: ` + span},
		{"03:00:00", `--at "03:00:00": 03:00:00.000 is before the recording began: ` + span},
		{"02:00", `--at "02:00": 02:00:00.000 is before the recording began: ` + span},
	} {
		args := []string{"replay", path, "--at", tc.at, "--json"}
		code, stdout, stderr := runCapture(args, realEnv)
		checkOneUsageLine(t, args, code, stderr, tc.want)
		if stdout != "" {
			t.Errorf("%v: printed %q besides the error", args, stdout)
		}
	}
	for _, at := range []string{"03:00:00.25", "end", "+0s"} { // the poll, and within its second
		args := []string{"replay", path, "--at", at, "--json"}
		if code, stdout, stderr := runCapture(args, realEnv); code != ExitOK || !strings.Contains(stdout, `"lock:a"`) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want the poll's locks", args, code, stdout, stderr)
		}
	}
}

// TestRecordOntoAnExistingFileIsAUsageError: --record onto a file that exists exits 2 with one line, before
// anything is connected or drawn, and leaves the file as it was.
func TestRecordOntoAnExistingFileIsAUsageError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.rec")
	if err := os.WriteFile(path, []byte("an earlier recording"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := realEnv
	env.Stat = os.Stat
	for _, args := range [][]string{
		{"-m", "127.0.0.1:1", "--headless", "--record", path},
		{"--demo", "--headless", "--record", path},
		{"-m", "127.0.0.1:1", "--record", path}, // the dashboard: refused before it finds no terminal
	} {
		code, stdout, stderr := runCapture(args, env)
		checkOneUsageLine(t, args, code, stderr, "--record "+path+": the file exists: give a new file")
		if stdout != "" {
			t.Errorf("%q: printed %q", args, stdout)
		}
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "an earlier recording" {
		t.Errorf("the existing file was changed: %q, %v", data, err)
	}
}
