package cli

import (
	"errors"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/pflag"
)

// A mistyped name gets the names it is close to: a subcommand typed as the dashboard's argument ("rn"), and an
// unknown flag ("--mastrs"), so that the message says what was meant instead of only what is wrong.

// closeNames returns the names of names that typed is close to, in their order: a letter wrong, missing or
// extra in a name of two or three letters, two (or two swapped) from four letters on, one in three beyond
// (Levenshtein distance, case ignored); or typed begins a longer name (at least three letters of it).
func closeNames(typed string, names []string) []string {
	typed = strings.ToLower(typed)
	var out []string
	for _, n := range names {
		far := levenshtein.ComputeDistance(typed, n)
		if far <= max(len(typed)/3, min(2, len(typed)/2)) || len(typed) >= 3 && strings.HasPrefix(n, typed) {
			out = append(out, n)
		}
	}
	return out
}

// commandNames are the subcommands' names, as --help lists them.
func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

// flagParseError is the usage error of fs.Parse's err: an unknown long flag is told with the flags of fs it is
// close to.
func flagParseError(err error, fs *pflag.FlagSet) *UsageError {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) || ne.GetSpecifiedShortnames() != "" {
		return &UsageError{Msg: err.Error()}
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	close := closeNames(ne.GetSpecifiedName(), names)
	if len(close) == 0 {
		return &UsageError{Msg: err.Error()}
	}
	return &UsageError{Msg: err.Error() + " (did you mean --" + strings.Join(close, " or --") + "?)"}
}
