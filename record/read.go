package record

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
)

// Recording is a recording as read: its header, its polls in order and the events it holds besides.
type Recording struct {
	Header Header
	Polls  []monitor.Poll
	Events []events.Record
	// Unclosed is set when the recording ends without its end (the recorder stopped without closing it: a
	// crash, or it is still writing); every whole line was read.
	Unclosed bool
	// Torn is set when the last line was cut short (the recorder died while writing it): it was skipped.
	Torn bool
}

// maxLine bounds one line of a recording: a poll of 100,000 keys on a polled master is tens of megabytes.
const maxLine = 1 << 30

// Open reads the recording at path. A file that is not a recording, or one of a newer format version than
// this build reads, is refused with a message that says so.
func Open(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads a recording from r; name names it in errors.
func Read(r io.Reader, name string) (*Recording, error) {
	in := bufio.NewReader(r)
	if magic, _ := in.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(in)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		gz.Multistream(false)
		r = gz
	} else {
		r = in
	}
	br := bufio.NewReaderSize(r, 1<<20)
	first, err := readLine(br)
	if err != nil && len(first) == 0 {
		return nil, fmt.Errorf("%s: not a redlock-tui recording (empty)", name)
	}
	var rec Recording
	if json.Unmarshal(first, &rec.Header) != nil || rec.Header.Format != Format {
		return nil, fmt.Errorf("%s: not a redlock-tui recording", name)
	}
	if v := rec.Header.Version; v > Version || v < 1 {
		return nil, fmt.Errorf("%s: a recording of format version %d, which this redlock-tui (it reads up to %d) "+
			"cannot read: replay it with a newer redlock-tui", name, v, Version)
	}
	polled := polledState{}
	for n := 2; ; n++ {
		data, err := readLine(br)
		if errors.Is(err, io.ErrUnexpectedEOF) { // the stream was cut short: by a recorder that died, or still writing
			rec.Unclosed = true
			err = io.EOF
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: line %d: %w", name, n, err)
		}
		if errors.Is(err, io.EOF) && len(data) == 0 {
			return &rec, nil
		}
		var l line
		if jerr := json.Unmarshal(data, &l); jerr != nil || (l.Poll == nil && l.Event == nil) {
			if errors.Is(err, io.EOF) { // the last line, cut short by a recorder that died writing it
				rec.Torn = true
				return &rec, nil
			}
			return nil, fmt.Errorf("%s: line %d is not a poll or an event: %v", name, n, jerr)
		}
		switch {
		case l.Poll != nil:
			if derr := polled.decode(l.Poll.Readings, l.Polled); derr != nil {
				return nil, fmt.Errorf("%s: line %d: %w", name, n, derr)
			}
			rec.Polls = append(rec.Polls, *l.Poll)
		default:
			rec.Events = append(rec.Events, *l.Event)
		}
		if errors.Is(err, io.EOF) {
			return &rec, nil
		}
	}
}

// readLine reads one line without its newline; at the end it returns what is left with io.EOF.
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		switch {
		case err == nil:
			return out[:len(out)-1], nil
		case errors.Is(err, bufio.ErrBufferFull) && len(out) < maxLine:
			continue
		case errors.Is(err, bufio.ErrBufferFull):
			return nil, fmt.Errorf("a line over %d bytes", maxLine)
		}
		return out, err
	}
}
