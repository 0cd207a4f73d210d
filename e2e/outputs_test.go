package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/internal/cli"
	"github.com/redlock-tui/redlock-tui/record"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// The tests in this file are about the files the binary writes: a full disk under --record, and SIGHUP after
// a rename (logrotate).

// programEvent is an event line of source program, as the tests check it.
type programEvent struct {
	Source, Kind, Severity, Text string
}

// programEvents reads the lines of source program written to path so far.
func programEvents(t *testing.T, path string) []programEvent {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []programEvent
	for line := range strings.SplitSeq(string(data), "\n") {
		var e programEvent
		if json.Unmarshal([]byte(line), &e) == nil && e.Source == "program" {
			out = append(out, e)
		}
	}
	return out
}

// findEvent returns the first of evs of kind, or nil.
func findEvent(evs []programEvent, kind string) *programEvent {
	for i := range evs {
		if evs[i].Kind == kind {
			return &evs[i]
		}
	}
	return nil
}

// smallFilesystem mounts a tmpfs of 256 KiB on a new directory for the test (the tests run as root where
// they can), unmounted at its end; "" when it cannot be mounted.
func smallFilesystem(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Logf("no tmpfs (%v: %s): a file-size limit stands for the full disk", err, out)
		return ""
	}
	t.Cleanup(func() {
		// Lazily: a binary a failed test left running may still hold a file there until it exits.
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file in dir until the filesystem is full, and returns its path.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling %s: %v, want ENOSPC", dir, err)
			}
			return path
		}
	}
}

// TestHeadlessRecordOnAFullDiskIsAnEventNotAnExit: when the disk under --record fills, headless goes on polling
// and serving its metrics, and says the recording stopped, naming --record: on stderr, as an output-failed event
// of severity error in the event stream, and in redlock_output_up; at the end it exits 4. On a tmpfs, freeing
// room and sending SIGHUP resumes the recording in a new file. Where no tmpfs can be mounted, a file-size limit
// (SIGXFSZ ignored, so that a write fails with EFBIG) stands for the full disk.
func TestHeadlessRecordOnAFullDiskIsAnEventNotAnExit(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	eventsFile := filepath.Join(t.TempDir(), "events.jsonl")
	small := smallFilesystem(t)
	cmd := []string{bin}
	recDir := small
	if small == "" {
		recDir = t.TempDir()
		// 64 blocks of 512 bytes: the header and a few polls, then EFBIG; the events of idle masters fit.
		cmd = []string{"/bin/sh", "-c", `ulimit -f 64 && trap '' XFSZ && exec "$0" "$@"`, bin}
	}
	rec := filepath.Join(recDir, "incident.rec")
	h := startHeadlessVia(t, cmd, "--masters", strings.Join(redlocktest.Addrs(masters), ","), "--poll", "100ms",
		"--record", rec, "--events", eventsFile)
	scrapeHas := func(what string, ok func(s sample) bool) {
		t.Helper()
		eventually(t, what, func() (bool, string) {
			s, err := h.scrape()
			if err != nil {
				return false, err.Error()
			}
			return ok(s), fmt.Sprintf("%v polls, output up %v, failures %v", s["redlock_polls_total"],
				s[`redlock_output_up{output="--record"}`], s[`redlock_output_failures_total{output="--record"}`])
		})
	}
	scrapeHas("two polls recorded", func(s sample) bool {
		return s["redlock_polls_total"] >= 2 && s[`redlock_output_up{output="--record"}`] == 1
	})
	filler := ""
	if small != "" {
		filler = fill(t, small)
	}
	var failed *programEvent
	eventually(t, "an output-failed event", func() (bool, string) {
		failed = findEvent(programEvents(t, eventsFile), "output-failed")
		return failed != nil, h.proc.stderr.String()
	})
	if failed.Severity != "error" || !strings.HasPrefix(failed.Text, "--record stopped: ") ||
		!strings.Contains(failed.Text, rec) {
		t.Errorf("the event of the full disk: %+v; want severity error and a text naming --record and %s", failed, rec)
	}
	// The event and the stderr line are written one after the other, in no set order: wait for the line.
	eventually(t, "a line naming --record on stderr", func() (bool, string) {
		stderr := h.proc.stderr.String()
		return strings.Contains(stderr, "redlock-tui: --record stopped: "), stderr
	})
	if stderr := h.proc.stderr.String(); strings.Contains(stderr, "--events") {
		t.Errorf("stderr when the recording stopped:\n%s\nwant nothing about --events", stderr)
	}
	var at float64
	scrapeHas("redlock_output_up 0 and one failure", func(s sample) bool {
		at = s["redlock_polls_total"]
		return s[`redlock_output_up{output="--record"}`] == 0 && s[`redlock_output_failures_total{output="--record"}`] == 1
	})
	scrapeHas("polls going on after the failure", func(s sample) bool { return s["redlock_polls_total"] >= at+3 })
	if h.proc.exited() {
		t.Fatalf("headless exited on the full disk; stderr:\n%s", h.proc.stderr.String())
	}

	if small != "" { // room again: SIGHUP resumes the recording in a new file, the stopped one set aside
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
		if err := h.proc.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		scrapeHas("the recording resumed", func(s sample) bool { return s[`redlock_output_up{output="--record"}`] == 1 })
		if _, err := os.Stat(rec + ".1"); err != nil {
			t.Errorf("the stopped recording, set aside: %v", err)
		}
		eventually(t, "polls in the resumed recording", func() (bool, string) {
			r, err := record.Open(rec)
			if err != nil {
				return false, err.Error()
			}
			return r.Len() >= 2 && r.Header.Part == 2, fmt.Sprintf("%d polls, part %d", r.Len(), r.Header.Part)
		})
	}

	if err := h.proc.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := h.proc.wait(30 * time.Second); code != cli.ExitOutputFailed {
		t.Errorf("headless after a failed recording: exit %d, want %d; stderr:\n%s", code, cli.ExitOutputFailed,
			h.proc.stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(h.proc.stderr.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "redlock-tui: --record: ") || !strings.Contains(last, "incomplete") {
		t.Errorf("the last line on stderr: %q; want one naming --record and saying the file is incomplete", last)
	}
}

// TestHeadlessSIGHUPReopensItsFiles: after a logrotate-style rename of --events, --debug and --record, SIGHUP
// makes headless write new files at the paths (private, 0600), the renamed recording ended cleanly and the new
// one replaying on its own; SIGHUP does not end the program, which exits 0 at SIGINT.
func TestHeadlessSIGHUPReopensItsFiles(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	dir := t.TempDir()
	eventsFile, debugFile, rec := filepath.Join(dir, "events.jsonl"), filepath.Join(dir, "debug.log"), filepath.Join(dir, "r.rec")
	h := startHeadless(t, bin, "--masters", strings.Join(redlocktest.Addrs(masters), ","), "--poll", "100ms",
		"--events", eventsFile, "--debug", debugFile, "--record", rec)
	eventually(t, "two polls", func() (bool, string) {
		s, err := h.scrape()
		if err != nil {
			return false, err.Error()
		}
		return s["redlock_polls_total"] >= 2, fmt.Sprintf("%v polls", s["redlock_polls_total"])
	})
	for _, f := range []string{eventsFile, debugFile, rec} {
		if err := os.Rename(f, f+".old"); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.proc.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	var reopened *programEvent
	eventually(t, "an output-reopened event in a new event file", func() (bool, string) {
		reopened = findEvent(programEvents(t, eventsFile), "output-reopened")
		return reopened != nil, h.proc.stderr.String()
	})
	for _, want := range []string{"--events " + eventsFile, "--debug " + debugFile, "--record " + rec} {
		if !strings.Contains(reopened.Text, want) {
			t.Errorf("the reopening's event %q does not name %q", reopened.Text, want)
		}
	}
	const resource = "rotated:job"
	for _, c := range clients {
		if err := c.Set(context.Background(), resource, "token-after-rotation", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	appeared := func(path string) bool {
		for _, e := range readEvents(t, path) {
			if e.Kind == "lock-appeared" && e.Resource == resource {
				return true
			}
		}
		return false
	}
	eventually(t, "the lock's event in the new event file", func() (bool, string) {
		return appeared(eventsFile), fmt.Sprintf("%+v", readEvents(t, eventsFile))
	})
	if appeared(eventsFile + ".old") {
		t.Errorf("the renamed event file was written after SIGHUP")
	}
	eventually(t, "new lines in the new debug log", func() (bool, string) {
		data, err := os.ReadFile(debugFile)
		return err == nil && strings.Contains(string(data), "msg=poll"), fmt.Sprint(err)
	})
	if err := h.proc.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := h.proc.wait(30 * time.Second); code != cli.ExitOK {
		t.Fatalf("headless after SIGHUP then SIGINT: exit %d, want 0; stderr:\n%s", code, h.proc.stderr.String())
	}
	for _, f := range []string{eventsFile, debugFile, rec} {
		if info, err := os.Stat(f); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s after SIGHUP: %v (%v); want a new file of mode 0600", f, info, err)
		}
	}
	old, err := record.Open(rec + ".old")
	if err != nil || old.Unclosed || old.Torn || old.Header.Part != 1 || old.Len() < 2 {
		t.Errorf("the renamed recording: %v, %+v; want its polls, ended cleanly, part 1", err, old)
	}
	cur, err := record.Open(rec)
	if err != nil || cur.Unclosed || cur.Header.Part != 2 || cur.Len() == 0 {
		t.Fatalf("the new recording: %v, %+v; want polls, ended cleanly, part 2", err, cur)
	}
	player := record.NewPlayer(cur, nil)
	if last := player.Snapshot(player.Len() - 1); last.Lock(resource) == nil {
		t.Errorf("the new recording replays without %s", resource)
	}
}

// TestDashboardRecordOnAFullDiskSaysSoAndSIGHUPResumes: the dashboard whose --record fills its disk goes on,
// shows the recording stopped in its banner, and after room is made, SIGHUP (its terminal being there) resumes
// the recording instead of quitting; at quit it says the recording failed and exits 4.
func TestDashboardRecordOnAFullDiskSaysSoAndSIGHUPResumes(t *testing.T) {
	t.Parallel()
	small := smallFilesystem(t)
	if small == "" {
		t.Skip("no tmpfs to fill (TestHeadlessRecordOnAFullDiskIsAnEventNotAnExit covers a file-size limit)")
	}
	rec := filepath.Join(small, "dash.rec")
	s, _, _ := startDashboard(t, "--poll 100ms --record "+rec)
	shell := strings.TrimSpace(s.tmux("display-message", "-p", "-t", pane, "#{pane_pid}"))
	children, err := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
	if err != nil {
		t.Skipf("cannot find the dashboard's process: %v", err)
	}
	pids := strings.Fields(string(children))
	if len(pids) != 1 {
		t.Fatalf("the shell has children %q, want only the dashboard", pids)
	}
	var pid int
	if _, err := fmt.Sscan(pids[0], &pid); err != nil {
		t.Fatal(err)
	}
	filler := fill(t, small)
	banner := func(screen string) string { // the lines above the masters' panel
		head, _, _ := strings.Cut(screen, "Masters")
		return head
	}
	s.waitFor("the stopped recording in the banner", func(screen string) bool {
		return strings.Contains(banner(screen), "✖ --record stopped: recording "+rec)
	})
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitFor("the banner without the recording", func(screen string) bool {
		return !strings.Contains(banner(screen), "--record stopped")
	})
	if _, err := os.Stat(rec + ".1"); err != nil { // the event log may have scrolled past the reopening
		t.Errorf("the stopped recording, set aside by SIGHUP: %v", err)
	}
	eventually(t, "polls in the resumed recording", func() (bool, string) {
		r, err := record.Open(rec)
		if err != nil {
			return false, err.Error()
		}
		return r.Len() >= 1 && r.Header.Part == 2, fmt.Sprintf("%d polls, part %d", r.Len(), r.Header.Part)
	})
	s.keys("q")
	screen, status := waitForExit(s)
	if status != "4" || !strings.Contains(screen, "redlock-tui: --record: ") || strings.Contains(screen, "--events") {
		t.Errorf("after quitting: exit status %s; want 4 and a line naming --record (and not --events):\n%s", status, screen)
	}
}

// TestDashboardQuitsWhenItsTerminalHangsUp: SIGHUP reopens files only while the terminal is there; when the
// terminal hangs up (its window closed), the dashboard quits as on SIGTERM, releasing the lock it holds rather
// than leaving it to its TTL.
func TestDashboardQuitsWhenItsTerminalHangsUp(t *testing.T) {
	t.Parallel()
	s, clients, _ := startDashboard(t, "--ttl 60s")
	const resource = "e2e:hangup"
	acquireWithKeys(s, resource)
	eventually(t, resource+" held on every master", func() (bool, string) { return heldEverywhere(clients, resource) })
	s.tmux("kill-session", "-t", pane) // the terminal hangs up: SIGHUP, and the terminal gone
	eventually(t, resource+" released after the hangup", func() (bool, string) { return goneEverywhere(clients, resource) })
}
