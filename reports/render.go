package reports

import (
	"embed"
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"
	"unicode"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/web"
)

// templateFiles holds the report's two parts and the unsubscribe page.
//
//go:embed templates
var templateFiles embed.FS

var funcs = map[string]any{
	"num":       formatCount,
	"clean":     oneLine,
	"referrer":  referrerLabel,
	"pad":       padLeft,
	"underline": func(n int) string { return strings.Repeat("=", n) },
	"topList":   newTopList,
	"figure":    newFigureCell,
}

// figureCell is one headline number of the HTML part with what it counts.
type figureCell struct {
	Label, Counts string
	Figure        web.Figure
}

func newFigureCell(label, counts string, f web.Figure) figureCell {
	return figureCell{Label: label, Counts: counts, Figure: f}
}

// topList is one "top 5" table of the HTML part.
type topList struct {
	Title    string
	Counted  string // what the numbers count
	Kind     string // "pages", "referrers": what an empty list has none of
	Entries  []repository.StatEntry
	Referrer bool // the empty value means a direct visit
}

func newTopList(title, counted, kind string, entries []repository.StatEntry, referrer bool) topList {
	return topList{Title: title, Counted: counted, Kind: kind, Entries: entries, Referrer: referrer}
}

var (
	textReport = texttemplate.Must(texttemplate.New("report.txt").Funcs(funcs).ParseFS(templateFiles, "templates/report.txt"))
	htmlReport = htmltemplate.Must(htmltemplate.New("report.html").Funcs(funcs).ParseFS(templateFiles, "templates/report.html"))
	textAlert  = texttemplate.Must(texttemplate.New("alert.txt").Funcs(funcs).Funcs(alertFuncs).ParseFS(templateFiles, "templates/alert.txt"))
	htmlAlert  = htmltemplate.Must(htmltemplate.New("alert.html").Funcs(funcs).Funcs(alertFuncs).ParseFS(templateFiles, "templates/alert.html"))
)

// alertFuncs are the alert templates' own.
var alertFuncs = map[string]any{
	"int64": func(n int) int64 { return int64(n) },
	"period": func(kind string) string {
		if kind == "spike" {
			return "the last hour, visitors"
		}
		return "the last 24 hours, visitors"
	},
	// alertTop makes an alert's list one of the report's (its title, what it counts, its rows).
	"alertTop": func(title, counted, kind string, rows []topRow) topList {
		entries := make([]repository.StatEntry, len(rows))
		for i, r := range rows {
			entries[i] = repository.StatEntry{Value: r.Value, Count: r.Count}
		}
		return newTopList(title, counted, kind, entries, false)
	},
}

// renderAlert writes the text and HTML parts of an alert or a confirmation, as Render writes a
// report's.
func renderAlert(m alertMail) (text, html string, err error) {
	var t, h strings.Builder
	if err := textAlert.Execute(&t, m); err != nil {
		return "", "", err
	}
	if err := htmlAlert.Execute(&h, m); err != nil {
		return "", "", err
	}
	return t.String(), h.String(), nil
}

// Subject is the message's subject line.
func (r Report) Subject() string {
	return "Analytics report for " + r.Period.Name()
}

// Render writes the text and the HTML part. Values strangers control (page paths,
// referrers) are autoescaped in the HTML part and stripped of control characters in both.
func Render(r Report) (text, html string, err error) {
	var t, h strings.Builder
	if err := textReport.Execute(&t, r); err != nil {
		return "", "", err
	}
	if err := htmlReport.Execute(&h, r); err != nil {
		return "", "", err
	}
	return t.String(), h.String(), nil
}

// formatCount writes 1234567 as "1,234,567".
func formatCount(n int64) string { return web.GroupDigits(n, ",") }

// oneLine keeps a stranger's value on its line: control characters (newlines, tabs, bidi
// overrides) become spaces, so a referrer cannot forge lines of the text part.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return ' '
		}
		return r
	}, s)
}

// referrerLabel names the empty referrer, which means a direct visit.
func referrerLabel(s string) string {
	if s == "" {
		return "(direct or unknown)"
	}
	return oneLine(s)
}

// padLeft right-aligns a column of the text part.
func padLeft(width int, s string) string {
	if n := len([]rune(s)); n < width {
		return strings.Repeat(" ", width-n) + s
	}
	return s
}
