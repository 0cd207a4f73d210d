package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"
)

// setOnAll sets key to value with a one-minute TTL on every master, as another Redlock client would hold it.
func setOnAll(t *testing.T, clients []*redis.Client, key, value string) {
	t.Helper()
	for _, c := range clients {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := c.Set(ctx, key, value, time.Minute).Err()
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// rowOf returns the locks table's row of resource (a line with its name and a quorum count) and its index,
// or -1 and "".
func rowOf(screen, resource string) (int, string) {
	for i, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, resource) && strings.Contains(l, "≥") {
			return i, l
		}
	}
	return -1, ""
}

// At 80x24 a lock's 40-character token does not fit in the table; Enter on the lock shows it in full, and esc
// returns to the panels.
func TestEnterOnALockShowsItsFullTokenAt80x24(t *testing.T) {
	t.Parallel()
	s, clients, _ := startDashboard(t, "--read-only")
	const resource, token = "e2e:drill", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"
	setOnAll(t, clients, resource, token)
	s.tmux("resize-window", "-t", pane, "-x", "80", "-y", "24")
	screen := s.waitFor("the lock listed at 80x24", func(screen string) bool {
		_, l := rowOf(screen, resource)
		return l != "" && strings.Contains(l, "held") && !strings.Contains(screen, "Enlarge")
	})
	if strings.Contains(screen, token) {
		t.Fatalf("the full token is already on the 80x24 table; the test proves nothing:\n%s", screen)
	}
	s.keys("Enter")
	screen = s.waitFor("the lock's full view with its token", func(screen string) bool {
		return strings.Contains(screen, "Lock "+resource) && strings.Contains(screen, token)
	})
	if !fitsWidth(screen, 80) {
		t.Errorf("a line of the lock's view is wider than 80 cells:\n%s", screen)
	}
	s.keys("Escape")
	s.waitFor("the panels again after esc", func(screen string) bool {
		return strings.Contains(screen, "Masters") && !strings.Contains(screen, "Lock "+resource)
	})
	s.keys("q")
	if _, status := waitForExit(s); status != "0" {
		t.Errorf("exit status %s, want 0", status)
	}
}

// A left click on a lock row selects it (the cursor moves there), and a second click opens it.
func TestMouseClickSelectsARow(t *testing.T) {
	t.Parallel()
	s, clients, _ := startDashboard(t, "--read-only")
	for _, r := range []string{"e2e:click-a", "e2e:click-b", "e2e:click-c"} {
		setOnAll(t, clients, r, "tok-"+r)
	}
	screen := s.waitFor("three locks listed", func(screen string) bool {
		_, l := rowOf(screen, "e2e:click-c")
		return l != "" && strings.Contains(l, "held")
	})
	if _, l := rowOf(screen, "e2e:click-a"); !strings.Contains(l, "▸") {
		t.Fatalf("the first lock is not selected at the start:\n%s", screen)
	}
	y, l := rowOf(screen, "e2e:click-c")
	x := utf8.RuneCountInString(l[:strings.Index(l, "e2e:click-c")]) // cells: one per rune on this screen
	click := func() {                                                // an SGR mouse press and release of the left button, 1-based column and row
		seq := fmt.Sprintf("\x1b[<0;%d;%dM\x1b[<0;%d;%dm", x+1, y+1, x+1, y+1)
		s.tmux("send-keys", "-t", pane, "-l", seq)
	}
	click()
	s.waitFor("the clicked lock selected", func(screen string) bool {
		_, c := rowOf(screen, "e2e:click-c")
		_, a := rowOf(screen, "e2e:click-a")
		return strings.Contains(c, "▸") && !strings.Contains(a, "▸")
	})
	click()
	s.waitFor("the clicked lock opened by a second click", func(screen string) bool {
		return strings.Contains(screen, "Lock e2e:click-c") && strings.Contains(screen, "tok-e2e:click-c")
	})
	s.keys("q", "q") // the first closes the lock's view, as q closes every view; the second quits
	waitForExit(s)
}
