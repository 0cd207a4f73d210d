package whoholds

import (
	"encoding/json"
	"errors"
	"io"
)

// JSONReport is the JSON form of a request to name a lock's holder, as `--once --who RESOURCE --json` prints
// it: the hints read without sampling, then the sample, or why there is none. Every string is safe for a
// terminal (escaped where it came from the master).
type JSONReport struct {
	Resource string   `json:"resource"`
	Hints    []string `json:"hints"`            // what the lock's values say of their holder (Hints)
	Master   string   `json:"master,omitempty"` // the master sampled
	Sampled  bool     `json:"sampled"`          // false: no sample ran, Error says why
	Error    string   `json:"error,omitempty"`
	// Denied is the command the master's ACL refused ("MONITOR", "CLIENT LIST"), "" none.
	Denied      string     `json:"denied,omitempty"`
	SampledMS   int64      `json:"sampled_ms"`
	AskedMS     int64      `json:"asked_ms"`
	Lines       int        `json:"lines"`     // MONITOR lines read, on every key
	MaxLines    int        `json:"max_lines"` // the line budget
	Stopped     Stop       `json:"stopped,omitempty"`
	Holders     []JSONConn `json:"holders"`     // the connections that sent the holder's token
	Connections []JSONConn `json:"connections"` // every connection seen touching the key, holders first
	Summary     []string   `json:"summary"`     // the same lines as the text output
}

// JSONConn is one connection of a JSONReport.
type JSONConn struct {
	Addr     string         `json:"addr"`
	ID       int64          `json:"id,omitempty"`
	Name     string         `json:"name"`
	LibName  string         `json:"lib_name,omitempty"` // Redis 7.2 and later
	LibVer   string         `json:"lib_ver,omitempty"`
	AgeS     int64          `json:"age_s"`
	IdleS    int64          `json:"idle_s"`
	Listed   bool           `json:"listed"` // false: closed before the sample ended; only addr is known
	Role     Role           `json:"role"`   // holder, extends, contender, writer, script, reader
	Commands map[string]int `json:"commands"`
}

// NewJSONReport is the JSON form of r (nil: no sample ran, err says why) with the hints; longer is the
// summary's advice on sampling longer.
func NewJSONReport(resource string, hints []string, r *Report, err error, longer string) JSONReport {
	out := JSONReport{Resource: resource, Hints: hints, Holders: []JSONConn{}, Connections: []JSONConn{},
		Summary: []string{}}
	if out.Hints == nil {
		out.Hints = []string{}
	}
	if err != nil {
		out.Error = err.Error()
		var d *DeniedError
		if errors.As(err, &d) {
			out.Denied = d.Command
		}
	}
	if r == nil {
		return out
	}
	out.Master, out.Sampled, out.Stopped = r.Master, true, r.Stopped
	out.SampledMS, out.AskedMS, out.Lines, out.MaxLines = r.Took.Milliseconds(), r.Asked.Milliseconds(), r.Lines, r.MaxLines
	out.Summary = r.Summary(longer)
	for _, c := range r.Conns {
		jc := JSONConn{Addr: c.Addr, ID: c.ID, Name: c.Name, LibName: c.LibName, LibVer: c.LibVer,
			AgeS: int64(c.Age.Seconds()), IdleS: int64(c.Idle.Seconds()), Listed: c.Listed, Role: c.Role,
			Commands: map[string]int{}}
		for _, cc := range c.Commands {
			jc.Commands[cc.Name] = cc.N
		}
		if c.Role == RoleHolder {
			out.Holders = append(out.Holders, jc)
		}
		out.Connections = append(out.Connections, jc)
	}
	return out
}

// WriteJSON writes the report as indented JSON.
func (j JSONReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}
