package ui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui"
)

// rowOrder returns the names in the order the locks table lists them, failing when one is not in it. The
// table is the focused panel, the one drawn with heavy lines (┃); the detail beside it names the selected lock.
func rowOrder(t *testing.T, view string, names []string) []string {
	t.Helper()
	var table strings.Builder
	for _, line := range strings.Split(view, "\n") {
		if parts := strings.Split(line, "┃"); len(parts) >= 3 {
			table.WriteString(parts[1] + "\n")
		}
	}
	at := map[string]int{}
	for _, n := range names {
		i := strings.Index(table.String(), " "+n+" ")
		if i < 0 {
			t.Fatalf("%s is not in the locks table:\n%s", n, view)
		}
		at[n] = i
	}
	out := append([]string(nil), names...)
	for i := range out { // a few names: insertion sort by position on screen
		for j := i; j > 0 && at[out[j]] < at[out[j-1]]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestLocksSortedByResourceReadNumbersByValue(t *testing.T) {
	// As the monitor hands them over: in byte order, where orders:lock:4902 comes before orders:lock:492.
	raw := []string{"orders:lock:10", "orders:lock:4902", "orders:lock:492", "orders:lock:5", "orders:lock:9"}
	natural := []string{"orders:lock:5", "orders:lock:9", "orders:lock:10", "orders:lock:492", "orders:lock:4902"}
	var locks []monitor.LockView
	for _, r := range raw {
		locks = append(locks, lockOf(r, 2, 5*time.Second, on(tokA, 6*time.Second), on(tokA, 6*time.Second), none))
	}
	m := newDashboard(ui.Options{}, 120, 36)
	m.Update(ui.SnapshotMsg{Snapshot: snapshotOf(mastersUp(3), nil, locks...)})
	reversed := make([]string, len(natural))
	for i, n := range natural {
		reversed[len(natural)-1-i] = n
	}
	steps := []struct {
		keys  []string
		title string // the sort the title names
		want  []string
	}{
		{nil, "sort resource", natural},
		{[]string{"S"}, "sort resource, reversed", reversed},
		// Every lock held with the same validity: the state and the validity tie, and ties keep resource order.
		{[]string{"S", "s"}, "sort validity", natural},
		{[]string{"s"}, "sort state", natural},
	}
	for _, s := range steps {
		for _, k := range s.keys {
			m.Update(keyMsg(k))
		}
		v := m.View()
		if !strings.Contains(v, s.title+" ") {
			t.Fatalf("after %v the title does not say %q:\n%s", s.keys, s.title, v)
		}
		if got := rowOrder(t, v, natural); fmt.Sprint(got) != fmt.Sprint(s.want) {
			t.Errorf("%s: the rows are %v, want %v", s.title, got, s.want)
		}
	}
}

func TestLocksColumnsHoldWhilePaging(t *testing.T) {
	// Short names first, one long name on the last page, and holders longer than their column: the room the
	// short names leave would go to the holders on the first page only, moving every column right of RESOURCE
	// when paging to the last.
	token := "worker-7f3a9c41-2b6e-4d8a-9f10-6c5e3b2a1d0e"
	var locks []monitor.LockView
	for i := range 60 {
		locks = append(locks, lockOf(fmt.Sprintf("job:%d", i), 2, 5*time.Second, on(token, 6*time.Second),
			on(token, 6*time.Second), on(token, 6*time.Second)))
	}
	long := "job:zz-a-resource-name-long-enough-to-need-most-of-the-row"
	locks = append(locks, lockOf(long, 2, 5*time.Second, on(token, 6*time.Second), on(token, 6*time.Second), none))
	m := newDashboard(ui.Options{}, 120, 36)
	m.Update(ui.SnapshotMsg{Snapshot: snapshotOf(mastersUp(3), nil, locks...)})
	columns := func(key string) (holder, state int) {
		v := m.View()
		for _, line := range strings.Split(v, "\n") {
			if strings.Contains(line, "RESOURCE") {
				return strings.Index(line, "HOLDER"), strings.Index(line, "STATE")
			}
		}
		t.Fatalf("after %s no column header on screen:\n%s", key, v)
		return 0, 0
	}
	holder, state := columns("the first snapshot")
	if holder < 0 || strings.Contains(m.View(), long) {
		t.Fatalf("the first page should show HOLDER and not the last lock:\n%s", m.View())
	}
	for _, k := range []string{"pgdown", "pgdown", "G", "pgup", "g"} {
		m.Update(keyMsg(k))
		if h, s := columns(k); h != holder || s != state {
			t.Fatalf("after %s HOLDER is at %d and STATE at %d, were at %d and %d: the columns moved while paging:\n%s",
				k, h, s, holder, state, m.View())
		}
		if k == "G" && !strings.Contains(m.View(), "job:zz-a-resource-name") {
			t.Fatalf("G does not show the last lock:\n%s", m.View())
		}
	}
}
