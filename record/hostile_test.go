package record

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A recording is a file people send each other after an incident: it is read as untrusted input. These tests
// give the reader files crafted to make it allocate what they say, and check that each is refused with a clear
// error naming its line, within memory far below what they ask for.

// polledRecording is a recording of one polled master: a first poll that writes three keys whole, then a poll
// whose spans are spans (the second poll of a quiet master has `[{"same":3}]`).
func polledRecording(spans string) string {
	return `{"format":"redlock-tui recording","version":2,"masters":["a:1"]}
{"poll":{"time":"2026-11-27T03:00:00Z","readings":[{"Addr":"a:1","Keys":[` +
		`{"Key":"lock:a","Value":"ta","PTTL":5000000000,"ReadAt":"2026-11-27T03:00:00Z"},` +
		`{"Key":"lock:b","Value":"tb","PTTL":5000000000,"ReadAt":"2026-11-27T03:00:00Z"},` +
		`{"Key":"lock:c","Value":"tc","PTTL":5000000000,"ReadAt":"2026-11-27T03:00:00Z"}]}]},` +
		`"polled":[{"reading":0,"runs":[{"at":"2026-11-27T03:00:00Z","spans":[{"new":3}]}]}]}
{"poll":{"time":"2026-11-27T03:00:01Z","readings":[{"Addr":"a:1"}]},` +
		`"polled":[{"reading":0,"runs":[{"at":"2026-11-27T03:00:01Z","spans":` + spans + `}]}]}
`
}

// TestCraftedSpanCountsAreRefusedClearly: the span counts of the issue (a negative count, counts that overflow
// or ask for gigabytes) and others that reach past what the last reading held are each refused with an error
// naming the line, before anything is sized from them.
func TestCraftedSpanCountsAreRefusedClearly(t *testing.T) {
	if rec, err := Read(strings.NewReader(polledRecording(`[{"same":3}]`)), "quiet.rec"); err != nil ||
		rec.Len() != 2 || len(pollsOf(rec)[1].Readings[0].Keys) != 3 ||
		pollsOf(rec)[1].Readings[0].Keys[2].PTTL != 4*time.Second {
		t.Fatalf("the untouched recording: %v, %+v; want its 2 polls, the second rebuilt whole", err, rec)
	}
	for _, tc := range []struct{ spans, want string }{
		{`[{"changed":-91}]`, "line 3: the reading of a:1: run 1, span 1: a negative count of keys"},
		{`[{"new":4611686018427387904}]`, "line 3: the reading of a:1: run 1, span 1: more keys written in full than the 0"},
		{`[{"new":1000000000}]`, "line 3: the reading of a:1: run 1, span 1: more keys written in full"},
		{`[{"new":1e9}]`, "line 3 is not a poll or an event"},
		{`[{"same":4611686018427387904},{"same":4611686018427387904}]`, "more keys in the last reading's order than the 3"},
		{`[{"skip":9223372036854775807,"same":2}]`, "more keys in the last reading's order"},
		{`[{"same":2},{"same":2}]`, "run 1, span 2: more keys in the last reading's order than the 3 it had"},
		{`[{"scan_skip":-1}]`, "more keys in the scan order than the 3 it had"},
		{`[{"scanned":4}]`, "more keys in the scan order"},
		{`[{"scan_skip":3,"scanned":1}]`, "more keys in the scan order"},
		{`[{"same":1},{"skip":-1,"same":1}]`, "span 2: a negative count"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Read(strings.NewReader(polledRecording(tc.spans)), "crafted.rec")
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "crafted.rec: line 3") {
			t.Errorf("spans %s: %v; want an error naming line 3 and saying %q", tc.spans, err, tc.want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
			t.Errorf("spans %s: reading a 1 KB recording allocated %d MB", tc.spans, alloc>>20)
		}
	}
}

// TestASpanCannotPlaceTheScanOrderOverAndOver: a scan may go back, but a line cannot place the keys of the
// scan order more than twice over, so that a few bytes of spans cannot rebuild millions of keys.
func TestASpanCannotPlaceTheScanOrderOverAndOver(t *testing.T) {
	// Line 3 reads the three keys out of order (new: written whole), which makes them the scan order; line 4
	// places them from it again and again.
	rec := strings.Replace(polledRecording(`[{"new":3}]`), `"readings":[{"Addr":"a:1"}]`, `"readings":[{"Addr":"a:1","Keys":[`+
		`{"Key":"lock:c","Value":"tc","PTTL":5000000000,"ReadAt":"2026-11-27T03:00:01Z"},`+
		`{"Key":"lock:b","Value":"tb","PTTL":5000000000,"ReadAt":"2026-11-27T03:00:01Z"},`+
		`{"Key":"lock:a","Value":"ta","PTTL":5000000000,"ReadAt":"2026-11-27T03:00:01Z"}]}]`, 1)
	again := `{"poll":{"time":"2026-11-27T03:00:02Z","readings":[{"Addr":"a:1"}]},"polled":[{"reading":0,"runs":[` +
		`{"at":"2026-11-27T03:00:02Z","spans":[{"scanned":3},{"scan_skip":-3,"scanned":3}]}]}]}` + "\n"
	if got, err := Read(strings.NewReader(rec+again), "twice.rec"); err != nil || len(pollsOf(got)[2].Readings[0].Keys) != 6 {
		t.Fatalf("the scan order placed twice: %v; want it read, 6 keys", err)
	}
	thrice := strings.Replace(again, `{"scan_skip":-3,"scanned":3}]`, `{"scan_skip":-3,"scanned":3},{"scan_skip":-3,"scanned":3}]`, 1)
	if _, err := Read(strings.NewReader(rec+thrice), "thrice.rec"); err == nil ||
		!strings.Contains(err.Error(), "line 4: the reading of a:1: run 1, span 3: the scan order's keys placed more than twice over") {
		t.Errorf("the scan order placed three times: %v; want an error naming line 4", err)
	}
}

// TestAGzipBombIsRefusedWithinBoundedMemory: a small gzip file whose second line is 1.2 GiB (a valid header,
// then a poll that never ends) is refused when the line passes maxLine, and reading it holds little more than
// maxLine, not gigabytes. The file is made streaming; the read runs in a process of its own, whose peak RSS
// (VmHWM) is measured.
func TestAGzipBombIsRefusedWithinBoundedMemory(t *testing.T) {
	if openingInProcess() {
		return
	}
	if testing.Short() || raceDetector {
		t.Skip("writes and reads a 1.2 GiB stream, and measures memory: not with -short or -race")
	}
	path := filepath.Join(t.TempDir(), "bomb.rec")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gz, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	fmt.Fprintf(gz, `{"format":"redlock-tui recording","version":2,"masters":["a:1"]}`+"\n"+
		`{"poll":{"time":"2026-11-27T03:00:00Z","readings":[{"Addr":"`)
	block := []byte(strings.Repeat("a", 1<<20))
	for range 1200 {
		if _, err := gz.Write(block); err != nil {
			t.Fatal(err)
		}
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	errText, peak := openInProcess(t, path)
	if !strings.Contains(errText, "bomb.rec: line 2: a line over 268435456 bytes") {
		t.Errorf("reading the bomb: %q; want an error naming line 2 and the limit", errText)
	}
	if limit := int64(maxLine) + 192<<20; peak > limit {
		t.Errorf("reading the bomb peaked at %d MiB of RSS; want at most %d MiB (the line limit and the program)", peak>>20, limit>>20)
	}
	t.Logf("the bomb (%d MiB of line) refused at a peak RSS of %d MiB", 1200, peak>>20)
}

// TestManyEmptyPollsOpenWithinBoundedMemory: a recording of 100,000 polls of one quiet master (a reading with
// no key) opens, and is replayed, within a small multiple of its decompressed size.
func TestManyEmptyPollsOpenWithinBoundedMemory(t *testing.T) {
	if openingInProcess() {
		return
	}
	if testing.Short() || raceDetector {
		t.Skip("writes and opens 100,000 polls, and measures memory: not with -short or -race")
	}
	path := filepath.Join(t.TempDir(), "empty.rec")
	start := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	const polls = 100_000
	size := writeLines(t, path, func(out io.Writer) {
		fmt.Fprintln(out, `{"format":"redlock-tui recording","version":2,"masters":["a:1"]}`)
		for i := range polls {
			at := start.Add(time.Duration(i) * 500 * time.Millisecond).Format(time.RFC3339Nano)
			fmt.Fprintf(out, `{"poll":{"time":%q,"readings":[{"Addr":"a:1","Sent":%[1]q,"Received":%[1]q,`+
				`"ServerTime":%[1]q,"Role":"master","Version":"7.0.15","RunID":"d33efd0a8a7b4517b2d1a74026b27e08f8cae3d0",`+
				`"Uptime":37000000000,"Refresh":"polling","RefreshWhy":"tracking turned off"}]},`+
				`"polled":[{"reading":0,"runs":[]}]}`+"\n", at)
		}
	})
	errText, peak := openInProcess(t, path)
	if errText != "" {
		t.Fatalf("opening %d empty polls: %s", polls, errText)
	}
	// The program itself, and the polls' readings and snapshots: at most 8 times the bytes they were written in.
	if limit := int64(64<<20 + 8*size); peak > limit {
		t.Errorf("opening %d empty polls (%d MiB decompressed) peaked at %d MiB of RSS; want at most %d MiB",
			polls, size>>20, peak>>20, limit>>20)
	}
	t.Logf("%d empty polls, %d MiB decompressed, opened and replayed at a peak RSS of %d MiB", polls, size>>20, peak>>20)
}

// TestAQuietPolledMasterOfManyKeysOpensWithinBoundedMemory: a polled master's 2,000 keys, written whole once
// and then, at each of 1,000 polls, as one span of unchanged keys, are rebuilt whole at every poll of a replay;
// kept whole they would take 1,000 times 2,000 readings (over 300 MB) from 0.6 MB of lines. They are kept as
// written, and the replay's keyframes only as far as the file's size pays for them.
func TestAQuietPolledMasterOfManyKeysOpensWithinBoundedMemory(t *testing.T) {
	if openingInProcess() {
		return
	}
	if testing.Short() || raceDetector {
		t.Skip("writes and opens 1,000 polls of 2,000 keys, and measures memory: not with -short or -race")
	}
	path := filepath.Join(t.TempDir(), "quiet.rec")
	start := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	const keys, polls = 2000, 1000
	size := writeLines(t, path, func(out io.Writer) {
		fmt.Fprintln(out, `{"format":"redlock-tui recording","version":2,"masters":["a:1"]}`)
		for i := range polls {
			at := start.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)
			fmt.Fprintf(out, `{"poll":{"time":%q,"readings":[{"Addr":"a:1","Sent":%[1]q,"Received":%[1]q,`+
				`"ServerTime":%[1]q,"Role":"master","Version":"7.0.15","Uptime":37000000000,"Refresh":"polling","Keys":[`, at)
			span := fmt.Sprintf(`{"same":%d}`, keys)
			if i == 0 {
				for k := range keys {
					if k > 0 {
						fmt.Fprint(out, ",")
					}
					fmt.Fprintf(out, `{"Key":"lock:job:%d","Value":"tok-%020d","PTTL":3600000000000,"ReadAt":%q}`, k, k, at)
				}
				span = fmt.Sprintf(`{"new":%d}`, keys)
			}
			fmt.Fprintf(out, `]}]},"polled":[{"reading":0,"runs":[{"at":%q,"spans":[%s]}]}]}`+"\n", at, span)
		}
	})
	errText, peak := openInProcess(t, path)
	if errText != "" {
		t.Fatalf("opening %d polls of %d keys: %s", polls, keys, errText)
	}
	// The program itself; the keyframes, up to their budget, twice over (the collector lets the heap grow to
	// twice what it holds); and the polls and snapshots, at most 8 times their bytes.
	if limit := int64(64<<20 + 2*keyframeBudget(size) + 8*size); peak > limit {
		t.Errorf("opening %d polls of %d keys (%d MiB decompressed) peaked at %d MiB of RSS; want at most %d MiB",
			polls, keys, size>>20, peak>>20, limit>>20)
	}
	t.Logf("%d polls of %d keys, %d MiB decompressed, opened and replayed at a peak RSS of %d MiB",
		polls, keys, size>>20, peak>>20)
}

// writeLines writes the recording lines writes to path, compressed as a recorder does, and returns their
// size decompressed.
func writeLines(t *testing.T, path string, lines func(out io.Writer)) int {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	out := bufio.NewWriter(gz)
	counted := &byteCount{w: out}
	lines(counted)
	for _, err := range []error{out.Flush(), gz.Close(), f.Close()} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return counted.n
}

// byteCount counts the bytes written through it.
type byteCount struct {
	w io.Writer
	n int
}

func (c *byteCount) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// openInProcess opens the recording at path, and makes its player, in a new process running this test
// binary, and returns the error it met ("" for none) and the process's peak RSS in bytes.
func openInProcess(t *testing.T, path string) (string, int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), "RECORD_TEST_OPEN="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the reading process: %v\n%s", err, out)
	}
	var errText string
	var peak int64 = -1
	for l := range strings.Lines(string(out)) {
		if v, ok := strings.CutPrefix(l, "open-error: "); ok {
			errText = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(l, "peak-rss: "); ok {
			peak, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	if peak < 0 {
		t.Fatalf("the reading process told no peak:\n%s", out)
	}
	return errText, peak
}

// openingInProcess reports whether this is the reading process of openInProcess; when it is, it opens the
// recording, makes its player, and prints the error and its peak RSS (VmHWM).
func openingInProcess() bool {
	path := os.Getenv("RECORD_TEST_OPEN")
	if path == "" {
		return false
	}
	rec, err := Open(path)
	if err != nil {
		fmt.Printf("open-error: %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
	} else {
		NewPlayer(rec, nil)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Printf("no /proc/self/status: %v\n", err)
		return true
	}
	for l := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			fmt.Printf("peak-rss: %d\n", kb<<10)
		}
	}
	return true
}
