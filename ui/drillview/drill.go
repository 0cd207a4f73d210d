package drillview

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// DrillView is the full view of one lock or one master, a modal opened with Open (enter) on a row and closed
// with Cancel (esc). It takes the panels' place at any size down to the minimum, and shows everything in full,
// wrapped rather than cut: every master's token, the error texts. Its lines are rebuilt when a snapshot or a
// tick arrives, and scroll.
type DrillView struct {
	kit.ModalBase
	box      *kit.ScrollBox
	Resource string // raw resource of a lock's view
	addr     string // raw address of a master's view
	isLock   bool
	title    string
	picked   int // a holder picked on the lock's timeline: the picked-th newest interval; 0 none
	who      whoState
}

// NewLockDrill returns the view of the lock of row.
func NewLockDrill(sh *kit.Shared, row *kit.LockRow) *DrillView {
	return &DrillView{ModalBase: ScreenBase(sh, lockDrillKeys(sh)), box: kit.NewScrollBox(sh), Resource: row.Lv.Resource,
		isLock: true, title: "Lock " + row.Name}
}

// NewMasterDrill returns the view of master m.
func NewMasterDrill(sh *kit.Shared, m *kit.MasterRow) *DrillView {
	return &DrillView{ModalBase: ScreenBase(sh, drillKeys(sh.Keys)), box: kit.NewScrollBox(sh), addr: m.St.Addr,
		title: "Master " + m.Label + " " + m.Addr}
}

// ScreenBase is the modalBase of a view that takes the body: keys are keys there, not text.
func ScreenBase(sh *kit.Shared, keys []key.Binding) kit.ModalBase {
	return kit.ModalBase{Shared: sh, Where: kit.LayerScreen, Keys: keys}
}

// ViewQuitKey is Interrupt as a view's footer shows it: in a view, Quit's key closes the view, and Interrupt
// is the key that quits.
func ViewQuitKey(k *kit.KeyMap) key.Binding {
	quit := k.Interrupt
	quit.SetHelp(quit.Help().Key, "quit")
	return quit
}

// SetSize sets the view's outer size; the lines are wrapped again for a new width.
func (v *DrillView) SetSize(w, h int) {
	if w == v.box.W && h == v.box.H {
		return
	}
	v.box.SetSize(w, h)
	v.refresh()
}

// Update scrolls the view with the keys and the wheel, closes it (Cancel or Open), opens the full help in its
// place, copies the lock's name or token, and rebuilds the lines when a snapshot or a tick arrives.
func (v *DrillView) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	k := v.Shared.Keys
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, k.Close, k.Open):
			return nil, nil
		case key.Matches(msg, k.Help):
			v.Shared.Tell(kit.OpenHelpMsg{})
			return nil, nil
		case key.Matches(msg, k.PrevHolder, k.NextHolder) && v.isLock:
			v.pick(key.Matches(msg, k.PrevHolder))
		case key.Matches(msg, k.WhoHolds) && v.isLock:
			cmd := v.who.press(v.Shared, kit.FindRow(v.Shared.Data, v.Resource))
			v.refresh()
			return v, cmd
		case key.Matches(msg, k.CopyToken) && v.picked > 0:
			return v, v.copyPicked()
		case key.Matches(msg, k.Copy, k.CopyToken) && v.isLock:
			row, token := kit.FindRow(v.Shared.Data, v.Resource), key.Matches(msg, k.CopyToken)
			if why := Uncopyable(row, token); why != "" {
				v.Shared.TellStatus(monitor.SeverityWarning, why)
				break
			}
			return v, CopyRow(v.Shared, row, token)
		default:
			v.box.Update(msg)
		}
	case tea.MouseMsg:
		v.box.Update(msg)
	case kit.DataMsg, kit.TickMsg:
		v.refresh()
	case whoResultMsg:
		v.who.result(v.Shared, v.Resource, msg)
		v.refresh()
	}
	return v, nil
}

// View draws the view.
func (v *DrillView) View() string {
	return v.box.View(v.title + " · " + v.Shared.Keys.Close.Help().Key + " back")
}

// refresh rebuilds the lines from the current snapshot and the journal.
func (v *DrillView) refresh() {
	if v.isLock {
		row := kit.FindRow(v.Shared.Data, v.Resource)
		v.box.SetLines(withWho(lockLines(v.Shared, row, v.box.Width(), v.picked), v.who.sectionLines(v.Shared, row, v.box.Width())))
		return
	}
	var m *kit.MasterRow
	if d := v.Shared.Data; d != nil {
		for i := range d.Masters {
			if d.Masters[i].St.Addr == v.addr {
				m = &d.Masters[i]
			}
		}
	}
	v.box.SetLines(masterLines(v.Shared, m, v.box.Width()))
}

// lockLines is the content of a lock's view.
func lockLines(sh *kit.Shared, row *kit.LockRow, w, picked int) []string {
	st, d := sh.St, sh.Data
	if row == nil || d == nil {
		return []string{st.Text.Muted.Render("This lock is on no master any more (released or expired), and none of its holders is left in the window."),
			"", st.Table.Head.Render("Events")}
	}
	lv := row.Lv
	now := sh.Now()
	var out []string
	add := func(lines ...string) { out = append(out, lines...) }
	add(kit.Labelled(st, "resource", row.Label, w, st.Text.Normal)...)
	stateText, stateStyle := kit.StateLabel(st, lv, now)
	by := ""
	if lv.Mine && lv.State == monitor.StateHeld {
		by = " by you"
	}
	if lv.Foreign {
		by += " (another token is also present)"
	}
	add(kit.Labelled(st, "state", stateStyle.Render(stateText)+st.Text.Normal.Render(fmt.Sprintf("%s · on %d of %s, "+
		"quorum %d", by, lv.Count, kit.Plural(len(d.Masters), "master"), d.Snap.Quorum)), w, st.Text.Normal)...)
	if lv.State == monitor.StateHeld {
		v := kit.ValidityAt(lv, now)
		add(kit.Labelled(st, "validity", st.ValidityBar(v, row.Ref, 20, false)+" "+st.Text.Normal.Render(vocab.ShortDuration(v))+
			st.Text.Muted.Render(" · expiries spread over "+vocab.ShortDuration(lv.TTLSpread)), w, st.Text.Normal)...)
	}
	if row.Holders != nil {
		add(kit.Labelled(st, "holders", OrDash(row.Holder)+fmt.Sprintf(" · %s in the set", kit.Plural(len(row.Holders), "holder")),
			w, st.Text.Normal)...)
	} else {
		holderLabel := "holder"
		if lv.Holder == "" {
			holderLabel = "most seen"
		}
		holder := "-"
		if row.Primary != "" {
			holder = monitor.HolderKindText(lv.HolderKind, row.Tokens[kit.FirstWith(lv, row.Primary)])
		}
		if lv.Free() { // no key: nobody holds it; its holders are in its timeline below
			holderLabel, holder = "last held", kit.LastHolder(lv)
		}
		if !lv.ValueTime.IsZero() {
			holder = kit.ValueTimeHolder(lv, now)
		}
		add(kit.Labelled(st, holderLabel, holder, w, st.Text.Normal)...)
	}
	if c := lv.Masters[kit.FirstWith(lv, row.Primary)]; c.Hash() {
		held := fmt.Sprintf("held %d×", c.Reentrancy())
		if c.Mode() != "" {
			held += " · " + kit.Sanitize(c.Mode(), kit.NameCap) + " lock"
		}
		add(kit.Labelled(st, "hash lock", held, w, st.Text.Normal)...)
	}
	if len(lv.Keys) > 1 {
		add(kit.Labelled(st, "one lock", kit.Sanitize(strings.Join(lv.Keys, ", "), kit.TextCap), w, st.Text.Normal)...)
	}
	if lv.Fence > 0 {
		add(kit.Labelled(st, "fence", fmt.Sprintf("%d (the highest fencing token on the masters)", lv.Fence), w,
			st.Text.Normal)...)
	}
	if lv.Family != "" {
		add(kit.Labelled(st, "client", lv.Family+" (a guess from the key's and value's shapes)", w, st.Text.Normal)...)
	}
	switch {
	case !lv.AcquiredAt.IsZero():
		add(kit.Labelled(st, "acquired", vocab.ShortDuration(now.Sub(lv.AcquiredAt))+" ago, by us", w, st.Text.Normal)...)
	case !lv.FirstSeen.IsZero():
		add(kit.Labelled(st, "seen", "first "+vocab.ShortDuration(now.Sub(lv.FirstSeen))+" ago, by this dashboard (not when it was "+
			"acquired)", w, st.Text.Normal)...)
	}
	changes := kit.Plural(lv.Changes, "holder change")
	if !lv.LastChange.IsZero() {
		changes += ", the last at " + lv.LastChange.Format("15:04:05")
	}
	add(kit.Labelled(st, "history", changes, w, st.Text.Normal)...)

	add(holderLines(sh, row, w)...)
	add(lockMasterLines(sh, row, w)...)
	add(eventSection(st, "this lock's", sh.Log.EntriesFor(lv.Resource, kit.MaxLog), w)...)
	add(contentionLines(sh, row, w, picked)...)
	return out
}

// lockMasterLines is a lock's view's section of its key on each master: the token in full and its PTTL.
func lockMasterLines(sh *kit.Shared, row *kit.LockRow, w int) []string {
	st, d, lv, now := sh.St, sh.Data, row.Lv, sh.Now()
	out := []string{"", st.Table.Head.Render("Masters") + st.Text.Muted.Render("  ● holder  ○ another token  · no key  ? not read")}
	add := func(lines ...string) { out = append(out, lines...) }
	valueLabel := "    token"
	if !lv.ValueTime.IsZero() { // a time, not a token: what each master holds is named for what it is
		valueLabel = "    value"
	}
	for j, c := range lv.Masters[:min(len(lv.Masters), len(d.Masters))] {
		glyph, gs := kit.CellGlyph(st, c, row.PrimaryOn(j), lv.State)
		head := st.Text.Muted.Render(kit.Fit(d.Masters[j].Label, 4)) + gs.Render(glyph) + " " +
			st.Name(d.Masters[j].Addr, st.Text.Normal) + " "
		switch {
		case c.State == monitor.CellUnknown && c.Token != "":
			head += st.Cell.Unknown.Render("not read; last seen " + vocab.ShortDuration(now.Sub(c.ReadAt)) + " ago")
		case c.State == monitor.CellUnknown:
			head += st.Cell.Unknown.Render("not read")
		case c.State == monitor.CellAbsent:
			head += st.Text.Muted.Render("no key")
		case c.Set() != nil:
			head += SetCell(st, c, row.Ref, 10, now)
		case c.PTTL == monitor.NoTTL:
			head += st.Text.Bad.Render("no TTL: never expires")
		default: // counted from its read: a tracked master's key is not read again until it changes
			left := c.PTTLAt(now)
			head += st.ValidityBar(left, max(row.Ref, left), 10, false) + " " + st.Text.Normal.Render("PTTL "+vocab.ShortDuration(left))
		}
		add(kit.WrapLines(head, w)...)
		if row.Tokens[j] != "" && c.Set() == nil {
			add(kit.Labelled(st, valueLabel, row.Tokens[j], w, st.Text.Normal)...)
		}
		if c.Node() != "" { // a Redis Cluster's key: the primary that owns its slot
			add(kit.Labelled(st, "    owner", c.Node(), w, st.Text.Normal)...)
		}
	}
	return out
}

// eventSection is a drill-down's list of the events of whose (a lock's or a master's), under a heading.
func eventSection(st *kit.Styles, whose string, events []kit.LogEntry, w int) []string {
	out := []string{"", st.Table.Head.Render("Events") + st.Text.Muted.Render("  "+whose+", newest last")}
	if len(events) == 0 {
		out = append(out, st.Text.Muted.Render("none yet"))
	}
	for _, e := range events {
		out = append(out, kit.LogLines(st, e, w)...)
	}
	return out
}

// masterLines is the content of a master's view; m is nil when the master left the snapshot.
func masterLines(sh *kit.Shared, m *kit.MasterRow, w int) []string {
	st := sh.St
	if m == nil {
		return []string{st.Text.Muted.Render("This master is not in the snapshot.")}
	}
	s := m.St
	var out []string
	add := func(lines ...string) { out = append(out, lines...) }
	fact := func(label, text string) { add(kit.Labelled(st, label, text, w, st.Text.Normal)...) }
	fact("address", m.Addr)
	state := string(s.State()) + ", answered this poll"
	switch s.State() {
	case monitor.MasterDown:
		state = fmt.Sprintf("%s (missed %s)", s.State(), kit.Plural(s.Missed, "poll"))
	case monitor.MasterSilent:
		state = fmt.Sprintf("%s: missed %s, its last values kept", s.State(), kit.Plural(s.Missed, "poll"))
	case monitor.MasterDuplicate:
		state = string(s.State()) + ": " + monitor.SameServerText(kit.Sanitize(s.DuplicateOf, kit.NameCap)) + ", counted once"
	}
	fact("state", state)
	add(masterFacts(sh, m, w)...)
	add(clockLines(st, m)...)
	add(eventSection(st, "this master's", sh.Log.EntriesOfMaster(s.Addr, kit.MaxLog), w)...)
	return out
}

// masterFacts is a master's view's lines after its state: when it answered, its error, timing, clock and
// drift, uptime, role, keys, scan progress and warnings.
func masterFacts(sh *kit.Shared, m *kit.MasterRow, w int) []string {
	st, s, now := sh.St, m.St, sh.Now()
	var out []string
	add := func(lines ...string) { out = append(out, lines...) }
	fact := func(label, text string) { add(kit.Labelled(st, label, text, w, st.Text.Normal)...) }
	if !s.LastAnswer.IsZero() {
		fact("answered", vocab.ShortDuration(now.Sub(s.LastAnswer))+" ago")
	}
	if m.Err != "" {
		add(kit.Labelled(st, "error", m.Err, w, st.Text.Bad)...)
	}
	if s.RTT > 0 {
		fact("rtt", kit.Latency(s.RTT)+" last · "+kit.Latency(s.RTTSmoothed)+" smoothed")
	}
	if s.ClockKnown {
		fact("clock", vocab.Offset(s.ClockOffset, s.ClockUncertainty)+" from ours (offset: Redlock "+
			"does not need clocks to agree)")
	} else {
		fact("clock", "not measured yet")
	}
	if s.DriftKnown {
		fact("drift", vocab.DriftText(s.DriftPPM, s.DriftUncertPPM)+" against ours (rate: Redlock needs clocks to tick at the same rate)")
	} else {
		fact("drift", "not known yet: it takes several polls")
	}
	if s.Uptime >= 0 {
		up := vocab.ShortDuration(s.Uptime)
		if !s.LastRestart.IsZero() {
			up += ", started " + s.LastRestart.Format("2006-01-02 15:04:05")
		}
		fact("uptime", up)
	}
	role := m.Role
	if s.Version != "" {
		role += " · redis " + kit.Sanitize(s.Version, kit.NameCap)
	}
	if s.Replicas >= 0 {
		role += " · " + kit.Plural(s.Replicas, "replica")
	}
	fact("role", role)
	if s.RunID != "" {
		fact("run id", kit.Sanitize(s.RunID, kit.NameCap))
	}
	keys := kit.Thousands(s.Keys) + " lock keys seen this poll"
	fact("keys", keys)
	if refresh := kit.RefreshText(*s); refresh != "" {
		fact("refresh", refresh)
	}
	sw := s.Sweep
	scan := "not started"
	switch {
	case sw.Completed > 0:
		scan = fmt.Sprintf("%s finished, the last %s ago", kit.Plural(sw.Completed, "full scan"),
			vocab.ShortDuration(now.Sub(sw.LastCompleted)))
	case sw.Total > 0:
		scan = fmt.Sprintf("first scan %d%%: %s of %s keys", min(99, sw.Scanned*100/sw.Total),
			kit.Thousands(int(sw.Scanned)), kit.Thousands(int(sw.Total)))
	}
	fact("scan", scan)
	if newKeys := kit.NewKeysText(*s); newKeys != "" {
		fact("new keys", newKeys)
	}
	for _, wn := range kit.MasterWarnings(&sh.Data.Snap, s) {
		add(kit.Labelled(st, wn.Severity.String(), kit.Sanitize(wn.Text, kit.TextCap), w, st.Level[wn.Severity])...)
	}
	return out
}

// clockLines is a master's view's section of the clock offsets last measured.
func clockLines(st *kit.Styles, m *kit.MasterRow) []string {
	out := []string{"", st.Table.Head.Render("Clock samples") + st.Text.Muted.Render("  offset from our clock, newest last")}
	if len(m.Clock) == 0 {
		out = append(out, st.Text.Muted.Render("none yet"))
	}
	for _, c := range m.Clock {
		out = append(out, st.Text.Muted.Render(c.At.Format("15:04:05.000")+"  ")+st.Text.Normal.Render(vocab.Offset(c.Offset, c.Unc)))
	}
	return out
}

// Drilling is a panel whose selected row can be shown in full (Open, or a click on the row selected).
type Drilling interface {
	Drill() *DrillView // nil when nothing is selected
}

// Uncopyable says why the lock of row (nil: none selected) has nothing to copy, its name or with token its
// holder's token; "" when it has. It guards the copy keys of the locks panel and of a lock's view.
func Uncopyable(row *kit.LockRow, token bool) string {
	switch {
	case row == nil:
		return "copy: select a lock first"
	case token && row.Primary == "":
		return "copy: " + row.Name + " has no token"
	}
	return ""
}

// CopyRow copies the raw name of the lock of row or, with token, its holder's raw token (see uncopyable).
func CopyRow(sh *kit.Shared, row *kit.LockRow, token bool) tea.Cmd {
	if token {
		return sh.CopyCmd(row.Primary, "the token of "+row.Name)
	}
	return sh.CopyCmd(row.Lv.Resource, row.Name)
}

// pick moves the holder picked on the timeline to an older one (older) or a newer one; past the newest it
// picks none. The view scrolls to its end, where the timeline and the picked holder are.
func (v *DrillView) pick(older bool) {
	n := len(windowIntervals(v.Shared, kit.FindRow(v.Shared.Data, v.Resource)))
	if older {
		v.picked = min(v.picked+1, n)
	} else {
		v.picked = max(v.picked-1, 0)
	}
	v.refresh()
	v.box.Vp.GotoBottom()
}

// copyPicked copies the raw token of the holder picked on the timeline.
func (v *DrillView) copyPicked() tea.Cmd {
	ivs := windowIntervals(v.Shared, kit.FindRow(v.Shared.Data, v.Resource))
	if v.picked > len(ivs) {
		v.Shared.TellStatus(monitor.SeverityWarning, "copy: the holder picked has left the window")
		return nil
	}
	iv := ivs[len(ivs)-v.picked]
	return v.Shared.CopyCmd(iv.Token, "the token of holder "+kit.ShortTokenText(iv.Token))
}
