package cli

import (
	"strings"

	"github.com/spf13/pflag"
)

// envPrefix begins the environment variable of every flag: REDLOCK_TUI_ and the flag's name in capitals, each
// "-" and "." an underscore (--metrics-locks is REDLOCK_TUI_METRICS_LOCKS, --web.config.file
// REDLOCK_TUI_WEB_CONFIG_FILE).
const envPrefix = "REDLOCK_TUI_"

// EnvName is the environment variable that sets the dashboard command's flag named flag.
func EnvName(flag string) string {
	return envPrefix + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(flag))
}

// applyEnv sets each flag of fs that the command line did not set from its environment variable, when that is
// set and not empty: the command line wins over the environment, which wins over a --profile (applyProfile
// takes a flag set either way as given). --help and --version are not read from it. A value the flag refuses is
// a usage error naming the variable.
func applyEnv(fs *pflag.FlagSet, env Environment) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if err != nil || fs.Changed(f.Name) || f.Name == "help" || f.Name == "version" {
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
