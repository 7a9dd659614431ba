package handlers

import (
	"encoding/base64"
	"math"
	"net/http"
	"sort"

	"github.com/analytics-service/analytics/gen"
)

// The cursor paging of Plausible's Sites API lists (`after`, `before`, `limit`; meta says
// where the page is). A cursor is the opaque spelling of one entry's key; the lists are read
// whole (a user's websites, a website's goals and guests) and paged here, so the three pages
// have one rule.

const (
	defaultCursorLimit = 100
	// maxCursorList bounds a list read whole for paging.
	maxCursorList = math.MaxInt32
)

func encodeCursor(key string) *string {
	c := base64.RawURLEncoding.EncodeToString([]byte(key))
	return &c
}

// cursorPage is the page of items (in the list's order, each with a unique key) after or
// before a cursor: after, the limit entries past it; before, the limit entries just ahead
// of it. A cursor that names no entry of the list is a 400 (the entry may have been deleted:
// the client starts again).
func cursorPage[T any](items []T, key func(T) string, after, before *string, limit *int) ([]T, gen.PlausiblePageMeta, error) {
	n := defaultCursorLimit
	if limit != nil {
		n = *limit // 1..1000: the validator checked it
	}
	meta := gen.PlausiblePageMeta{Limit: n}
	if after != nil && before != nil {
		return nil, meta, sitesError(http.StatusBadRequest, "Invalid request: give either after or before, not both.")
	}
	find := func(name string, cursor string) (int, error) {
		raw, err := base64.RawURLEncoding.DecodeString(cursor)
		if err == nil {
			for i, it := range items {
				if key(it) == string(raw) {
					return i, nil
				}
			}
		}
		return 0, sitesError(http.StatusBadRequest, "Invalid request: "+name+" is not a cursor of this list (its entry may have been deleted: start again without it).")
	}
	from, to := 0, min(n, len(items))
	switch {
	case after != nil:
		i, err := find("after", *after)
		if err != nil {
			return nil, meta, err
		}
		from, to = i+1, min(i+1+n, len(items))
	case before != nil:
		i, err := find("before", *before)
		if err != nil {
			return nil, meta, err
		}
		from, to = max(0, i-n), i
	}
	page := items[from:to]
	if len(page) > 0 && to < len(items) {
		meta.After = encodeCursor(key(page[len(page)-1]))
	}
	if len(page) > 0 && from > 0 {
		meta.Before = encodeCursor(key(page[0]))
	}
	return page, meta, nil
}

// newestFirst orders a list by a key that grows with time (an id, a time), newest first.
func newestFirst[T any](items []T, key func(T) int64) {
	sort.SliceStable(items, func(i, j int) bool { return key(items[i]) > key(items[j]) })
}
