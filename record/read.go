package record

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"time"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
)

// Recording is a recording as read: its header, its polls in order (Polls) and the events it holds besides.
//
// A poll is kept as its line wrote it, a polled master's whole reading as a delta of the last (polled.go), and
// rebuilt whole as it is replayed: a quiet master of many keys writes a few hundred bytes a poll but reads its
// keys whole at each, so keeping every poll whole would make memory grow with the polls times the keys, however
// small the file.
type Recording struct {
	Header Header
	polls  []writtenPoll
	Events []events.Record
	// Unclosed is set when the recording ends without its end (the recorder stopped without closing it: a
	// crash, or it is still writing); every whole line was read.
	Unclosed bool
	// Torn is set when the last line was cut short (the recorder died while writing it): it was skipped.
	Torn bool
}

// writtenPoll is a poll as its line wrote it: a polled master's reading holds only its keys written in full,
// and polled says how the others stand. size is the line's length, by which what a replay may keep of it is
// counted (Player).
type writtenPoll struct {
	poll   monitor.Poll
	polled []polledKeys
	size   int
}

// Len is the number of polls.
func (r *Recording) Len() int { return len(r.polls) }

// Time is when poll i was taken.
func (r *Recording) Time(i int) time.Time { return r.polls[i].poll.Time }

// Polls yields the polls in order, each rebuilt whole. A poll's slices are its own: it may be kept.
func (r *Recording) Polls() iter.Seq2[int, monitor.Poll] {
	return func(yield func(int, monitor.Poll) bool) {
		r.replay(polledState{}, 0, yield)
	}
}

// replay yields the polls from poll from on, rebuilt whole from state, what was read of the polls before from
// (which it changes as it goes), until yield returns false.
func (r *Recording) replay(state polledState, from int, yield func(int, monitor.Poll) bool) {
	for i := from; i < len(r.polls); i++ {
		w := r.polls[i]
		p := w.poll
		p.Readings = slices.Clone(p.Readings) // decode rebuilds them in place: the written ones are kept
		if err := state.decode(p.Readings, w.polled); err != nil {
			panic(fmt.Sprintf("record: poll %d, checked when read, no longer decodes: %v", i, err))
		}
		if !yield(i, p) {
			return
		}
	}
}

// maxLine bounds one line of a recording, which is read whole before it is parsed; a longer line is refused
// when its bytes pass the bound, before more is read or kept. The longest lines are polls that write a polled
// master's reading whole (its first poll, or a first sweep): measured with the shipped recorder on 100,000
// lock keys (22-byte tokens, 10-byte names) a key takes 213 bytes, so a master's whole reading of 100,000
// keys is 21 MB, and a poll holds one reading a master. 256 MiB holds such a poll of 12 masters, or of 5
// with keys twice that size (longer tokens, up to the 256 bytes of --max-value-len at most of them).
const maxLine = 256 << 20

// maxHeader bounds a recording's first line: its masters and configuration, a few hundred bytes.
const maxHeader = 1 << 20

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
	first, err := readLine(br, maxHeader)
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
		data, err := readLine(br, maxLine)
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
		case l.Poll != nil: // checked whole now, kept as written
			if derr := polled.decode(slices.Clone(l.Poll.Readings), l.Polled); derr != nil {
				return nil, fmt.Errorf("%s: line %d: %w", name, n, derr)
			}
			rec.polls = append(rec.polls, writtenPoll{poll: *l.Poll, polled: l.Polled, size: len(data)})
		default:
			rec.Events = append(rec.Events, *l.Event)
		}
		if errors.Is(err, io.EOF) {
			return &rec, nil
		}
	}
}

// readLine reads one line without its newline; at the end it returns what is left with io.EOF. A line
// longer than limit is an error once limit bytes of it were read: the bytes kept never pass limit (they are
// kept in the reader's chunks, not in a buffer grown by doubling) and are joined once the line is whole.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var chunks [][]byte
	size := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > limit-size {
			return nil, fmt.Errorf("a line over %d bytes: longer than any recording writes (see docs/replay.md)", limit)
		}
		size += len(chunk)
		if chunks == nil && err == nil { // the whole line in the reader's buffer: the common case
			return slices.Clone(chunk[:len(chunk)-1]), nil
		}
		chunks = append(chunks, slices.Clone(chunk))
		switch {
		case err == nil:
			line := slices.Concat(chunks...)
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		}
		return slices.Concat(chunks...), err
	}
}
