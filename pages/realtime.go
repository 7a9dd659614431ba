package pages

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/analytics-service/analytics/pages/display"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// realtimePage is the data of realtime.html: GET /stats/{domain}/realtime (docs/visits.md), under the dashboard's access rules; the recent pageviews only for the
// signed-in owner.
type realtimePage struct {
	Domain    string
	Dashboard string // the dashboard's address
	Today     string // the dashboard of today, by the hour: the interval switch's Hours
	Self      string // this view's address: the interval switch's Minutes
	Visitors  int64
	Total     int64          // pageviews of the 30 minutes
	Minutes   []minutesChart // wide and compact
	Table     []minuteRow
	Owner     bool
	Recent    []recentRow
	UpdatedAt string // "14:03:07" in TZ
}

type recentRow struct {
	Ago      string // "12 s ago", "3 min ago"
	Page     string
	Referrer string
	Country  string
	Browser  string
	Device   string
}

type minuteRow struct {
	Label     string // "14:03"
	Pageviews int64
}

// minutesChart is the SVG of pageviews per minute, in one of chartShapes.
type minutesChart struct {
	Class                      string
	Width, Height, Left, Right string
	LabelX, TickY              string
	Bars                       []minuteBar
	Lines                      []chartLine
	Summary                    string
}

type minuteBar struct {
	X, Y, Width, Height string
	Title               string
}

func (p *Pages) realtime(w http.ResponseWriter, r *http.Request) {
	site, ok := p.site(w, r)
	if !ok {
		return
	}
	owner := hasRole(site)
	rt, err := p.base.Repo.Realtime(r.Context(), site.ID, owner)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	now := p.base.Now().In(p.zone(site).At(p.base.Now())) // the website's clock
	data := realtimePage{
		Domain: site.Domain, Dashboard: viewOf(r, site).url("", url.Values{}), Visitors: rt.Visitors, Owner: owner,
		UpdatedAt: now.Format("15:04:05"),
	}
	today := p.today(site).Format(time.DateOnly)
	data.Today = viewOf(r, site).url("", url.Values{"from": {today}, "to": {today}})
	data.Self = viewOf(r, site).url("/realtime", url.Values{})
	first := now.Truncate(time.Minute).Add(-repository.RealtimeWindow + time.Minute)
	for i, n := range rt.Pageviews {
		data.Total += n
		data.Table = append(data.Table, minuteRow{Label: first.Add(time.Duration(i) * time.Minute).Format("15:04"), Pageviews: n})
	}
	for _, shape := range chartShapes {
		data.Minutes = append(data.Minutes, newMinutesChart(shape, data.Table, data.Total))
	}
	for _, v := range rt.Recent {
		data.Recent = append(data.Recent, recentRow{
			Ago: ago(v.SecondsAgo), Page: v.Page, Referrer: display.Value(stats.Referrer, v.Referrer),
			Country: display.Value(stats.Country, v.Country), Browser: display.Value(stats.Browser, v.Browser),
			Device: display.Value(stats.Device, v.Device),
		})
	}
	p.render(w, r, http.StatusOK, "realtime.html", "Realtime · "+site.Domain, data)
}

// newMinutesChart lays out one bar per minute, oldest on the left, in a shape of the
// dashboard's chart (so its labels keep their size on a phone).
func newMinutesChart(shape chartShape, rows []minuteRow, total int64) minutesChart {
	var top int64
	for _, m := range rows {
		top = max(top, m.Pageviews)
	}
	scale := niceCeiling(top)
	height := shape.Height * 0.75
	bottom := height - chartBottom
	plot := bottom - chartTop
	slot := (shape.Width - chartLeft) / float64(max(len(rows), 1))
	c := minutesChart{
		Class: shape.Class, Width: num(shape.Width), Height: num(height), Left: num(chartLeft), Right: num(shape.Width),
		LabelX: num(chartLeft - 6), TickY: num(bottom + 15),
		Summary: fmt.Sprintf("Pageviews per minute over the last 30 minutes: %s in all, at most %s in one minute.",
			formatCount(total), formatCount(top)),
	}
	for i := 0; i <= 2; i++ {
		n := scale * int64(i) / 2
		c.Lines = append(c.Lines, chartLine{Y: num(bottom - float64(n)/float64(scale)*plot), Label: formatCount(n)})
	}
	gap := min(slot*0.15, 3)
	for i, m := range rows {
		h := float64(m.Pageviews) / float64(scale) * plot
		c.Bars = append(c.Bars, minuteBar{
			X: num(chartLeft + float64(i)*slot + gap), Y: num(bottom - h), Width: num(slot - 2*gap), Height: num(h),
			Title: m.Label + ": " + countOf(m.Pageviews, "pageview", "pageviews"),
		})
	}
	return c
}

// ago says how long ago, roughly: "12 s ago", "3 min ago".
func ago(seconds int64) string {
	if seconds < 60 {
		return fmt.Sprintf("%d s ago", seconds)
	}
	return fmt.Sprintf("%d min ago", seconds/60)
}
