package cli

import (
	"strings"

	"github.com/spf13/pflag"
)

// envPrefix begins the environment variable of every flag of every command that parses its own (the dashboard's,
// run's, replay's): REDLOCK_TUI_ and the flag's name in capitals, each "-" and "." an underscore
// (--metrics-locks is REDLOCK_TUI_METRICS_LOCKS, --web.config.file REDLOCK_TUI_WEB_CONFIG_FILE). A variable
// names a flag, not a command: REDLOCK_TUI_MASTERS sets the dashboard's --masters and run's alike, and a command
// without that flag does not read it.
const envPrefix = "REDLOCK_TUI_"

// EnvName is the environment variable that sets the flag named flag, of whichever command has it.
func EnvName(flag string) string {
	return envPrefix + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(flag))
}

// envHelp says in --help and the man pages how flags are read from the environment.
const envHelp = "REDLOCK_TUI_ and a flag's name in capitals, each - or . an underscore (REDLOCK_TUI_MASTERS, " +
	"REDLOCK_TUI_METRICS_LOCKS), sets that flag where the command line does not; an empty one is unset"

// applyEnv sets each flag of fs that the command line did not set from its environment variable, when that is
// set and not empty: the command line wins over the environment, which wins over a --profile (applyProfile
// takes a flag set either way as given). --help and --version are not read from it. A value the flag refuses is
// a usage error naming the variable.
func applyEnv(fs *pflag.FlagSet, env Environment) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if err != nil || fs.Changed(f.Name) || !fromEnv(f.Name) {
			return
		}
		value := env.Getenv(EnvName(f.Name))
		if value == "" {
			return
		}
		if setErr := fs.Set(f.Name, value); setErr != nil {
			err = usagef("%s=%q: %v", EnvName(f.Name), value, setErr)
		}
	})
	return err
}

// fromEnv reports whether the flag named flag is read from the environment: every flag but --help and --version.
func fromEnv(flag string) bool {
	return flag != "help" && flag != "version"
}

// envVars are the variables of fs's flags that applyEnv reads, by flag name.
func envVars(fs *pflag.FlagSet) map[string]string {
	out := map[string]string{}
	fs.VisitAll(func(f *pflag.Flag) {
		if fromEnv(f.Name) {
			out[f.Name] = EnvName(f.Name)
		}
	})
	return out
}
