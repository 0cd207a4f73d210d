package cli

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// Flags about other clients' locks: the key convention our locks are taken in (run and the dashboard's
// acquire form), so that an operator can hold off a peer's jobs, and the limits of semaphores, which
// redis-semaphore does not store.
var (
	keyFormatFlags = flagGroup{"Key conventions", addKeyFormatFlags, checkKeyFormatFlags}
	permitsFlags   = flagGroup{"Semaphores", addPermitsFlags, checkPermitsFlags}
)

// addKeyFormatFlags declares --key-format.
func addKeyFormatFlags(fs *pflag.FlagSet, v *flagValues) {
	fs.StringVar(&v.cfg.KeyFormat, "key-format", "plain", "take our locks in a peer's key convention, to exclude its jobs: "+
		strings.Join(monitor.KeyFormatNames(), ", ")+", laravel:APP (an app's), or a template with {} for the resource (app:{}:lock)")
}

// checkKeyFormatFlags refuses a key format that is neither a known convention nor a template.
func checkKeyFormatFlags(c *Config, _ *flagValues) error {
	if _, err := monitor.KeyFormat(c.KeyFormat); err != nil {
		return usagef("--key-format: %v", err)
	}
	return nil
}

// addPermitsFlags declares --permits.
func addPermitsFlags(fs *pflag.FlagSet, v *flagValues) {
	fs.StringToIntVar(&v.cfg.Permits, "permits", nil, "semaphores' limits, NAME=N (comma list or repeated; the name "+
		"as the application gives it, or its key): \"2 of 3 permits\" instead of \"2 holders\"")
}

// checkPermitsFlags refuses a limit below one.
func checkPermitsFlags(c *Config, _ *flagValues) error {
	for name, n := range c.Permits {
		if n < 1 || name == "" {
			return usagef("--permits %s=%d: give each semaphore's name and a limit of 1 or more", name, n)
		}
	}
	return nil
}

// keyOf is the key our lock on resource takes in c's key convention.
func keyOf(c Config, resource string) string {
	format, err := monitor.KeyFormat(c.KeyFormat)
	if err != nil { // checked with the flags
		return resource
	}
	return format(resource)
}

// keyFormatter is the acquire form's key naming for c's --key-format; nil for plain keys.
func keyFormatter(c Config) func(string) string {
	if c.KeyFormat == "" || c.KeyFormat == "plain" {
		return nil
	}
	return func(resource string) string { return keyOf(c, resource) }
}
