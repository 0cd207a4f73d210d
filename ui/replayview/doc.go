// Package replayview is the replay's room of the dashboard: the replayer, which moves a recording's time
// cursor (step, play, seek to an event or an alarm) and hands the root the snapshot and the event log as they
// stood then, and the seek form.
package replayview
