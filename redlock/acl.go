package redlock

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// A master's ACL that refuses a command inside one of the client's scripts says only where: "ERR The user
// executing the script can't run this command or subcommand script: <sha>, on @user_script:2.". A user who
// reads that cannot tell that the release needs DEL. The client knows its scripts' source, so it names the
// command on that line.

// scriptNames name the client's scripts in errors.
var scriptNames = map[*redis.Script]string{
	releaseScript:         "release",
	extendScript:          "extend",
	redissonReleaseScript: "Redisson release",
	setReleaseScript:      "sorted-set release",
	fencedAcquireScript:   "fenced acquire",
	raiseScript:           "fence raise",
}

var (
	// userScriptLine finds the line of the script in the error (Redis 7: "on @user_script:2."; Redis 6:
	// "@user_script:2: @user_script: 2: The user executing the script can't run this command").
	userScriptLine = regexp.MustCompile(`@user_script:\s*(\d+)`)
	// scriptCall finds the commands a line of a script runs.
	scriptCall = regexp.MustCompile(`redis\.p?call\("([A-Za-z]+)"`)
)

// scriptRefusalError is an ACL refusal of a command inside one of the client's scripts, with the command named.
type scriptRefusalError struct {
	script   string   // which of the client's scripts
	commands []string // the commands on the refused line, upper case
	err      error    // the master's reply
}

// Error names the command first: "DEL denied by the master's ACL (in the release script): ERR The user ...".
func (e *scriptRefusalError) Error() string {
	return fmt.Sprintf("%s denied by the master's ACL (in the %s script): %v", strings.Join(e.commands, " or "), e.script, e.err)
}

// Unwrap returns the master's reply, so that it is still matched as one (redis.Error, its prefix).
func (e *scriptRefusalError) Unwrap() error { return e.err }

// nameScriptRefusal returns err with the refused command named when err is the master's ACL refusing a
// command inside script; otherwise err itself.
func nameScriptRefusal(script *redis.Script, err error) error {
	if script == nil || err == nil || !strings.Contains(err.Error(), "user executing the script") {
		return err
	}
	m := userScriptLine.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	line, _ := strconv.Atoi(m[1])
	lines := strings.Split(scriptSource[script], "\n")
	if line < 1 || line > len(lines) {
		return err
	}
	var commands []string
	for _, c := range scriptCall.FindAllStringSubmatch(lines[line-1], -1) {
		if name := strings.ToUpper(c[1]); !contains(commands, name) {
			commands = append(commands, name)
		}
	}
	if len(commands) == 0 {
		return err
	}
	return &scriptRefusalError{script: scriptNames[script], commands: commands, err: err}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
