package pages

import (
	"fmt"
	"html/template"
	"io/fs"
	"strings"

	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// templateFuncs are the helpers templates may call. None of them returns template.HTML: every
// value, a stranger's page path included, goes through html/template's escaping.
var templateFuncs = template.FuncMap{
	"asset":   web.AssetURL,
	"count":   formatCount,
	"counted": counted,
	"plural":  web.Plural,
	"privacy": func(level int) string { return privacyNames[level] },
	"add":     func(a, b float64) float64 { return a + b },
	"sub":     func(a, b float64) float64 { return a - b },
	"inc":     func(i int) int { return i + 1 },
	"fieldError": func(errs stats.FieldErrors, field string) string {
		return strings.Join(errs[field], "; ")
	},
}

// counted is a count with its noun, singular for one ("1 visitor", "2 visitors"): web.Counted
// with the pages' digit grouping, for the counts templates hold (int or int64).
func counted(n any, one, many string) (string, error) {
	switch n := n.(type) {
	case int:
		return countOf(int64(n), one, many), nil
	case int64:
		return countOf(n, one, many), nil
	}
	return "", fmt.Errorf("counted: %T is not a count", n)
}

// parseTemplates parses each page with the layout and the shared pieces.
func parseTemplates() (map[string]*template.Template, error) {
	files := web.Templates()
	names, err := fs.Glob(files, "*.html")
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	out := map[string]*template.Template{}
	for _, name := range names {
		if name == "layout.html" || strings.HasPrefix(name, "_") {
			continue
		}
		t, err := template.New(name).Funcs(templateFuncs).ParseFS(files, "layout.html", "_*.html", name)
		if err != nil {
			return nil, fmt.Errorf("templates: %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}
