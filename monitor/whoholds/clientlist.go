package whoholds

import (
	"strconv"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab/untrusted"
)

// Client is a connection as the master's CLIENT LIST describes it. Its text fields are made safe for a
// terminal (untrusted.Escape) as they are read, since other clients choose their names.
type Client struct {
	ID   int64
	Addr string // the peer's address as the master sees it: a proxy's or a NAT's, not the process's, behind one
	Name string // CLIENT SETNAME's name (a client library's Name option); "" none
	// LibName and LibVer are what the client library said of itself (CLIENT SETINFO, Redis 7.2 and later);
	// "" where the master does not keep them, or the library did not say.
	LibName, LibVer string
	Age             time.Duration // how long the connection has been open
	Idle            time.Duration // since its last command
	User            string        // the ACL user it authenticated as
}

// parseClientList reads CLIENT LIST's reply: a line per connection of space-separated field=value pairs
// (a name holds no space: CLIENT SETNAME refuses one). Lines that name no address are skipped.
func parseClientList(text string) []Client {
	var out []Client
	for _, line := range strings.Split(text, "\n") {
		c, ok := parseClient(strings.TrimRight(line, "\r"))
		if ok {
			out = append(out, c)
		}
	}
	return out
}

// parseClient reads one line of CLIENT LIST.
func parseClient(line string) (Client, bool) {
	var c Client
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		switch k {
		case "id":
			c.ID, _ = strconv.ParseInt(v, 10, 64)
		case "addr":
			c.Addr = untrusted.Escape(v)
		case "name":
			c.Name = untrusted.Escape(v)
		case "lib-name":
			c.LibName = untrusted.Escape(v)
		case "lib-ver":
			c.LibVer = untrusted.Escape(v)
		case "age":
			c.Age = seconds(v)
		case "idle":
			c.Idle = seconds(v)
		case "user":
			c.User = untrusted.Escape(v)
		}
	}
	return c, c.Addr != ""
}

// seconds reads a count of seconds; 0 for anything else.
func seconds(v string) time.Duration {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}
