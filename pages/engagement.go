package pages

import (
	"strconv"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/web"
)

// The Top pages card's time on page and scroll depth (the trackers' engagement hits), as the
// API's page list gives them.

// pageValues are the values of a list's entries.
func pageValues(entries []repository.StatEntry) []string {
	values := make([]string, len(entries))
	for i, e := range entries {
		values[i] = e.Value
	}
	return values
}

// withEngagement gives the rows of the top pages their time on page and scroll depth ("–" for
// none).
func withEngagement(rows []topRow, engaged map[string]repository.PageEngagement) []topRow {
	for i := range rows {
		e := engaged[rows[i].Value]
		rows[i].TimeOnPage, rows[i].ScrollDepth = "–", "–"
		if e.TimeOnPage != nil {
			rows[i].TimeOnPage = web.Duration(int64(*e.TimeOnPage))
		}
		if e.ScrollDepth != nil {
			rows[i].ScrollDepth = strconv.Itoa(*e.ScrollDepth) + "\u202f%"
		}
	}
	return rows
}
