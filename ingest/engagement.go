package ingest

import (
	"math"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Time on page and scroll depth. The trackers send an engagement hit as a page is hidden or
// left: the time the visitor was engaged since the last one, and how far down the page they
// have seen. Both count per visit and page, like the other counters, on the visit's day:
// a page's time_on_page is engaged_ms over engaged_visit (the visits that sent engaged time
// for it), its scroll_depth scroll_sum over scroll_visit, where each visit adds its deepest
// scroll depth on the page once (the difference when a later hit goes deeper). The visit's
// row gets the visit's totals per page with its next write (engagedRow), for filtered lists.

// pageEngagement is what an open visit sent for one page: whether it was counted among the
// page's engaged visits, its engaged milliseconds so far and its deepest scroll depth (-1:
// none yet). The visit's row holds the same (engagedRow), for filtered page lists.
type pageEngagement struct {
	page    string
	timed   bool
	millis  int32 // saturates at math.MaxInt32 (24 days)
	deepest int8
}

// engage counts an engagement hit of the open visit v: s.mu is held.
func (vs *Visits) engage(s *visitShard, v *visit, h *visitHit) {
	if h.engagedMillis < 0 && h.scrollDepth < 0 {
		return
	}
	pages := s.engaged[v.id]
	i := 0
	for i < len(pages) && pages[i].page != h.page {
		i++
	}
	if i == len(pages) {
		// The pages one open visit keeps engagement for, and so its row's engagement, are
		// bounded (stats.MaxRowEngagedPages, MaxRowEngagedBytes): far more than a person
		// reads in one visit. The engagement of further pages is not counted.
		if !roomForEngagedPage(pages, h.page) {
			vs.metrics.cutRow(rowPartEngagement, 1)
			return
		}
		if s.engaged == nil {
			s.engaged = make(map[uint64][]pageEngagement)
		}
		pages = append(pages, pageEngagement{page: h.page, deepest: -1})
		s.engaged[v.id] = pages
	}
	p := &pages[i]
	page := stats.Storable(h.page) // as the page statistic counts it
	var deltas [4]delta
	n := 0
	add := func(name stats.Name, count int64) {
		deltas[n] = delta{Key{WebsiteID: v.websiteID, Name: name, Day: v.day, Value: page}, count}
		n++
	}
	if h.engagedMillis >= 0 {
		if !p.timed {
			p.timed = true
			add(stats.EngagedVisit, 1)
		}
		if h.engagedMillis > 0 {
			add(stats.EngagedMillis, int64(h.engagedMillis))
			p.millis = int32(min(int64(p.millis)+int64(h.engagedMillis), math.MaxInt32))
		}
	}
	if h.scrollDepth > p.deepest {
		if p.deepest < 0 {
			add(stats.ScrollVisit, 1)
			p.deepest = 0
		}
		if h.scrollDepth > p.deepest {
			add(stats.ScrollSum, int64(h.scrollDepth-p.deepest))
		}
		p.deepest = h.scrollDepth
	}
	if n > 0 {
		v.flags |= rowEngaged
	}
	vs.counters.addDeltas(deltas[:n])
}

// engagedRow is v's engagement as its row holds it, every page of it, when it changed since
// the row last got it (the row's write replaces what it held); nil when it did not. s.mu is
// held. The pages are as the page statistic counts them, so that a filtered page list finds
// them.
func (vs *Visits) engagedRow(s *visitShard, v *visit) []repository.EngagedPage {
	if v.flags&rowEngaged == 0 {
		return nil
	}
	v.flags &^= rowEngaged
	pages := s.engaged[v.id]
	out := make([]repository.EngagedPage, len(pages))
	for i, p := range pages {
		out[i] = repository.EngagedPage{Page: stats.Storable(p.page), Millis: -1, Depth: p.deepest}
		if p.timed {
			out[i].Millis = p.millis
		}
	}
	return out
}

// roomForEngagedPage tells whether a visit that kept engagement for pages may keep it for
// page too.
func roomForEngagedPage(pages []pageEngagement, page string) bool {
	if len(pages) >= stats.MaxRowEngagedPages {
		return false
	}
	n := len(page)
	for _, p := range pages {
		n += len(p.page)
	}
	return n <= stats.MaxRowEngagedBytes
}
