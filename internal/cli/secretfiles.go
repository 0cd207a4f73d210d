package cli

import (
	"fmt"
	"io/fs"
)

// Secret files: as ssh does with a private key, the program warns (it does not refuse) when a file that holds a
// secret may be read by others than its owner, or when the config file may be written by others (whoever can
// write it chooses the masters the password is sent to), naming the file and the fix.

// Permission bits of a file's group and others.
const (
	othersRead  fs.FileMode = 0o044
	othersWrite fs.FileMode = 0o022
)

// secretFileWarning is the warning for the file at path, which flag (a flag or a profile's key) names and which
// holds what ("the masters' password", ...; "" when it holds no secret), or "" when its mode is as it should
// be or it cannot be looked at (reading it reports that). A file holding a secret must be its owner's to read;
// the config file (config true) its owner's to write, whatever it holds.
func secretFileWarning(env Environment, flag, path, what string, config bool) string {
	if env.Stat == nil || path == "" {
		return ""
	}
	info, err := env.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return ""
	}
	perm := info.Mode().Perm()
	var why string
	switch {
	case what != "" && perm&othersRead != 0:
		why = fmt.Sprintf("others may read it (mode %04o), and it holds %s", perm, what)
	case (what != "" || config) && perm&othersWrite != 0:
		why = fmt.Sprintf("others may write it (mode %04o)", perm)
		if config {
			why += ", so they choose the masters your password is sent to"
		}
	default:
		return ""
	}
	return fmt.Sprintf("WARNING: %s %s: %s: chmod 600 %s", flag, path, why, path)
}

// warnSecretFiles adds to v's warnings those of the files the settings name: the password file, the TLS
// client key, and the config file of the profile used (which holds a secret when one of its masters' URLs
// holds a password).
func warnSecretFiles(v *flagValues, env Environment, urlPassword bool) {
	add := func(w string) {
		if w != "" {
			v.warnings = append(v.warnings, w)
		}
	}
	add(secretFileWarning(env, v.from.passwordFile, v.passwordFile, "the masters' password", false))
	add(secretFileWarning(env, v.from.tlsKey, v.tlsKey, "the TLS client certificate's private key", false))
	if v.configPath != "" {
		what := ""
		if urlPassword {
			what = "a password in a master's URL"
		}
		add(secretFileWarning(env, "--config", v.configPath, what, true))
	}
}
