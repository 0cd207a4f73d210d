package replayview

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/record"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// replaySpeeds are the speeds a replay plays at, as many times the recorded pace.
var replaySpeeds = []int{1, 2, 5, 10, 30, 60}

// Replayer is the time cursor of a replay: the dashboard shows the snapshot of the poll under it, rebuilt from
// the recording off the event loop.
type Replayer struct {
	kit.KeyTable
	p       *record.Player
	cursor  int       // the poll shown, once it arrives
	want    int       // the poll last asked for: a snapshot of another is stale and dropped
	Clock   time.Time // the moment shown: the cursor's poll, moved on between polls while playing
	Playing bool
	speed   int // index into replaySpeeds
}

// ReplayMsg is the snapshot of poll i, rebuilt; jump says the cursor did not move one poll forward, so that the
// event log is rebuilt rather than added to.
type ReplayMsg struct {
	i    int
	S    monitor.Snapshot
	Jump bool
}

// NewReplayer starts a replay of p, paused at its first poll, or at the last poll at or before at when at is
// not zero.
func NewReplayer(sh *kit.Shared, p *record.Player, at time.Time) *Replayer {
	r := &Replayer{p: p}
	if !at.IsZero() {
		r.want = max(p.IndexAt(at), 0)
	}
	r.Clock = p.Time(r.want)
	k := &sh.Keys.Replay
	step := func(d int) func(tea.KeyMsg) tea.Cmd {
		return func(tea.KeyMsg) tea.Cmd { return r.show(r.want+d, d != 1 || r.want != r.cursor) } // on from the poll last asked for
	}
	r.KeyTable = kit.KeyTable{Shared: sh, Actions: []kit.Action{
		{Binding: &k.StepBack, Do: step(-1)},
		{Binding: &k.StepForward, Do: step(1)},
		{Binding: &k.PrevEvent, Do: func(tea.KeyMsg) tea.Cmd { return r.seekEvent(-1, false) }},
		{Binding: &k.NextEvent, Do: func(tea.KeyMsg) tea.Cmd { return r.seekEvent(1, false) }},
		{Binding: &k.PrevAlarm, Do: func(tea.KeyMsg) tea.Cmd { return r.seekEvent(-1, true) }},
		{Binding: &k.NextAlarm, Do: func(tea.KeyMsg) tea.Cmd { return r.seekEvent(1, true) }},
		{Binding: &k.Start, Do: func(tea.KeyMsg) tea.Cmd { return r.show(0, true) }},
		{Binding: &k.End, Do: func(tea.KeyMsg) tea.Cmd { return r.show(r.p.Len()-1, true) }},
		{Binding: &k.Seek, Do: func(tea.KeyMsg) tea.Cmd {
			r.Playing = false
			sh.Tell(kit.OpenModalMsg{M: newSeekForm(sh, p)})
			return nil
		}},
	}}
	return r
}

// replaySeekMsg moves the replay's cursor to poll i: the seek form's answer.
type replaySeekMsg struct{ i int }

// Init rebuilds the first poll shown.
func (r *Replayer) Init() tea.Cmd { return r.show(r.want, true) }

// Update plays on at each tick while playing.
func (r *Replayer) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return r, r.Run(msg)
	case replaySeekMsg:
		return r, r.show(msg.i, true)
	case kit.TickMsg:
		if !r.Playing || r.want != r.cursor {
			return r, nil
		}
		r.Clock = r.Clock.Add(kit.TickEvery * time.Duration(replaySpeeds[r.speed]))
		if i := r.p.IndexAt(r.Clock); i > r.cursor {
			return r, r.show(i, i > r.cursor+1)
		}
		if r.cursor == r.p.Len()-1 {
			r.Playing, r.Clock = false, r.p.Time(r.cursor)
			r.Shared.TellStatus(monitor.SeverityInfo, "end of the recording")
		}
	}
	return r, nil
}

// show asks for the snapshot of poll i (clamped to the recording), rebuilt off the event loop.
func (r *Replayer) show(i int, jump bool) tea.Cmd {
	i = min(max(i, 0), r.p.Len()-1)
	r.want = i
	p := r.p
	return func() tea.Msg { return ReplayMsg{i: i, S: p.Snapshot(i), Jump: jump} }
}

// Arrived takes the snapshot of a poll the cursor asked for, and reports whether it is still wanted.
func (r *Replayer) Arrived(msg ReplayMsg) bool {
	if msg.i != r.want {
		return false
	}
	r.cursor = msg.i
	if t := r.p.Time(msg.i); !r.Playing || r.Clock.Before(t) {
		r.Clock = t
	}
	return true
}

// seekEvent moves the cursor to the poll of the next (dir > 0) or previous event the monitor told after or
// before the poll shown, or of the nearest error or warning when alarms (the demo's violations and the
// dashboard's errors among them); it says so when there is none. An event between two polls is shown with
// the poll after it, whose event log holds it.
func (r *Replayer) seekEvent(dir int, alarms bool) tea.Cmd {
	what := "event"
	if alarms {
		what = "error or warning"
	}
	moments := r.moments(alarms)
	for n := range moments {
		m := moments[n]
		if dir < 0 {
			m = moments[len(moments)-1-n]
		}
		if i := r.pollAt(m.Time); dir > 0 && i > r.want || dir < 0 && i < r.want {
			r.Playing, r.Clock = false, r.p.Time(i) // the status is stamped with the moment it tells of
			r.Shared.TellStatus(monitor.SeverityInfo, fmt.Sprintf("%s at %s: %s", what, m.Time.Format("15:04:05.000"), kit.Sanitize(m.Text, kit.TextCap)))
			return r.show(i, true)
		}
	}
	r.Shared.TellStatus(monitor.SeverityInfo, fmt.Sprintf("no %s %s this moment", what, map[bool]string{true: "after", false: "before"}[dir > 0]))
	return nil
}

// pollAt is the poll that shows what happened at t: the first taken at or after t, or the last poll when
// none was.
func (r *Replayer) pollAt(t time.Time) int {
	i := r.p.IndexAt(t)
	if i < 0 || r.p.Time(i).Before(t) && i+1 < r.p.Len() {
		return i + 1
	}
	return i
}

// moments are the events the monitor told, oldest first, as a recording's moments (record.Alarm); with
// alarms, every error and warning a surface showed (record.Player.Alarms: the monitor's events and the
// banner's warnings that no event told, the demo's violations, the dashboard's errors).
func (r *Replayer) moments(alarms bool) []record.Alarm {
	if alarms {
		return r.p.Alarms()
	}
	var out []record.Alarm
	for _, e := range r.p.MonitorEvents() {
		out = append(out, record.Alarm{Time: e.Time, Severity: e.Kind.Severity(), Text: e.Text, Source: events.SourceMonitor})
	}
	return out
}

// TogglePlay plays or pauses the replay; at the end it plays again from the start.
func (r *Replayer) TogglePlay() tea.Cmd {
	r.Playing = !r.Playing
	if r.Playing && r.cursor == r.p.Len()-1 {
		r.Clock = r.p.Time(0)
		return r.show(0, true)
	}
	return nil
}

// ChangeSpeed steps the speed up (dir < 0, as Faster polls faster) or down.
func (r *Replayer) ChangeSpeed(dir int) {
	r.speed = min(max(r.speed-dir, 0), len(replaySpeeds)-1)
	r.Shared.TellStatus(monitor.SeverityInfo, fmt.Sprintf("replaying at %dx", replaySpeeds[r.speed]))
}

// HeaderPart is the header's time cursor: the moment shown, the poll, play or pause and the speed.
func (r *Replayer) HeaderPart(st *kit.Styles) string {
	state := st.Header.Paused.Render("PAUSED")
	if r.Playing {
		state = st.Header.Live.Render(fmt.Sprintf("▶ %dx", replaySpeeds[r.speed]))
	}
	return st.Header.ReadOnly.Render(" REPLAY ") + " " + st.Header.Value.Render(r.Clock.Format("2006-01-02 15:04:05.000")) +
		st.Header.Label.Render(fmt.Sprintf(" poll %d/%d ", r.cursor+1, r.p.Len())) + state
}

// LogUntil is the event log as it stood at the snapshot s of the recording: the monitor's events and the
// recorded ones (the dashboard's, the demo's) up to its time, oldest first.
func (r *Replayer) LogUntil(s monitor.Snapshot) []kit.LogEntry {
	var out []kit.LogEntry
	for _, rec := range events.FromMonitor(r.eventsUntil(s.Time)) {
		out = append(out, kit.EntryOf(rec))
	}
	for _, rec := range r.p.Events(s.Time) {
		out = append(out, kit.EntryOf(rec))
	}
	kit.SortEntries(out)
	return out
}

// eventsUntil are the monitor's events told at or before t.
func (r *Replayer) eventsUntil(t time.Time) []monitor.Event {
	evs := r.p.MonitorEvents()
	n := 0
	for n < len(evs) && !evs[n].Time.After(t) {
		n++
	}
	return evs[:n]
}

// View is empty: the replay shows in the header (headerPart).
func (r *Replayer) View() string { return "" }

// SetSize does nothing: the replay has no area of its own.
func (r *Replayer) SetSize(int, int) {}

// seekForm asks for the moment to move a replay's time cursor to, as replay --at takes it: 03:12:07,
// 2026-11-27T03:12:07Z, +5m or end. A modal dialog.
type seekForm struct {
	kit.ModalBase
	p     *record.Player
	field kit.Field
	err   string
}

// newSeekForm returns an empty seek form over p.
func newSeekForm(sh *kit.Shared, p *record.Player) *seekForm {
	return &seekForm{ModalBase: kit.ModalBase{Shared: sh, Where: kit.LayerDialog, Text: true,
		Keys: []key.Binding{sh.Keys.Confirm, sh.Keys.Cancel}}, p: p, field: kit.NewField("", 64)}
}

// Update edits the moment; Confirm moves the cursor there (replaySeekMsg) and closes, Cancel closes.
func (f *seekForm) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return f, nil
	}
	k := f.Shared.Keys
	switch {
	case key.Matches(km, k.Cancel):
		return nil, nil
	case key.Matches(km, k.Confirm):
		at, err := f.p.Moment(f.field.String()) // inside the recording, or an error naming its span
		if err != nil {
			f.err = err.Error()
			break
		}
		f.Shared.Tell(replaySeekMsg{i: f.p.IndexAt(at)})
		return nil, nil
	case f.field.Update(km):
		f.err = ""
	}
	return f, nil
}

// View draws the form as a dialog.
func (f *seekForm) View() string {
	st := f.Shared.St
	w := min(f.W-4, 64)
	body := []string{
		st.Form.Label.Render(kit.Fit("moment", 10)) + f.field.View(w-12, true, st.Form.Input, st.Cursor),
		"",
		st.Form.Hint.Render(fmt.Sprintf("from %s to %s", f.p.Time(0).Format("2006-01-02 15:04:05"),
			f.p.Time(f.p.Len()-1).Format("15:04:05"))),
		st.Form.Hint.Render("03:12:07 · 2026-11-27T03:12:07Z · +5m from the start · end"),
	}
	if f.err != "" { // whole, on as many lines as it takes: it names the span the moment must fall in
		for _, line := range kit.Wrap(kit.Sanitize(f.err, kit.TextCap), w-2) {
			body = append(body, st.Form.Err.Render(line))
		}
	}
	return st.Box("Go to a moment", body, w, len(body)+2, true)
}
