package ui

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Backgrounds are the choices of --background: the palette for a light or a dark terminal, or auto (ask the
// terminal).
var Backgrounds = []string{"auto", "light", "dark"}

// CheckBackground refuses a choice that is not one of Backgrounds.
func CheckBackground(choice string) error {
	for _, b := range Backgrounds {
		if choice == b {
			return nil
		}
	}
	return fmt.Errorf("the background is one of %s, got %q", strings.Join(Backgrounds, ", "), choice)
}

// SetBackground chooses the palette: light or dark as choice says, or, for auto, as the terminal on out
// answers the background colour query (xterm's OSC 11), falling back to COLORFGBG and then to dark. Under tmux
// (TERM tmux-* or screen-* with $TMUX set), whose panes termenv does not ask because a session may be shown
// on several terminals, tmux itself is asked: from 3.3 it answers with the pane's background. Call it before
// the program reads the terminal, and before New: the styles are made for the palette.
func SetBackground(choice string, out io.Writer, getenv func(string) string) {
	switch choice {
	case "light":
		lipgloss.SetHasDarkBackground(false)
	case "dark":
		lipgloss.SetHasDarkBackground(true)
	default:
		lipgloss.SetHasDarkBackground(termenv.NewOutput(out, termenv.WithEnvironment(askable{getenv})).HasDarkBackground())
	}
}

// askable is the environment termenv reads, with a tmux pane's TERM named as the xterm it emulates, so that
// termenv asks tmux the background colour instead of giving up.
type askable struct{ getenv func(string) string }

// Getenv is the variable, TERM as askable says.
func (e askable) Getenv(name string) string {
	v := e.getenv(name)
	if name == "TERM" && e.getenv("TMUX") != "" && (strings.HasPrefix(v, "tmux") || strings.HasPrefix(v, "screen")) {
		return "xterm-256color"
	}
	return v
}

// Environ is the process's environment (termenv asks it only for colour support).
func (e askable) Environ() []string { return os.Environ() }
