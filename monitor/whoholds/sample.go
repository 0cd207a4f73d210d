package whoholds

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/vocab/untrusted"
)

// Sampling bounds. MONITOR makes the master copy every command it runs, on every key, to the sampling
// connection: the sample is bounded in time and in lines read, whichever comes first.
const (
	DefaultFor      = 3 * time.Second  // how long a sample runs unless asked otherwise
	MaxFor          = 10 * time.Second // the longest sample asked for
	DefaultMaxLines = 10_000           // the most MONITOR lines a sample reads unless asked otherwise
	MaxMaxLines     = 1_000_000        // the largest line budget asked for
)

// setupTimeout bounds each step around the sample: dialing and authenticating the MONITOR connection, and each
// CLIENT LIST.
const setupTimeout = 5 * time.Second

// maxLine is the longest MONITOR line kept; the rest of a longer one (a large value) is skipped.
const maxLine = 64 << 10

// ConnectionName is the client name of the sampling connection, so that an operator looking at CLIENT LIST
// on the master sees what it is.
const ConnectionName = "redlock-tui-who-holds"

// Request is one lock's key to sample on one master.
type Request struct {
	Key string // the lock's key, raw
	// Tokens are the holder's tokens on that master, raw as the monitor read them (a hash lock's holder
	// fields, a long token's cut form); none: the connections touching the key are listed, no holder named.
	Tokens   []string
	For      time.Duration // how long MONITOR runs; 0: DefaultFor
	MaxLines int           // the most lines read; 0: DefaultMaxLines
}

// withDefaults fills the request's zero bounds.
func (r Request) withDefaults() Request {
	if r.For == 0 {
		r.For = DefaultFor
	}
	if r.MaxLines == 0 {
		r.MaxLines = DefaultMaxLines
	}
	return r
}

// Check says what is wrong with the request's bounds; nil when they are within the limits.
func (r Request) Check() error {
	r = r.withDefaults()
	switch {
	case r.Key == "":
		return errors.New("no key to sample")
	case r.For < 0 || r.For > MaxFor:
		return fmt.Errorf("a sample runs from 1ms to %s, not %s", MaxFor, r.For)
	case r.MaxLines < 0 || r.MaxLines > MaxMaxLines:
		return fmt.Errorf("a sample reads from 1 to %d lines, not %d", MaxMaxLines, r.MaxLines)
	}
	return nil
}

// DeniedError is a master's ACL refusing a command the sample needs: MONITOR, or CLIENT LIST. Nothing was
// sampled.
type DeniedError struct {
	Command string // "MONITOR" or "CLIENT LIST"
	Reply   string // the master's error reply, safe for a terminal
}

// Error says what was refused and what grants it.
func (e *DeniedError) Error() string {
	return fmt.Sprintf("the master's ACL refuses %s to this user (%s): naming a lock's holder needs +monitor and "+
		"+client|list (ACL SETUSER <user> +monitor +client|list), or another user", e.Command, e.Reply)
}

// denied returns a DeniedError for a refusal of command, or err made safe for a terminal when it is not an ACL
// refusal.
func denied(command string, err error) error {
	if err != nil && strings.HasPrefix(err.Error(), "NOPERM") {
		return &DeniedError{Command: command, Reply: untrusted.Escape(err.Error())}
	}
	return safe(err)
}

// escapedError is an error whose text came from outside (a master's reply, a dial), made safe for a terminal;
// it unwraps to the error it escapes, so that errors.Is still finds a deadline.
type escapedError struct{ err error }

// Error is the error's text, escaped.
func (e escapedError) Error() string { return untrusted.Escape(e.err.Error()) }

// Unwrap is the error escaped.
func (e escapedError) Unwrap() error { return e.err }

// safe returns err with its text made safe for a terminal; nil for nil, a DeniedError as it is.
func safe(err error) error {
	var d *DeniedError
	if err == nil || errors.As(err, &d) {
		return err
	}
	return escapedError{err}
}

// Sample runs MONITOR for req.For (at most req.MaxLines lines) on the master client reaches, over a connection
// of its own that it closes, keeps the commands on req.Key, and reports which connections sent them, named from
// CLIENT LIST taken before and after. It blocks for the sample's length: call it off any user interface's
// event loop. master is the master's name for the report.
//
// It fails without sampling when the ACL refuses CLIENT LIST or MONITOR (a DeniedError), when the master
// cannot be reached, or when req is out of bounds; a connection that fails midway ends the sample, which
// reports what it read with Report.Err. An error's text is safe for a terminal.
func Sample(ctx context.Context, client *redis.Client, master string, req Request) (Report, error) {
	r, err := sample(ctx, client, master, req)
	return r, safe(err)
}

// sample is Sample, its errors as they come.
func sample(ctx context.Context, client *redis.Client, master string, req Request) (Report, error) {
	if err := req.Check(); err != nil {
		return Report{}, err
	}
	req = req.withDefaults()
	r := Report{Master: untrusted.Escape(master), Key: untrusted.Escape(req.Key), Asked: req.For,
		MaxLines: req.MaxLines}
	before, err := clientList(ctx, client)
	if err != nil {
		return Report{}, err
	}
	opts := client.Options()
	conn, rd, err := openMonitor(ctx, opts)
	if err != nil {
		return Report{}, err
	}
	r.Started = time.Now()
	cmds, lines, stop, readErr := readFeed(ctx, conn, rd, req, r.Started.Add(req.For))
	conn.Close()
	r.Took, r.Lines, r.Stopped = time.Since(r.Started), lines, stop
	if readErr != nil {
		r.Err = untrusted.Escape(readErr.Error())
	}
	after, err := clientList(ctx, client)
	if err != nil && ctx.Err() == nil {
		// The sample is read: report it with the connections CLIENT LIST named before it.
		r.Err = strings.TrimPrefix(r.Err+"; ", "; ") + "CLIENT LIST after the sample: " + err.Error()
	}
	return attribute(r, cmds, opts.DB, req.Tokens, before, after), nil
}

// clientList reads the master's connections, within setupTimeout.
func clientList(ctx context.Context, client *redis.Client) ([]Client, error) {
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	text, err := client.ClientList(ctx).Result()
	if err != nil {
		return nil, denied("CLIENT LIST", err)
	}
	return parseClientList(text), nil
}

// openMonitor dials the master as opts say (address, TLS, credentials), names the connection and starts
// MONITOR on it, within setupTimeout.
func openMonitor(ctx context.Context, opts *redis.Options) (net.Conn, *bufio.Reader, error) {
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	user, pass, err := credentials(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	dial := opts.Dialer
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	network := opts.Network
	if network == "" {
		network = "tcp"
	}
	conn, err := dial(ctx, network, opts.Addr)
	if err != nil {
		return nil, nil, err
	}
	deadline, _ := ctx.Deadline()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) }) // a cancelled caller unblocks the reads
	defer stop()
	conn.SetDeadline(deadline)
	var out bytes.Buffer
	steps := []string{}
	if pass != "" {
		auth := []string{"AUTH", pass}
		if user != "" {
			auth = []string{"AUTH", user, pass}
		}
		writeCommand(&out, auth...)
		steps = append(steps, "AUTH")
	}
	writeCommand(&out, "CLIENT", "SETNAME", ConnectionName)
	writeCommand(&out, "MONITOR")
	steps = append(steps, "CLIENT SETNAME", "MONITOR")
	rd := bufio.NewReaderSize(conn, 32<<10)
	if _, err := conn.Write(out.Bytes()); err != nil {
		conn.Close()
		return nil, nil, err
	}
	for _, step := range steps {
		line, _, err := readLine(rd, nil)
		if err != nil {
			conn.Close()
			return nil, nil, fmt.Errorf("%s: %w", step, err)
		}
		if len(line) > 0 && line[0] == '-' {
			if step == "CLIENT SETNAME" { // only a courtesy to the operator: the sample does without it
				continue
			}
			conn.Close()
			reply := errors.New(string(line[1:]))
			if err := denied(step, reply); err != reply {
				return nil, nil, err
			}
			return nil, nil, fmt.Errorf("%s: %s", step, untrusted.Escape(reply.Error()))
		}
	}
	conn.SetDeadline(time.Time{})
	return conn, rd, nil
}

// credentials are the user and password opts authenticate with.
func credentials(ctx context.Context, opts *redis.Options) (string, string, error) {
	switch {
	case opts.StreamingCredentialsProvider != nil:
		return "", "", errors.New("a streaming credentials provider cannot authenticate the sampling connection")
	case opts.CredentialsProviderContext != nil:
		return opts.CredentialsProviderContext(ctx)
	case opts.CredentialsProvider != nil:
		u, p := opts.CredentialsProvider()
		return u, p, nil
	}
	return opts.Username, opts.Password, nil
}

// writeCommand writes a command as a RESP array of bulk strings.
func writeCommand(b *bytes.Buffer, args ...string) {
	fmt.Fprintf(b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(b, "$%d\r\n%s\r\n", len(a), a)
	}
}

// readFeed reads MONITOR's lines until end, req.MaxLines lines or ctx's end, and returns the commands on
// req.Key among them, the lines read, why it stopped, and the error that stopped it early, if any.
func readFeed(ctx context.Context, conn net.Conn, rd *bufio.Reader, req Request, end time.Time) ([]command, int,
	Stop, error) {
	if d, ok := ctx.Deadline(); ok && d.Before(end) {
		end = d
	}
	conn.SetReadDeadline(end)
	stopCancel := context.AfterFunc(ctx, func() { conn.SetReadDeadline(time.Now()) })
	defer stopCancel()
	key := quoted(req.Key)
	var cmds []command
	var buf []byte
	lines := 0
	for lines < req.MaxLines {
		line, cut, err := readLine(rd, buf)
		buf = line[:0]
		var ne net.Error
		switch {
		case err != nil && ctx.Err() != nil:
			return cmds, lines, StopCancelled, nil
		case errors.As(err, &ne) && ne.Timeout():
			return cmds, lines, StopTime, nil
		case err != nil:
			return cmds, lines, StopCancelled, err
		}
		lines++
		if cut || len(line) == 0 || line[0] != '+' || !bytes.Contains(line, key) {
			continue
		}
		c, err := parseLine(line[1:])
		if err == nil && touches(c, req.Key) {
			cmds = append(cmds, c)
		}
	}
	return cmds, lines, StopLines, nil
}

// readLine reads one RESP line into buf (reused) without its CRLF; a line longer than maxLine is read to its
// end and reported cut, its start kept.
func readLine(rd *bufio.Reader, buf []byte) ([]byte, bool, error) {
	buf = buf[:0]
	cut := false
	for {
		frag, err := rd.ReadSlice('\n')
		if len(buf)+len(frag) <= maxLine {
			buf = append(buf, frag...)
		} else {
			cut = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return buf, cut, err
		}
		return bytes.TrimRight(buf, "\r\n"), cut, nil
	}
}
