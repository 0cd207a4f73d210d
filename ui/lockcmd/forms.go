package lockcmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/ui/drillview"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// AcquireForm is the small form that acquires a lock, a modal dialog: resource and TTL, then progress while
// Acquire runs its rounds, and the per-master outcome when it fails. It asks the lock commands to acquire
// (acquireMsg), follows its request by the replies, and closes when the lock is won.
type AcquireForm struct {
	kit.ModalBase
	resource kit.Field
	ttl      kit.Field
	focus    int           // 0: resource, 1: TTL
	err      string        // validation or failure, sanitized
	round    kit.RoundView // the last failed round, while retrying or after failing
	attempt  int           // rounds failed so far while running

	running bool
	req     uint64 // the request in flight
	started time.Time
}

// newAcquireForm returns a form with the default TTL filled in.
func newAcquireForm(sh *kit.Shared, ttl time.Duration) *AcquireForm {
	return &AcquireForm{ModalBase: formBase(sh), resource: kit.NewField("", 512), ttl: kit.NewField(ttl.String(), 16)}
}

// formBase is the modalBase of a dialog that is typed into: the acquire form, the delete confirmation.
func formBase(sh *kit.Shared) kit.ModalBase {
	next := sh.Keys.NextPanel
	next.SetHelp(next.Help().Key, "next field")
	return kit.ModalBase{Shared: sh, Where: kit.LayerDialog, Text: true, Keys: []key.Binding{sh.Keys.Confirm, sh.Keys.Cancel, next}}
}

// Update edits the fields and submits them, and follows the request: its progress, and its end, which closes
// the form when the lock is won and shows why when it was not.
func (f *AcquireForm) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return f.key(msg)
	case kit.AcquireStartedMsg:
		f.running, f.req, f.started, f.err, f.round, f.attempt = true, msg.Req, msg.Started, "", kit.RoundView{}, 0
	case acquireProgressMsg:
		if f.running && f.req == msg.req {
			f.attempt, f.round = msg.attempt, msg.round
		}
	case acquireResultMsg:
		if !f.running || f.req != msg.req {
			break
		}
		f.running = false
		switch {
		case msg.lock != nil: // won: the lock commands have it
			return nil, nil
		case !msg.cancelled:
			reason, rv := kit.Failure(msg.err)
			f.err, f.round = "not acquired: "+reason, rv
		}
	}
	return f, nil
}

// key applies a key: Cancel closes the form (cancelling its request), Confirm submits it, the others edit the
// fields or move between them. While the request runs, only Cancel acts.
func (f *AcquireForm) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := f.Shared.Keys
	switch {
	case key.Matches(msg, k.Cancel):
		if f.running {
			f.Shared.Tell(kit.CancelAcquireMsg{Req: f.req})
		}
		return nil, nil
	case f.running:
	case key.Matches(msg, k.Confirm):
		resource, ttl, err := f.values()
		if err != nil {
			f.err = err.Error()
			break
		}
		f.Shared.Tell(kit.AcquireMsg{Resource: resource, TTL: ttl})
	case f.edit(msg):
		f.err = ""
	case key.Matches(msg, k.NextPanel, k.PrevPanel, k.Up, k.Down):
		f.focus = 1 - f.focus
	}
	return f, nil
}

// values validates the form: the resource as typed and the TTL.
func (f *AcquireForm) values() (string, time.Duration, error) {
	resource := f.resource.String()
	if f.resource.Empty() {
		return "", 0, errors.New("type a resource name")
	}
	resource = f.keyOf(resource)
	ttl, err := parseTTL(f.ttl.String())
	if err != nil {
		return "", 0, err
	}
	return resource, ttl, nil
}

// edit applies an editing key to the focused field and reports whether it was one.
func (f *AcquireForm) edit(msg tea.KeyMsg) bool {
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
		return 0, fmt.Errorf("the TTL must be at least %s", vocab.ExactDuration(redlock.MinTTL))
	case d > redlock.MaxTTL:
		return 0, fmt.Errorf("the TTL must be at most %s", vocab.ExactDuration(redlock.MaxTTL))
	}
	return d, nil
}

// View draws the form as a dialog, narrower than the screen; the frame advances the spinner.
func (f *AcquireForm) View() string {
	st, frame := f.Shared.St, f.Shared.Frame
	w := min(f.W-4, 72)
	inner := w - 2
	label := func(s string) string { return st.Form.Label.Render(kit.Fit(s, 10)) }
	body := []string{
		label("resource") + f.resource.View(inner-10, f.focus == 0 && !f.running, st.Form.Input, st.Cursor),
		label("ttl") + f.ttl.View(min(inner-10, 16), f.focus == 1 && !f.running, st.Form.Input, st.Cursor),
		"",
	}
	if typed := f.resource.String(); f.Shared.KeyOf != nil && !f.resource.Empty() && f.keyOf(typed) != typed {
		// The key in the peer's convention, which is what is locked: body[2] is the blank line.
		body[2] = label("key") + st.Name(kit.Fit(kit.Sanitize(f.keyOf(typed), kit.NameCap), inner-10), st.Text.Normal)
	}
	switch {
	case f.running:
		elapsed := f.Shared.Now().Sub(f.started)
		line := kit.Spinner[frame%len(kit.Spinner)] + " acquiring… " + vocab.ShortDuration(elapsed)
		if d := f.Shared.Data; d != nil {
			line += fmt.Sprintf(" · %d/%d masters up, quorum %d", d.Snap.UpCount, len(d.Masters), d.Snap.Quorum)
		}
		body = append(body, st.Text.Normal.Render(line))
		if f.attempt > 0 {
			body = append(body, st.Form.Err.Render(fmt.Sprintf("round %d failed: %s", f.attempt, f.round.Summary())))
			for _, n := range f.round.NodeLines() {
				body = append(body, st.Form.Hint.Render("  "+n))
			}
		}
		body = append(body, st.Form.Hint.Render("retrying per --retries; esc cancels"))
	case f.err != "":
		for _, l := range kit.Wrap(f.err, inner) {
			body = append(body, st.Form.Err.Render(l))
		}
		if f.round.N > 0 {
			body = append(body, st.Form.Hint.Render("last round: "+f.round.Summary()))
			for _, n := range f.round.NodeLines() {
				body = append(body, st.Form.Hint.Render("  "+n))
			}
		}
	default:
		k := f.Shared.Keys
		body = append(body, st.Form.Hint.Render(fmt.Sprintf("%s acquire · %s next field · %s cancel",
			k.Confirm.Help().Key, k.NextPanel.Help().Key, k.Cancel.Help().Key)))
	}
	return st.Box("Acquire a lock", body, w, len(body)+2, true)
}

// DeleteConfirm asks for the resource name before force-deleting a lock that is not ours, a modal dialog. It
// deletes only the tokens seen when it opened, so a newer holder is never touched, and it is withdrawn when a
// snapshot shows the lock gone or held by another.
type DeleteConfirm struct {
	kit.ModalBase
	req      uint64
	resource string            // raw
	name     string            // sanitized
	primary  string            // raw token under the row when opened: if it changes, the confirmation is withdrawn
	tokens   []string          // raw tokens to delete
	hash     map[string]string // tokens that are hash lock holders (Redisson), with the lock's mode
	holders  []kit.HolderRow   // a sorted-set lock's holders as seen: one of them (pick) is removed, alone
	pick     int
	family   string   // the lock's client hint, to say what its holders will notice
	others   []string // the other keys of a lock over several keys, raw (multikey.go)
	lead     string   // the token those keys share with this one: deleted from them, and only it
	onlyThis bool     // the operator asked to delete the selected key alone
	shown    []string // the tokens, sanitized and shortened, with how many masters hold each
	full     []string // the tokens, sanitized in full, with how many masters hold each
	input    kit.Field
	err      string
	running  bool
}

// newDeleteConfirm prepares a confirmation for row, deleting tokens.
func newDeleteConfirm(sh *kit.Shared, req uint64, row *kit.LockRow, tokens []string) *DeleteConfirm {
	c := &DeleteConfirm{ModalBase: formBase(sh),
		req: req, resource: row.Lv.Resource, name: row.Name, primary: row.Primary,
		tokens: tokens, hash: map[string]string{}, input: kit.NewField("", 1024)}
	if row.Holders != nil {
		c.holders, c.family = row.Holders, row.Lv.Family
		next := sh.Keys.NextPanel
		next.SetHelp(next.Help().Key, "another holder")
		c.Keys = []key.Binding{sh.Keys.Confirm, sh.Keys.Cancel, next}
		c.choose(0)
		return c
	}
	for _, t := range tokens {
		n, first := 0, 0
		for j, m := range row.Lv.Masters {
			if m.Holds(t) {
				if n == 0 {
					first = j
				}
				n++
				if m.Hash() {
					c.hash[t] = m.Mode()
				}
			}
		}
		short := strings.TrimRight(kit.Fit(row.Tokens[first], kit.ShortToken), " ")
		c.shown = append(c.shown, short+" on "+kit.Plural(n, "master"))
		c.full = append(c.full, row.Tokens[first]+" on "+kit.Plural(n, "master"))
	}
	c.withOtherKeys(row, row.Primary)
	return c
}

// Update takes the typed name and the confirmation, and closes when the deletion is done or refused, or when
// a snapshot shows the lock gone or held by another before it was confirmed.
func (c *DeleteConfirm) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return c.key(msg)
	case deleteResultMsg:
		if msg.req == c.req {
			return nil, nil
		}
	case kit.RefusedMsg:
		if msg.Req == c.req {
			return nil, nil
		}
	case kit.DataMsg:
		if c.running {
			break
		}
		switch row := kit.FindRow(c.Shared.Data, c.resource); {
		case row == nil || row.Lv.Free(): // listed free for its holders in the window, its key gone
			c.Shared.TellStatus(monitor.SeverityWarning, "the lock is gone (released or expired): nothing deleted")
			return nil, nil
		case c.holders != nil:
			if !drillview.HasHolder(row, c.tokens[0]) {
				c.Shared.TellStatus(monitor.SeverityWarning, "the holder left while you confirmed: nothing deleted")
				return nil, nil
			}
		case row.Primary != c.primary:
			c.Shared.TellStatus(monitor.SeverityWarning, "the lock changed holder while you confirmed: nothing deleted")
			return nil, nil
		}
	}
	return c, nil
}

// key applies a key: Cancel closes, Confirm asks for the deletion once the typed name matches, the others
// edit the name, and for a sorted-set lock the next-field key picks another holder. While the deletion runs,
// only Cancel acts.
func (c *DeleteConfirm) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := c.Shared.Keys
	switch {
	case key.Matches(msg, k.Cancel):
		return nil, nil
	case c.running:
	case key.Matches(msg, k.Confirm):
		if !c.matches() {
			c.err = "the name does not match: nothing deleted"
			break
		}
		c.running = true
		msg := kit.DeleteMsg{Req: c.req, Resource: c.resource, Name: c.name, Tokens: c.tokens, Hash: c.hash, Shown: c.shown,
			Others: c.otherKeys(), Lead: c.lead}
		if c.holders != nil {
			msg.Set = map[string][]string{c.tokens[0]: c.holders[c.pick].H.Members}
		}
		c.Shared.Tell(msg)
	case c.input.Update(msg):
		c.err = ""
	case c.holders != nil && key.Matches(msg, k.NextPanel): // after the name, which takes the letters
		c.choose((c.pick + 1) % len(c.holders))
	case c.others != nil && key.Matches(msg, k.NextPanel):
		c.onlyThis = !c.onlyThis
	}
	return c, nil
}

// matches reports whether the typed text names the resource: as shown (escapes typed out, without the mark) or
// as its raw bytes.
func (c *DeleteConfirm) matches() bool {
	typed := c.input.String()
	return typed == strings.TrimPrefix(c.name, kit.Mark) || typed == c.resource
}

// View draws the confirmation as a dialog, narrower than the screen. Nothing in it is cut: the name, every
// token in full and the sentences wrap, since this is the screen where the operator checks what will be
// deleted.
func (c *DeleteConfirm) View() string {
	st, frame := c.Shared.St, c.Shared.Frame
	w := min(c.W-4, 76)
	inner := w - 2
	body := kit.Labelled(st, "resource", c.name, inner, st.Text.Normal)
	for i, t := range c.full {
		label := ""
		switch {
		case i == 0 && c.holders != nil:
			label = "holder"
		case i == 0:
			label = "tokens"
		}
		body = append(body, kit.Labelled(st, label, t, inner, st.Text.Normal)...)
	}
	hint := func(s string) { body = append(body, kit.WrapLines(st.Form.Hint.Render(s), inner)...) }
	switch {
	case c.holders != nil:
		c.setHints(hint)
	case c.others != nil:
		body = append(body, c.keysView(inner)...)
		c.keysHint(hint)
	default:
		hint("Deletes the key only where it holds these tokens; a newer holder is never touched.")
	}
	if strings.HasPrefix(c.name, kit.Mark) {
		hint("The name holds escaped bytes: type it as shown, without " + kit.Mark + ".")
	}
	body = append(body, st.Text.Normal.Render("Type the resource name to confirm:"),
		"> "+c.input.View(inner-2, !c.running, st.Form.Input, st.Cursor))
	k := c.Shared.Keys
	switch {
	case c.running:
		body = append(body, st.Text.Normal.Render(kit.Spinner[frame%len(kit.Spinner)]+" deleting…"))
	case c.err != "":
		body = append(body, kit.WrapLines(st.Form.Err.Render(c.err), inner)...)
	default:
		hint(fmt.Sprintf("%s delete · %s cancel", k.Confirm.Help().Key, k.Cancel.Help().Key))
	}
	return st.Box("Force-delete a lock that is not ours", body, w, len(body)+2, true)
}

// choose makes the confirmation remove holder i of the sorted-set lock it opened on, alone.
func (c *DeleteConfirm) choose(i int) {
	c.pick = i
	hr := c.holders[i]
	on := 0
	for _, m := range hr.H.Masters {
		if m.State == monitor.CellSeen {
			on++
		}
	}
	what := fmt.Sprintf(" (%s, %s) on %s", hr.H.Mode, hr.H.State, kit.Plural(on, "master"))
	c.tokens = []string{hr.H.Token}
	c.shown = []string{strings.TrimRight(kit.Fit(hr.Token, kit.ShortToken), " ") + what}
	c.full = []string{hr.Token + what}
}

// setHints says what removing one holder of a sorted-set lock does, and what the library's holders notice.
func (c *DeleteConfirm) setHints(hint func(string)) {
	hint(fmt.Sprintf("Removes this holder's members only where they are all still in the set; the other %s keep theirs.",
		kit.Plural(len(c.holders)-1, "holder")))
	if len(c.holders) > 1 {
		hint(fmt.Sprintf("Holder %d of %d: %s another.", c.pick+1, len(c.holders), c.Shared.Keys.NextPanel.Help().Key))
	}
	switch c.family {
	case "Symfony Lock":
		hint("Symfony Lock's holder learns it at its next refresh() or isAcquired() (LockConflictedException); " +
			"until then it runs on. A writer's __write__ marker goes with it.")
	case "redis-semaphore":
		hint("redis-semaphore's holder learns it at its next refresh (every 80% of lockTimeout): it calls " +
			"onLockLost, which by default throws LostLockError; until then it runs on.")
	}
}

// keyOf is the key the acquire form locks for resource: in the --key-format convention, when one is given.
func (f *AcquireForm) keyOf(resource string) string {
	if f.Shared.KeyOf == nil {
		return resource
	}
	return f.Shared.KeyOf(resource)
}
