package sources

import (
	_ "embed"
	"fmt"
	"strings"
)

// categoriesText is GA4's published list of search, social, video and shopping sources.
//
//go:embed categories.txt
var categoriesText string

var ga4Categories = mustParseCategories(categoriesText)

// mustParseCategories reads "category: name, name" lines; a mistake in the shipped file stops
// the program at start rather than misfiling visits quietly.
func mustParseCategories(text string) map[string]category {
	byName := map[string]category{"search": searchSite, "social": socialSite, "video": videoSite, "shopping": shoppingSite}
	out := make(map[string]category, 1024)
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		head, names, ok := strings.Cut(line, ":")
		cat, known := byName[head]
		if !ok || !known {
			panic(fmt.Sprintf("sources: categories.txt line %d: want \"search|social|video|shopping: names\"", n+1))
		}
		for _, name := range strings.Split(names, ",") {
			if name = strings.TrimSpace(name); name != "" {
				out[name] = cat
			}
		}
	}
	return out
}

// categoryOf is the category of a lower-cased source: the known list's own first (it files
// AI assistants and e-mail, which GA4's list has not), then GA4's.
func categoryOf(lowerSource string) category {
	if k := byKey[lowerSource]; k != nil && k.category != noCategory {
		return k.category
	}
	return ga4Categories[lowerSource]
}
