// Package dialogs holds the dashboard's own dialogs, which belong to no panel: the full help, whose columns the
// root composes, and the confirmation asked before quitting releases the locks we hold.
package dialogs
