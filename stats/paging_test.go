package stats_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/analytics-service/analytics/stats"
)

// The page sizes, the default size and the largest page are the spec's.
func TestPagingIsTheSpecs(t *testing.T) {
	spec := spec(t)
	size := spec.Components.Schemas["PageSize"].Value
	var sizes []string
	for _, v := range size.Enum {
		sizes = append(sizes, fmt.Sprint(v))
	}
	var ours []string
	for _, n := range stats.PerPageValues {
		ours = append(ours, fmt.Sprint(n))
	}
	if !slices.Equal(ours, sizes) || fmt.Sprint(size.Default) != fmt.Sprint(stats.DefaultPerPage) {
		t.Errorf("per page %v default %d, the spec's PageSize is %v default %v", ours, stats.DefaultPerPage, sizes, size.Default)
	}
	page := spec.Components.Parameters["Page"].Value.Schema.Value
	if page.Max == nil || *page.Max != stats.MaxPage || page.Min == nil || *page.Min != 1 {
		t.Errorf("pages 1..%d, the spec's page is %v..%v", stats.MaxPage, page.Min, page.Max)
	}
}

func TestPaging(t *testing.T) {
	for _, c := range []struct {
		number, size int
		total        int64
		offset, last int
		first, end   int64
		prev, next   int // 0: none
	}{
		{1, 10, 0, 0, 1, 0, 0, 0, 0},
		{1, 10, 7, 0, 1, 1, 7, 0, 0},
		{1, 10, 10, 0, 1, 1, 10, 0, 0},
		{1, 10, 11, 0, 2, 1, 10, 0, 2},
		{2, 10, 11, 10, 2, 11, 11, 1, 0},
		{2, 25, 120, 25, 5, 26, 50, 1, 3},
		{9, 10, 25, 80, 3, 0, 0, 3, 0}, // past the end: back to the last page
		{stats.MaxPage, 100, 5, (stats.MaxPage - 1) * 100, 1, 0, 0, 1, 0},
	} {
		p := stats.Paging{Number: c.number, Size: c.size}
		first, end := p.Shown(c.total)
		prev, _ := p.Prev(c.total)
		next, _ := p.Next(c.total)
		if p.Offset() != c.offset || p.LastPage(c.total) != c.last || first != c.first || end != c.end || prev != c.prev || next != c.next {
			t.Errorf("page %d of %d, %d items: offset %d, last %d, shown %d..%d, prev %d, next %d; want %d, %d, %d..%d, %d, %d",
				c.number, c.size, c.total, p.Offset(), p.LastPage(c.total), first, end, prev, next,
				c.offset, c.last, c.first, c.end, c.prev, c.next)
		}
	}
	for n, want := range map[int]bool{0: false, 1: true, stats.MaxPage: true, stats.MaxPage + 1: false, -1: false} {
		if stats.ValidPage(n) != want {
			t.Errorf("ValidPage(%d) = %v", n, !want)
		}
	}
	for n, want := range map[int]bool{10: true, 25: true, 50: true, 100: true, 0: false, 20: false} {
		if stats.ValidPerPage(n) != want {
			t.Errorf("ValidPerPage(%d) = %v", n, !want)
		}
	}
}
