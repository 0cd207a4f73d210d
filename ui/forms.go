package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// spinner frames, advanced by the tick while a request runs.
var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// acquireForm is the small form that acquires a lock: resource and TTL, then progress while Acquire runs its
// rounds, and the per-master outcome when it fails.
type acquireForm struct {
	sh       *shared
	resource field
	ttl      field
	focus    int       // 0: resource, 1: TTL
	err      string    // validation or failure, sanitized
	round    roundView // the last failed round, while retrying or after failing
	attempt  int       // rounds failed so far while running

	running bool
	req     uint64 // the request in flight
	started time.Time
	cancel  context.CancelFunc
}

// newAcquireForm returns a form with the default TTL filled in.
func newAcquireForm(sh *shared, ttl time.Duration) *acquireForm {
	return &acquireForm{sh: sh, resource: newField("", 512), ttl: newField(ttl.String(), 16)}
}

// values validates the form: the resource as typed and the TTL.
func (f *acquireForm) values() (string, time.Duration, error) {
	resource := f.resource.String()
	if f.resource.empty() {
		return "", 0, errors.New("type a resource name")
	}
	ttl, err := parseTTL(f.ttl.String())
	if err != nil {
		return "", 0, err
	}
	return resource, ttl, nil
}

// edit applies an editing key to the focused field and reports whether it was one.
func (f *acquireForm) edit(msg tea.KeyMsg) bool {
	if f.focus == 0 {
		return f.resource.Update(msg)
	}
	return f.ttl.Update(msg)
}

// parseTTL reads a TTL: a Go duration ("10s", "1m30s") or a number of seconds.
func parseTTL(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	if err != nil {
		n, nerr := strconv.ParseFloat(s, 64)
		if nerr != nil {
			return 0, fmt.Errorf("TTL %q: use a duration such as 10s or 1m30s", s)
		}
		d = time.Duration(n * float64(time.Second))
	}
	switch {
	case d < redlock.MinTTL:
		return 0, fmt.Errorf("the TTL must be at least %v", redlock.MinTTL)
	case d > redlock.MaxTTL:
		return 0, fmt.Errorf("the TTL must be at most %v", redlock.MaxTTL)
	}
	return d, nil
}

// View draws the form as a dialog w cells wide at most; frame advances the spinner.
func (f *acquireForm) View(w, frame int) string {
	st := f.sh.st
	w = min(w, 72)
	inner := w - 2
	label := func(s string) string { return st.form.label.Render(fit(s, 10)) }
	body := []string{
		label("resource") + f.resource.View(inner-10, f.focus == 0 && !f.running, st.form.input, st.cursor),
		label("ttl") + f.ttl.View(min(inner-10, 16), f.focus == 1 && !f.running, st.form.input, st.cursor),
		"",
	}
	switch {
	case f.running:
		elapsed := f.sh.now().Sub(f.started)
		line := spinner[frame%len(spinner)] + " acquiring… " + dur(elapsed)
		if d := f.sh.data; d != nil {
			line += fmt.Sprintf(" · %d/%d masters up, quorum %d", d.snap.UpCount, len(d.masters), d.snap.Quorum)
		}
		body = append(body, st.text.normal.Render(line))
		if f.attempt > 0 {
			body = append(body, st.form.err.Render(fmt.Sprintf("round %d failed: %s", f.attempt, f.round.summary())))
			for _, n := range f.round.nodeLines() {
				body = append(body, st.form.hint.Render("  "+n))
			}
		}
		body = append(body, st.form.hint.Render("retrying per --retries; esc cancels"))
	case f.err != "":
		for _, l := range strings.Split(ansi.Wrap(f.err, inner, " "), "\n") {
			body = append(body, st.form.err.Render(l))
		}
		if f.round.n > 0 {
			body = append(body, st.form.hint.Render("last round: "+f.round.summary()))
			for _, n := range f.round.nodeLines() {
				body = append(body, st.form.hint.Render("  "+n))
			}
		}
	default:
		k := f.sh.keys
		body = append(body, st.form.hint.Render(fmt.Sprintf("%s acquire · %s next field · %s cancel",
			k.Confirm.Help().Key, k.NextPanel.Help().Key, k.Cancel.Help().Key)))
	}
	return st.box("Acquire a lock", body, w, len(body)+2, true)
}

// deleteConfirm asks for the resource name before force-deleting a lock that is not ours. It deletes only the
// tokens seen when it opened, so a newer holder is never touched.
type deleteConfirm struct {
	sh       *shared
	req      uint64
	resource string            // raw
	name     string            // sanitized
	primary  string            // raw token under the row when opened: if it changes, the confirmation is withdrawn
	tokens   []string          // raw tokens to delete
	hash     map[string]string // tokens that are hash lock holders (Redisson), with the lock's mode
	shown    []string          // the tokens, sanitized and shortened, with how many masters hold each
	full     []string          // the tokens, sanitized in full, with how many masters hold each
	input    field
	err      string
	running  bool
}

// newDeleteConfirm prepares a confirmation for row, deleting tokens.
func newDeleteConfirm(sh *shared, req uint64, row *lockRow, tokens []string) *deleteConfirm {
	c := &deleteConfirm{sh: sh, req: req, resource: row.lv.Resource, name: row.name, primary: row.primary,
		tokens: tokens, hash: map[string]string{}, input: newField("", 1024)}
	for _, t := range tokens {
		n, first := 0, 0
		for j, m := range row.lv.Masters {
			if m.Holds(t) {
				if n == 0 {
					first = j
				}
				n++
				if m.Hash {
					c.hash[t] = m.Mode
				}
			}
		}
		short := strings.TrimRight(fit(row.tokens[first], shortToken), " ")
		c.shown = append(c.shown, short+" on "+plural(n, "master"))
		c.full = append(c.full, row.tokens[first]+" on "+plural(n, "master"))
	}
	return c
}

// matches reports whether the typed text names the resource: as shown (escapes typed out, without the mark) or
// as its raw bytes.
func (c *deleteConfirm) matches() bool {
	typed := c.input.String()
	return typed == strings.TrimPrefix(c.name, mark) || typed == c.resource
}

// View draws the confirmation as a dialog w cells wide at most. Nothing in it is cut: the name, every token in
// full and the sentences wrap, since this is the screen where the operator checks what will be deleted.
func (c *deleteConfirm) View(w, frame int) string {
	st := c.sh.st
	w = min(w, 76)
	inner := w - 2
	body := labelled(st, "resource", c.name, inner, st.text.normal)
	for i, t := range c.full {
		label := ""
		if i == 0 {
			label = "tokens"
		}
		body = append(body, labelled(st, label, t, inner, st.text.normal)...)
	}
	hint := func(s string) { body = append(body, wrapLines(st.form.hint.Render(s), inner)...) }
	hint("Deletes the key only where it holds these tokens; a newer holder is never touched.")
	if strings.HasPrefix(c.name, mark) {
		hint("The name holds escaped bytes: type it as shown, without " + mark + ".")
	}
	body = append(body, st.text.normal.Render("Type the resource name to confirm:"),
		"> "+c.input.View(inner-2, !c.running, st.form.input, st.cursor))
	k := c.sh.keys
	switch {
	case c.running:
		body = append(body, st.text.normal.Render(spinner[frame%len(spinner)]+" deleting…"))
	case c.err != "":
		body = append(body, wrapLines(st.form.err.Render(c.err), inner)...)
	default:
		hint(fmt.Sprintf("%s delete · %s cancel", k.Confirm.Help().Key, k.Cancel.Help().Key))
	}
	return st.box("Force-delete a lock that is not ours", body, w, len(body)+2, true)
}
