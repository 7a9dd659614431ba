package repository

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// A goal's visitors and events are summed over days, and a closed day's never change (as its
// pages, goal_pages.go): so the goals list's numbers of a website's closed days are kept in
// memory, for the same days and goals, and an unfiltered list reads only the days still open.
// Entries expire after closedPagesTTL all the same, and the cache is emptied past
// closedConversionsMax entries.

const closedConversionsMax = 1_000

type closedConversion struct {
	counts  *goalCounts // never changed once kept
	fetched time.Time
}

// closedConversions is the cache; its zero value is empty and ready.
type closedConversions struct {
	mu      sync.Mutex
	entries map[string]closedConversion
}

func (c *closedConversions) get(key string, now time.Time) (*goalCounts, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || now.Sub(e.fetched) >= closedPagesTTL {
		return nil, false
	}
	return e.counts, true
}

func (c *closedConversions) put(key string, counts *goalCounts, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= closedConversionsMax {
		c.entries = map[string]closedConversion{}
	}
	c.entries[key] = closedConversion{counts: counts, fetched: now}
}

// conversionKey names a website's days and goals (what each goal compares, in order): the
// numbers of the same key are the same.
func conversionKey(websiteID int64, days []string, goals []stats.Goal) string {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(websiteID, 10))
	for _, d := range days {
		b.WriteString(" " + d)
	}
	for _, g := range goals {
		b.WriteString("\x00" + g.Kind + "\x00" + g.Page + "\x00" + g.Event)
	}
	return b.String()
}
