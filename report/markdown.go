package report

import (
	"fmt"
	"io"
	"strings"
)

// Markdown is the GitHub-flavoured markdown of a job summary
// ($GITHUB_STEP_SUMMARY), which GitHub renders as HTML on the run's page.
// A name from an input must stay text there: a backtick would close a
// code span, a '<' open an HTML tag (<img src=...>), a '|' split a table
// cell, a CR or LF end the table, a '[' start a link, a '$' a formula.
// Every cell goes through MarkdownCode or MarkdownText, so no caller can
// forget.

// MarkdownCell is one cell of a summary table: Text, shown as a code
// span when Code is set (a path), else as text.
type MarkdownCell struct {
	Text string
	Code bool
}

// MarkdownSummary is a job summary: a heading, a verdict and a table.
type MarkdownSummary struct {
	Title string // "abifloor check"
	// Verdict is the word shown in bold ("OK", "FAIL", "ERROR"), Says the
	// sentence after it.
	Verdict, Says string
	Header        []string
	Rows          [][]MarkdownCell
	// More is how many rows were left out; a line says so.
	More int
	// Notes are said after the table, one a list item: warnings, and
	// what the table has no column for.
	Notes []string
}

// WriteMarkdown writes s as markdown, every string escaped.
func WriteMarkdown(w io.Writer, s MarkdownSummary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", MarkdownText(s.Title))
	fmt.Fprintf(&b, "**%s**: %s\n", MarkdownText(s.Verdict), MarkdownText(s.Says))
	if len(s.Header) > 0 && len(s.Rows) > 0 {
		b.WriteString("\n|")
		for _, h := range s.Header {
			b.WriteString(" " + MarkdownText(h) + " |")
		}
		b.WriteString("\n|")
		for range s.Header {
			b.WriteString(" --- |")
		}
		b.WriteString("\n")
		for _, row := range s.Rows {
			b.WriteString("|")
			for i := range s.Header {
				cell := "-"
				if i < len(row) && row[i].Text != "" {
					if row[i].Code {
						cell = MarkdownCode(row[i].Text)
					} else {
						cell = MarkdownText(row[i].Text)
					}
				}
				b.WriteString(" " + cell + " |")
			}
			b.WriteString("\n")
		}
	}
	if s.More > 0 {
		fmt.Fprintf(&b, "\nand %d more (see the step's log).\n", s.More)
	}
	if len(s.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range s.Notes {
			b.WriteString("- " + markdownLine(n) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownSpecial are the characters that markdown, GitHub's extensions
// (tables, strikethrough, math) or HTML read in inline text.
const markdownSpecial = "\\`*_[]<|!&~$"

// MarkdownText is s as literal text on one line of markdown: Clean (no
// CR, LF, control, bidirectional or invisible character; bounded), then
// each character markdown or HTML would read written as a numeric
// character reference (&#60; for '<'). A backslash escape is not enough:
// renderers differ in what it escapes (Python-Markdown keeps "\<img"
// a tag), where every renderer reads a character reference as the
// character, as text, and a table splits no cell at "&#124;".
func MarkdownText(s string) string {
	s = Clean(s)
	if !strings.ContainsAny(s, markdownSpecial) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && strings.ContainsRune(markdownSpecial, r) {
			fmt.Fprintf(&b, "&#%d;", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// markdownLine is s as the text of a line or list item: MarkdownText,
// and what would start a block there (a heading's '#', a quote's '>', a list's '-',
// '+' or "1.", a rule's '=') written as a character reference too.
func markdownLine(s string) string {
	s = MarkdownText(s)
	if s != "" && strings.IndexByte("#>-+=", s[0]) >= 0 {
		return fmt.Sprintf("&#%d;", s[0]) + s[1:]
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') {
		return s[:i] + fmt.Sprintf("&#%d;", s[i]) + s[i+1:]
	}
	return s
}

// MarkdownCode is s as a code span in a table cell: Clean, fenced by one
// backtick more than the longest run of them in s (padded with a space
// if s starts or ends with one). Code spans show HTML and markdown as
// they are, but a table splits its row at a '|' even in a code span
// (GitHub), and a "\\|" shows its backslash in some renderers: so a '|'
// ends the span and is written between spans as "&#124;".
func MarkdownCode(s string) string {
	s = Clean(s)
	parts := strings.Split(s, "|")
	for i, p := range parts {
		if p != "" {
			parts[i] = codeSpan(p)
		}
	}
	return strings.Join(parts, "&#124;")
}

// codeSpan is s, which holds no '|', as one code span.
func codeSpan(s string) string {
	run, longest := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}
