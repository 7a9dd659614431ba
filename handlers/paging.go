package handlers

import (
	"net/url"
	"strconv"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/stats"
)

// paging is the page a list request asks for; the validator has checked both against the spec.
func paging(number *int, size *int) stats.Paging {
	p := stats.Paging{Number: 1, Size: stats.DefaultPerPage}
	if number != nil {
		p.Number = *number
	}
	if size != nil {
		p.Size = *size
	}
	return p
}

// envelope builds the list meta and links. Links repeat the request's own query with only
// `page` changed, so every filter and sort survives paging.
func envelope(p stats.Paging, u *url.URL, total int64) (gen.ListMeta, gen.ListLinks) {
	lastPage := p.LastPage(total)
	meta := gen.ListMeta{CurrentPage: p.Number, PerPage: p.Size, Total: total, LastPage: lastPage}
	if first, last := p.Shown(total); first > 0 {
		from, to := int(first), int(last)
		meta.From, meta.To = &from, &to
	}
	link := func(n int) string {
		q := u.Query()
		q.Set("page", strconv.Itoa(n))
		l := *u
		l.RawQuery = q.Encode()
		return l.String()
	}
	links := gen.ListLinks{First: link(1), Last: link(lastPage)}
	if n, ok := p.Prev(total); ok {
		prev := link(n)
		links.Prev = &prev
	}
	if n, ok := p.Next(total); ok {
		next := link(n)
		links.Next = &next
	}
	return meta, links
}
