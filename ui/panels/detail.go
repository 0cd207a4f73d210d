package panels

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/ui/drillview"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// DetailPanel shows the lock under the locks panel's cursor: every master's token and PTTL as bars, the full
// holder token, how long the holder has held it, holder changes and the lock's last events. It takes no keys.
type DetailPanel struct {
	Shared *kit.Shared  // the program context
	row    *kit.LockRow // the selected lock, nil: none
	kit.Sized
}

// Update takes in the selected lock.
func (p *DetailPanel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if msg, ok := msg.(kit.StateMsg); ok {
		p.row = msg.Row
	}
	return p, nil
}

// ShortHelp is empty: the panel takes no keys.
func (p *DetailPanel) ShortHelp() []key.Binding { return nil }

// FullHelp is empty: the panel takes no keys.
func (p *DetailPanel) FullHelp() [][]key.Binding { return nil }

// View draws the detail of the selected lock, with its last events from the journal.
func (p *DetailPanel) View() string {
	st, d, row := p.Shared.St, p.Shared.Data, p.row
	if row == nil || d == nil {
		return st.Box("Detail", []string{st.Text.Muted.Render("no lock selected")}, p.W, p.H, false)
	}
	w := p.W - 2
	body := p.facts(row, d, w)
	body = append(body, p.masterCells(row, d, w)...)
	events := p.Shared.Log.EntriesFor(row.Lv.Resource, max(p.H-2-len(body)-1, 0))
	if len(events) > 0 {
		body = append(body, st.Table.Head.Render("events"))
		for _, e := range events {
			body = append(body, kit.LogLine(st, e, w))
		}
	}
	return st.Box("Detail", body, p.W, p.H, false)
}

// facts are the detail's labelled lines about the lock of row, w cells wide: name, state, validity, holder,
// and what is known of its client and history.
func (p *DetailPanel) facts(row *kit.LockRow, d *kit.Dashboard, w int) []string {
	st := p.Shared.St
	lv := row.Lv
	now := p.Shared.Now()
	label := func(s string) string { return st.Text.Muted.Render(kit.Fit(s, 10)) }
	var body []string
	add := func(s string) { body = append(body, s) }

	wrapped := func(title, text string) { // long names and tokens continue on the next lines, up to three
		lines := strings.Split(ansi.Hardwrap(text, max(w-10, 8), true), "\n")
		for i, l := range lines[:min(len(lines), 3)] {
			if i == 0 {
				add(label(title) + st.Name(l, st.Text.Normal))
			} else {
				add(label("") + st.Text.Normal.Render(l))
			}
		}
	}
	wrapped("resource", row.Label)
	stateText, stateStyle := kit.StateLabel(st, lv, now)
	holder := ""
	if lv.Mine && lv.State == monitor.StateHeld {
		holder = " by " + st.Text.You.Render("you")
	}
	add(label("state") + stateStyle.Render(stateText) + holder + st.Text.Muted.Render(
		fmt.Sprintf(" · %d/%d masters, quorum %d", lv.Count, len(d.Masters), d.Snap.Quorum)))
	if lv.State == monitor.StateHeld {
		v := kit.ValidityAt(lv, now)
		add(label("validity") + st.ValidityBar(v, row.Ref, 10, false) + " " + st.Text.Normal.Render(vocab.ShortDuration(v)) +
			st.Text.Muted.Render(" · spread "+vocab.ShortDuration(lv.TTLSpread)))
	}
	switch {
	case row.Holders != nil:
		add(label("holders") + st.Text.Normal.Render(drillview.OrDash(row.Holder)) +
			st.Text.Muted.Render(fmt.Sprintf(" · %d in the set", len(row.Holders))))
		for _, hr := range row.Holders {
			add(label("") + drillview.HolderLine(st, hr, len(d.Masters), d.Snap.Quorum, d.Snap.Time, now, w-10))
		}
	default:
		token := "-"
		if row.Primary != "" {
			token = monitor.HolderKindText(lv.HolderKind, row.Tokens[kit.FirstWith(lv, row.Primary)])
		}
		tokenLabel := "holder"
		if lv.Holder == "" {
			tokenLabel = "most seen"
		}
		if lv.Free() { // no key: nobody holds it
			tokenLabel, token = "last held", kit.LastHolder(lv)
		}
		if !lv.ValueTime.IsZero() {
			token = kit.ValueTimeHolder(lv, now)
		}
		wrapped(tokenLabel, token)
	}
	if c := lv.Masters[kit.FirstWith(lv, row.Primary)]; c.Hash() {
		held := fmt.Sprintf("held %d×", c.Reentrancy())
		if c.Mode() != "" {
			held += " · " + kit.Sanitize(c.Mode(), kit.NameCap) + " lock"
		}
		add(label("hash lock") + st.Text.Normal.Render(held))
	}
	if len(lv.Keys) > 1 {
		wrapped("one lock", kit.Sanitize(strings.Join(lv.Keys, ", "), kit.TextCap))
	}
	if lv.Family != "" {
		// A guess from the key's and token's shapes: several clients share some, and tokens can be custom.
		add(label("client") + st.Text.Normal.Render(lv.Family) + st.Text.Muted.Render(" (a guess from its shape)"))
	}
	switch {
	case !lv.AcquiredAt.IsZero():
		add(label("acquired") + st.Text.Normal.Render(vocab.ShortDuration(now.Sub(lv.AcquiredAt))+" ago (by us)"))
	case !lv.FirstSeen.IsZero():
		// All a watcher knows: when it first saw the token, not when it was acquired.
		add(label("seen") + st.Text.Normal.Render("first "+vocab.ShortDuration(now.Sub(lv.FirstSeen))+" ago, by this dashboard"))
	}
	changes := fmt.Sprint(lv.Changes)
	if !lv.LastChange.IsZero() {
		changes += ", last at " + lv.LastChange.Format("15:04:05")
	}
	add(label("changes") + st.Text.Normal.Render(changes))
	return body
}

// masterCells is the detail's section of the lock's key on each master, w cells wide: its token and PTTL.
func (p *DetailPanel) masterCells(row *kit.LockRow, d *kit.Dashboard, w int) []string {
	st, lv, now := p.Shared.St, row.Lv, p.Shared.Now()
	body := []string{st.Table.Head.Render("masters") + st.Text.Muted.Render("  ●holder ○other ·none ?not read")}
	const tokenW = 10
	barW := min(max(w-25, 4), 20)
	for j, m := range lv.Masters[:min(len(lv.Masters), len(d.Masters))] {
		glyph, gs := kit.CellGlyph(st, m, row.PrimaryOn(j), lv.State)
		line := " " + st.Text.Muted.Render(kit.Fit(d.Masters[j].Label, 4)) + gs.Render(glyph) + " "
		switch {
		case m.State == monitor.CellUnknown && m.Token != "":
			line += st.Cell.Unknown.Render(fmt.Sprintf("not read; last seen %s ago: ", vocab.ShortDuration(now.Sub(m.ReadAt)))) +
				st.Cell.Unknown.Render(kit.Fit(row.Tokens[j], tokenW))
		case m.State == monitor.CellUnknown:
			line += st.Cell.Unknown.Render("not read")
		case m.State == monitor.CellAbsent:
			line += st.Text.Muted.Render("no key")
		case m.Set() != nil:
			line += drillview.SetCell(st, m, row.Ref, max(w-28, 4), now)
		case m.PTTL == monitor.NoTTL:
			line += st.Name(kit.Fit(row.Tokens[j], tokenW), st.Text.Normal) + " " + st.Text.Bad.Render("no TTL: never expires")
		default: // counted from its read: a tracked master's key is not read again until it changes
			left := m.PTTLAt(now)
			line += st.Name(kit.Fit(row.Tokens[j], tokenW), st.Text.Normal) + " " +
				st.ValidityBar(left, max(row.Ref, left), barW, false) + " " + st.Text.Normal.Render(vocab.ShortDuration(left))
		}
		body = append(body, line)
		if m.Node() != "" { // a Redis Cluster's key: the primary that owns it
			body = append(body, "      "+st.Text.Muted.Render("on primary "+kit.Sanitize(m.Node(), kit.NameCap)))
		}
	}
	return body
}
