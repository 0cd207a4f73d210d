package docgen

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// link is a Markdown link: [text](target), where target is path#anchor, either part possibly empty.
var link = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// external targets are not checked: they are not in the repository.
var external = regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)

// docFiles are the Markdown files whose links are checked: the README and every page of docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(Root(), "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(Root(), "README.md")}, pages...)
}

// TestDocLinksResolve: every relative link of the README and of docs/ names a file that exists, and every
// anchor one of that page's headings, as GitHub makes anchors of them.
func TestDocLinksResolve(t *testing.T) {
	anchorsOf := map[string]map[string]bool{}
	anchors := func(path string) (map[string]bool, error) {
		if a, ok := anchorsOf[path]; ok {
			return a, nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		anchorsOf[path] = headingAnchors(string(data))
		return anchorsOf[path], nil
	}
	checked := 0
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(Root(), file)
		for _, target := range links(string(data)) {
			if external.MatchString(target) {
				continue
			}
			checked++
			path, frag, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q: no such file", rel, target)
					continue
				}
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: link %q: an anchor into a file that is not Markdown", rel, target)
				continue
			}
			a, err := anchors(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !a[frag] {
				t.Errorf("%s: link %q: %s has no heading with the anchor %q", rel, target, filepath.Base(dest), frag)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d relative links found: the scan is broken", checked)
	}
}

// links returns the targets of the links in a Markdown text, leaving out fenced code blocks and inline code.
func links(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range link.FindAllStringSubmatch(withoutInlineCode(line), -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// withoutInlineCode blanks the spans of inline code in a line.
func withoutInlineCode(line string) string {
	parts := strings.Split(line, "`")
	for i := 1; i < len(parts); i += 2 {
		if i < len(parts)-1 { // a backtick with no partner is not code
			parts[i] = ""
		}
	}
	return strings.Join(parts, "`")
}

// headingAnchors are the anchors GitHub gives the headings of a Markdown text: a second heading of the same
// anchor gets "-1", a third "-2".
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if fenced || level == 0 || level > 6 || !strings.HasPrefix(line[level:], " ") {
			continue
		}
		a := anchor(headingText(strings.TrimSpace(line[level:])))
		if n := count[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		count[a]++
	}
	return out
}

// headingText is a heading's text as GitHub reads it for its anchor: a link's text without its target, inline
// code without its backticks.
func headingText(h string) string {
	h = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(h, "$1")
	return strings.ReplaceAll(h, "`", "")
}

// TestAnchorsAreGitHubs checks the anchor rule on headings whose anchors GitHub is known to give.
func TestAnchorsAreGitHubs(t *testing.T) {
	for heading, want := range map[string]string{
		"Least privilege: the ACL a user needs":                              "least-privilege-the-acl-a-user-needs",
		"Evicted, flushed or released: the eviction policy of a lock master": "evicted-flushed-or-released-the-eviction-policy-of-a-lock-master",
		"Source `monitor`":      "source-monitor",
		"redlock-tui run: Run":  "redlock-tui-run-run",
		"Other clients' locks":  "other-clients-locks",
		"snake_case and dashes": "snake_case-and-dashes",
	} {
		if got := anchor(headingText(heading)); got != want {
			t.Errorf("anchor of %q = %q, want %q", heading, got, want)
		}
	}
	a := headingAnchors("# A\n## A\n```\n# B\n```\n### A\n")
	if !a["a"] || !a["a-1"] || !a["a-2"] || a["b"] {
		t.Errorf("anchors %v; want a, a-1, a-2 and none from the code block", a)
	}
}

// TestLinkScanSkipsCode: a link inside inline code or a fenced block is not a link.
func TestLinkScanSkipsCode(t *testing.T) {
	got := links("see [a](a.md) and `[b](b.md)`\n```\n[c](c.md)\n```\n[d](d.md#x)")
	if strings.Join(got, " ") != "a.md d.md#x" {
		t.Errorf("links %q; want a.md and d.md#x", got)
	}
}
