package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/record"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// hold is one client's hold of a lock, as the client logged it.
type hold struct {
	token              string
	acquired, released time.Time
}

// TestARecordedIncidentReplaysWhoHeldTheLock is issue 36's record and replay: `--headless --record` watches
// three real masters while clients take one lock in turn and a fault deletes a holder's keys on two masters;
// `replay FILE` lists the moments (the fault among them), and `replay FILE --at T --json`, for moments inside
// each hold, names the holder the clients' log says held the lock then. Nothing connects to a master to replay.
func TestARecordedIncidentReplaysWhoHeldTheLock(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	file := filepath.Join(t.TempDir(), "incident.rec")
	watcher := startRun(t, bin, t.TempDir(), "-m", strings.Join(redlocktest.Addrs(masters), ","), "--headless",
		"--poll", "100ms", "--record", file)
	eventually(t, "the recording to begin", func() (bool, string) {
		info, err := os.Stat(file)
		return err == nil && info.Size() > 0, "no file yet"
	})
	time.Sleep(500 * time.Millisecond) // the first polls: the keyspace is swept before the contention

	locker, err := redlock.New(redlocktest.Clients(t, masters), redlock.WithNodeTimeout(500*time.Millisecond),
		redlock.WithRetries(1000), redlock.WithRetryDelay(10*time.Millisecond, 30*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	var mu sync.Mutex
	var holds []hold
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2 {
				l, err := locker.Acquire(context.Background(), "o1:hot", 5*time.Second)
				if err != nil {
					t.Error(err)
					return
				}
				h := hold{token: l.Token(), acquired: time.Now()}
				time.Sleep(400 * time.Millisecond)
				h.released = time.Now()
				_ = l.Release(context.Background())
				mu.Lock()
				holds = append(holds, h)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// The fault: a holder's keys deleted on two of three masters while it holds.
	l, err := locker.Acquire(context.Background(), "billing:nightly", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	for _, c := range clients[:2] {
		if err := c.Del(context.Background(), "billing:nightly").Err(); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(600 * time.Millisecond)
	_ = l.Release(context.Background())
	time.Sleep(300 * time.Millisecond)
	if err := watcher.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := watcher.wait(30 * time.Second); code != 0 {
		t.Fatalf("the headless recorder exited %d; stderr:\n%s", code, watcher.stderr.String())
	}

	code, out, stderr := runBinary(t, bin, nil, "replay", file)
	if code != 0 || !strings.Contains(out, "Moments") || !strings.Contains(out, "billing:nightly") {
		t.Fatalf("replay FILE: exit %d, stdout:\n%s\nstderr:\n%s\nwant the moments, the fault on billing:nightly among them",
			code, out, stderr)
	}
	rec, err := record.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, h := range holds {
		at, ok := pollInside(rec, h) // a poll that read every master after the acquisition, before the release
		if !ok {
			continue
		}
		code, out, stderr := runBinary(t, bin, nil, "replay", file, "--at", at.Format(time.RFC3339Nano), "--json")
		if code != 0 {
			t.Fatalf("replay --at %s --json: exit %d: %s", at.Format(time.RFC3339Nano), code, stderr)
		}
		var doc struct {
			Locks []struct {
				Resource string `json:"resource"`
				State    string `json:"state"`
				Holder   string `json:"holder"`
			} `json:"locks"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("replay --json is not JSON: %v\n%s", err, out)
		}
		found := false
		for _, lk := range doc.Locks {
			if lk.Resource == "o1:hot" {
				found = true
				if lk.Holder != h.token || lk.State != "held" {
					t.Errorf("at %s the replay shows o1:hot %s by %q; the clients' log says %q held it from %s to %s",
						at.Format("15:04:05.000"), lk.State, lk.Holder, h.token, h.acquired.Format("15:04:05.000"),
						h.released.Format("15:04:05.000"))
				}
			}
		}
		if !found {
			t.Errorf("at %s the replay does not list o1:hot, which %q held", at.Format("15:04:05.000"), h.token)
		}
		checked++
	}
	if checked < 2 {
		t.Fatalf("only %d of %d holds had a poll inside them to check", checked, len(holds))
	}

	// The replay dashboard, as a person uses it: paused at the start, read-only; } jumps to the next error,
	// the lost quorum on billing:nightly; , and . step back and forth through the table as recorded.
	tm := startTmux(t)
	tm.typeText(bin + " replay " + file)
	tm.keys("Enter")
	tm.waitFor("the replay, paused at its first poll", func(screen string) bool {
		return strings.Contains(screen, "REPLAY") && strings.Contains(screen, "poll 1/") && strings.Contains(screen, "PAUSED")
	})
	// On a starved machine the recorder may also have recorded masters answering late: } jumps over those
	// errors too, until the lost quorum.
	var lost string
	for jumps, from := 1, 1; ; jumps++ {
		tm.keys("}")
		tm.waitFor("a jump to the next error", func(screen string) bool { return pollNumber(t, screen) > from })
		lost = steadyScreen(tm)
		if strings.Contains(lost, "billing:nightly") && strings.Contains(lost, "quorum") {
			break
		}
		if jumps == 5 {
			t.Fatalf("%d jumps to the next error did not reach the lost quorum of billing:nightly; the screen is:\n%s",
				jumps, lost)
		}
		from = pollNumber(t, lost)
	}
	// Stepping back from the lost quorum to the holder's last whole poll, and on again: at each poll the
	// row of billing:nightly counts the masters holding its token as the recording's snapshot does.
	player := record.NewPlayer(rec, nil)
	rowAsRecorded := func(screen string, poll int) bool {
		s := player.Snapshot(poll - 1)
		lv := s.Lock("billing:nightly")
		if lv == nil {
			return !strings.Contains(screen, "billing:nightly")
		}
		q := fmt.Sprintf("%d<%d", lv.Count, s.Quorum)
		if lv.Count >= s.Quorum {
			q = fmt.Sprintf("%d≥%d", lv.Count, s.Quorum)
		}
		return strings.Contains(lockRow(screen, "billing:nightly"), " "+q+" ")
	}
	at := pollNumber(t, lost)
	if !rowAsRecorded(lost, at) {
		t.Errorf("at poll %d the row of billing:nightly is not as recorded:\n%s", at, lost)
	}
	held := at
	for held > 1 {
		s := player.Snapshot(held - 1)
		if lv := s.Lock("billing:nightly"); lv != nil && lv.State == monitor.StateHeld && lv.Holder == l.Token() {
			break
		}
		tm.keys(",")
		held--
		tm.waitFor(fmt.Sprintf("poll %d, as recorded", held), func(screen string) bool {
			return pollNumber(t, screen) == held && rowAsRecorded(screen, held)
		})
	}
	screen := steadyScreen(tm)
	if row := lockRow(screen, "billing:nightly"); !strings.Contains(row, "held") || !strings.Contains(row, l.Token()[:8]) {
		t.Errorf("at poll %d, before the fault, the replay does not show billing:nightly held by %s:\n%s", held,
			l.Token(), screen)
	}
	for held < at {
		tm.keys(".")
		held++
		tm.waitFor(fmt.Sprintf("poll %d on again, as recorded", held), func(screen string) bool {
			return pollNumber(t, screen) == held && rowAsRecorded(screen, held)
		})
	}
	tm.keys("q")
	tm.waitFor("the replay to quit", func(screen string) bool {
		return strings.Contains(screen, prompt) && !strings.Contains(screen, "REPLAY")
	})
}

// lockRow is the line of the locks table that lists resource, "" when none does.
func lockRow(screen, resource string) string {
	for _, line := range strings.Split(screen, "\n") {
		if strings.Contains(line, " "+resource+" ") && strings.ContainsAny(line, "≥<") {
			return line
		}
	}
	return ""
}

// pollNumber reads the poll under the replay's time cursor from the header ("poll 12/43"), 0 when absent.
func pollNumber(t *testing.T, screen string) int {
	t.Helper()
	i := strings.Index(screen, "poll ")
	if i < 0 {
		return 0
	}
	var n, of int
	if _, err := fmt.Sscanf(screen[i:], "poll %d/%d", &n, &of); err != nil {
		return 0
	}
	return n
}

// pollInside finds a poll whose every reading was sent after h's acquisition and that ended before its release.
func pollInside(rec *record.Recording, h hold) (time.Time, bool) {
	for _, p := range rec.Polls() {
		inside := p.Time.Before(h.released)
		for _, r := range p.Readings {
			inside = inside && r.Err == nil && r.Sent.After(h.acquired)
		}
		if inside {
			return p.Time, true
		}
	}
	return time.Time{}, false
}

// TestAKilledRecordersRecordingReplays: a recorder killed outright (SIGKILL, no chance to close its file)
// leaves a recording that replays up to its last poll, and says it was not closed.
func TestAKilledRecordersRecordingReplays(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 1)
	client := redlocktest.Clients(t, masters)[0]
	file := filepath.Join(t.TempDir(), "killed.rec")
	recorder := startRun(t, bin, t.TempDir(), "-m", redlocktest.Addrs(masters)[0], "--headless", "--poll", "100ms",
		"--record", file)
	if err := client.Set(context.Background(), "orders:killed", "tok-before-the-kill", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a poll that read orders:killed in the recording", func() (bool, string) {
		rec, err := record.Open(file)
		if err != nil {
			return false, err.Error()
		}
		for _, p := range rec.Polls() {
			for _, r := range p.Readings {
				for _, k := range r.Keys {
					if k.Key == "orders:killed" {
						return true, ""
					}
				}
			}
		}
		return false, fmt.Sprintf("%d polls, none read the key", rec.Len())
	})
	if err := recorder.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	recorder.wait(10 * time.Second)

	code, out, stderr := runBinary(t, bin, nil, "replay", file)
	if code != 0 || !strings.Contains(out, "not closed") && !strings.Contains(out, "cut short") {
		t.Fatalf("replay of a killed recorder's file: exit %d, stdout:\n%s\nstderr:\n%s\nwant it read, and said unfinished",
			code, out, stderr)
	}
	code, out, stderr = runBinary(t, bin, nil, "replay", file, "--at", "end", "--json")
	if code != 0 || !strings.Contains(out, `"tok-before-the-kill"`) {
		t.Fatalf("replay --at end --json of a killed recorder's file: exit %d, stdout:\n%s\nstderr:\n%s\nwant the lock held",
			code, out, stderr)
	}
}

// TestAPresenterReplaysARecordedDemoStory is issue 36's presenter: the demo dashboard with --record runs
// crash-restart, a story that ends in a violation, and quits; with the demo's masters gone, `replay FILE`
// lists the violation among its moments, and the replay dashboard at the poll after it shows it in the event
// log and its lock in the table.
func TestAPresenterReplaysARecordedDemoStory(t *testing.T) {
	t.Parallel()
	s := startTmux(t)
	s.tmux("resize-window", "-t", pane, "-x", "200", "-y", "50")
	bin := buildBinary(t)
	dir := t.TempDir()
	file, stream := filepath.Join(dir, "demo.rec"), filepath.Join(dir, "events.jsonl")
	s.typeText(fmt.Sprintf("%s --demo --record %s --events %s; echo \"exit=$?\"", bin, file, stream))
	s.keys("Enter")
	s.waitFor("the five demo masters up", func(screen string) bool { return strings.Contains(screen, "5/5 up") })
	s.keys("w") // the workload pauses: the story is the recording's
	s.waitFor("the workload paused", func(screen string) bool { return strings.Contains(screen, "PAUSED") })
	runScenarioFromMenu(s, 2)
	eventually(t, "crash-restart's last step in the event file", func() (bool, string) {
		return over(readEvents(t, stream), "crash-restart"), "crash-restart not over"
	})
	var violation eventLine
	for _, e := range readEvents(t, stream) {
		if e.Source == "demo" && e.Kind == "violation" {
			violation = e
			break
		}
	}
	if violation.Time.IsZero() {
		t.Fatal("crash-restart logged no violation")
	}
	time.Sleep(time.Second) // a poll or two after the story
	s.keys("q")
	if _, status := waitForExit(s); status != "0" {
		t.Fatalf("the demo exited %s", status)
	}

	// No demo master runs now: the replay reads the file alone.
	code, out, stderr := runBinary(t, bin, nil, "replay", file)
	if code != 0 || !strings.Contains(out, violation.Time.Format("15:04:05.000")+"  error") ||
		!strings.Contains(out, "(demo)") {
		t.Fatalf("replay FILE: exit %d, stdout:\n%s\nstderr:\n%s\nwant the violation of %s among the moments",
			code, out, stderr, violation.Time.Format("15:04:05.000"))
	}
	rec, err := record.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	var after time.Time
	for _, p := range rec.Polls() {
		if !p.Time.Before(violation.Time) {
			after = p.Time
			break
		}
	}
	if after.IsZero() {
		t.Fatalf("the recording has no poll after the violation at %s", violation.Time.Format("15:04:05.000"))
	}
	s.keys("clear", "Enter")
	s.typeText(fmt.Sprintf("%s replay %s --at %s", bin, file, after.Format(time.RFC3339Nano)))
	s.keys("Enter")
	s.waitFor("the replay at the poll after the violation, its lock in the table", func(screen string) bool {
		return strings.Contains(screen, "REPLAY") && strings.Contains(screen, after.Format("2006-01-02 15:04:05.000")) &&
			strings.Contains(screen, violation.Resource)
	})
	s.keys("E") // the event log enlarged: the violation among the events up to that poll
	s.waitFor("the violation in the replay's event log", func(screen string) bool {
		return strings.Contains(screen, "VIOLATION") && strings.Contains(screen, violation.Resource)
	})
	s.keys("q", "q")
}
