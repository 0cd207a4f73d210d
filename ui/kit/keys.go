package kit

import "github.com/charmbracelet/bubbles/key"

// KeyMap holds every key binding of the dashboard. Its values are built in one place, the command's keymap.go;
// the dashboard only reads them. Which of them act at the moment is each component's to say (its key table's
// guards): the help shows copies of the bindings, those that do nothing at the moment disabled, so that they
// vanish from it.
type KeyMap struct {
	// Navigation: rows within the focused panel, and focus between panels.
	Up, Down, PageUp, PageDown, Top, Bottom, NextPanel, PrevPanel key.Binding
	// Lock actions: acquire a lock, extend, release or toggle auto-extension of one of ours, and force-delete a
	// lock that is not ours.
	Acquire, Extend, Release, AutoExtend, Delete key.Binding
	// View and app: filter the locks (or search the event log when it has the focus), sort the locks, pause
	// polling, poll faster or slower, full help, quit. Quit acts on the main screen, and asks first while the
	// dashboard holds locks it acquired (quitting releases them); in the help, a view or a menu the same key
	// closes it instead (Close), and in a form it is a letter. Interrupt quits from anywhere, a form too,
	// asking the same.
	Filter, Sort, Pause, Faster, Slower, Help, Quit, Interrupt key.Binding
	// Reverse reverses the locks' sort order. Copy puts the selected lock's name on the clipboard, CopyToken
	// its holder's token (OSC 52: the terminal, or tmux with set-clipboard on, must allow it).
	Reverse, Copy, CopyToken key.Binding
	// Heat sorts the locks by heat (handovers in the last minute), hottest first, or back by resource. Report
	// writes a Markdown incident report of the screen (the locks the filter shows) to the working directory.
	// Sparkline shows or hides the locks panel's column of handovers over the window, where it fits.
	// HideFree hides the free locks (no key on any master: listed while their holders are in the window), or
	// shows them again.
	Heat, Report, Sparkline, HideFree key.Binding
	// PrevHolder and NextHolder pick an older or newer holder on a lock's timeline (its view), whose token
	// CopyToken then copies.
	PrevHolder, NextHolder key.Binding
	// WhoHolds, in a lock's view, names the connection that holds the lock: it samples one master's commands
	// on the key for a few seconds (MONITOR), asking first on a read-only or production dashboard.
	WhoHolds key.Binding
	// LogLevel narrows the event log to warnings and errors, then errors only, then shows all again.
	// LogLock narrows it to the selected lock's entries, or shows every lock's again. LogFull lets the event
	// log fill the body at any size, or gives the body back to the panels.
	LogLevel, LogLock, LogFull key.Binding
	// Confirm submits a form or a confirmation, Cancel closes it (and a drill-down view). Close closes what
	// takes no typing: the full help, a drill-down view, a menu, the enlarged event log, the quit question;
	// it is Cancel's key and the key that quits from the main screen, as in less, man and htop.
	Confirm, Cancel, Close key.Binding
	// Open shows the lock or master under the cursor in full (a drill-down view).
	Open key.Binding
	// Demo holds the presenter's keys, enabled in demo mode only.
	Demo DemoKeyMap
	// Replay are the keys of a replay (Options.Replay): they move its time cursor.
	Replay ReplayKeyMap
}

// DemoKeyMap holds the presenter's bindings of demo mode (Options.Demo): faults injected into the selected
// master, a simulated client's GC pause, the workload's pace, the scenario menu and the violation banner.
// Outside demo mode no component takes them, so they do nothing and are not in the help.
type DemoKeyMap struct {
	// Pick selects a master by its number: its first key picks the first master, and so on. The masters
	// panel's cursor is the same selection.
	Pick key.Binding
	// Faults on the selected master: crash it or start it again, restart it at once (its data lost) or after
	// the longest TTL (the delayed-restart rule), freeze or thaw it, step its latency, partition or heal it,
	// jump its clock forward, make its clock run fast or at real speed.
	Crash, Restart, DelayedRestart, Freeze, Latency, Partition, ClockJump, ClockFast key.Binding
	// GCPause freezes a simulated client that holds a lock for longer than its TTL.
	GCPause key.Binding
	// Workload pauses or resumes the simulated clients; Faster and Slower change their pace.
	Workload, Faster, Slower key.Binding
	// Scenarios opens the menu of scripted scenarios. Story scrolls the event log to the story of the violation
	// in the banner; Dismiss hides the banner.
	Scenarios, Story, Dismiss key.Binding
	// Step performs the step a scenario run step by step announced; in the scenario menu it starts such a run.
	// Reset brings every master back to normal: up, thawed, reachable, no latency, its clock at real time.
	Step, Reset key.Binding
}

// ShortHelp is the one-line help: the key that opens the full help first, so that a narrow footer keeps it, then
// the actions, and quit.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.Open, k.Acquire, k.Extend, k.Release, k.AutoExtend, k.Delete, k.Filter, k.Sort,
		k.NextPanel, k.Demo.Scenarios, k.Quit}
}

// FullHelp is the full help, in columns: navigation, lock actions, view, event log and polling, app, and in demo
// mode the demo's.
func (k KeyMap) FullHelp() [][]key.Binding {
	return append(append(k.DashboardHelp(), k.Demo.FullHelp()...), k.Replay.FullHelp()...)
}

// DashboardHelp is the full help's columns of the dashboard's own keys.
func (k KeyMap) DashboardHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.NextPanel, k.PrevPanel, k.Open},
		{k.Acquire, k.Extend, k.Release, k.AutoExtend, k.Delete},
		{k.Filter, k.Sort, k.Heat, k.Sparkline, k.HideFree, k.Reverse, k.Report, k.PrevHolder, k.NextHolder, k.WhoHolds, k.Copy, k.CopyToken},
		{k.LogLevel, k.LogLock, k.LogFull, k.Pause, k.Faster, k.Slower},
		{k.Confirm, k.Cancel, k.Close, k.Help, k.Quit, k.Interrupt},
	}
}

// FullHelp is the demo's columns of the full help: the master faults, then the rest.
func (k DemoKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Pick, k.Crash, k.Restart, k.DelayedRestart, k.Freeze, k.Latency, k.Partition, k.ClockJump, k.ClockFast},
		{k.Reset, k.GCPause, k.Workload, k.Faster, k.Slower, k.Scenarios, k.Step, k.Story, k.Dismiss},
	}
}

// ReplayKeyMap are the keys of a replay (Options.Replay): the dashboard shows a recording, and these move its
// time cursor. Pause plays and pauses it, and Faster and Slower change its speed, as they pause and pace the
// polling live. Outside a replay no component takes them.
type ReplayKeyMap struct {
	// StepBack and StepForward move the cursor one poll.
	StepBack, StepForward key.Binding
	// PrevEvent and NextEvent move it to the poll of the previous or next event the monitor told; PrevAlarm and
	// NextAlarm to that of the previous or next error or warning (a violation in a demo's recording included).
	PrevEvent, NextEvent, PrevAlarm, NextAlarm key.Binding
	// Start and End move it to the first and the last poll; Seek asks for a moment to move it to.
	Start, End, Seek key.Binding
}

// FullHelp is the replay's column of the full help.
func (k ReplayKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.StepBack, k.StepForward, k.PrevEvent, k.NextEvent, k.PrevAlarm, k.NextAlarm, k.Start, k.End,
		k.Seek}}
}
