// Package plausibletest builds Plausible CSV exports for tests, in the format of Plausible's
// own exporter (lib/plausible/exports.ex: one imported_<table>_<first>_<last>.csv per table,
// ClickHouse's CSVWithNames, strings quoted, numbers bare), and computes, from the CSV rows
// alone, what importing one must show through the API.
package plausibletest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Export is the files of an export: name -> header and rows.
type Export struct {
	First, Last time.Time
	Files       map[string][][]string
}

// The headers as Plausible's exporter writes them (the pages file's columns in another order
// than the others', as an Ecto map select gives them: the import matches names, not places).
var headers = map[string][]string{
	"visitors":          {"date", "visitors", "pageviews", "bounces", "visits", "visit_duration"},
	"sources":           {"date", "source", "referrer", "utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term", "pageviews", "visitors", "visits", "visit_duration", "bounces"},
	"pages":             {"date", "hostname", "page", "pageviews", "total_scroll_depth", "total_scroll_depth_visits", "visitors", "visits"},
	"entry_pages":       {"date", "entry_page", "visitors", "entrances", "visit_duration", "bounces", "pageviews"},
	"exit_pages":        {"date", "exit_page", "visitors", "visit_duration", "exits", "bounces", "pageviews"},
	"custom_events":     {"date", "name", "link_url", "path", "visitors", "events"},
	"locations":         {"date", "country", "region", "city", "visitors", "visits", "visit_duration", "bounces", "pageviews"},
	"devices":           {"date", "device", "visitors", "visits", "visit_duration", "bounces", "pageviews"},
	"browsers":          {"date", "browser", "browser_version", "visitors", "visits", "visit_duration", "bounces", "pageviews"},
	"operating_systems": {"date", "operating_system", "operating_system_version", "visitors", "visits", "visit_duration", "bounces", "pageviews"},
}

// LongPage is a page of 300 characters: imported cut to 255, as collected.
var LongPage = "/" + strings.Repeat("p", 299)

// Sample is an export of days days from first, for a website of domain site.test, with every
// table and the odd values a real one has: several versions of a browser, names Plausible
// spells otherwise, a screen-size class, an unknown country, engagement events, a 70-character
// event name, quotes, commas and non-ASCII in pages, a page of 300 characters, a self-referral.
func Sample(first time.Time, days int) *Export {
	e := &Export{First: first, Last: first.AddDate(0, 0, days-1), Files: map[string][][]string{}}
	n := strconv.Itoa
	for i := range days {
		d := first.AddDate(0, 0, i).Format(time.DateOnly)
		e.add("visitors", d, n(100+i), n(300+3*i), n(40+i%7), n(120+i), n(6000+11*i))
		// date,source,referrer,utm_source,utm_medium,utm_campaign,utm_content,utm_term,pageviews,visitors,visits,visit_duration,bounces
		e.add("sources", d, "", "", "", "", "", "", "", "90", "40", n(50+i), "900", "20")
		e.add("sources", d, "Google", "google.com/", "", "", "", "", "", "60", "25", n(30+i%5), "700", "10")
		e.add("sources", d, "Hacker News", "news.ycombinator.com/item", "hn", "social", "launch", "", "", "30", "10", "10", "500", "3")
		e.add("sources", d, "example.org", "", "", "", "", "", "", "9", "4", "5", "60", "2")
		e.add("sources", d, "Newsletter", "", "newsletter", "email", "spring", "", "", "6", "3", "3", "30", "1")
		e.add("sources", d, "site.test", "www.site.test/a", "", "", "", "", "", "3", "1", n(22+i%3), "10", "0")
		// date,hostname,page,pageviews,total_scroll_depth,total_scroll_depth_visits,visitors,visits
		e.add("pages", d, "site.test", "/", n(100+i), `\N`, "0", "80", "90")
		e.add("pages", d, "site.test", "/blog/café", "50", "4000", "40", "30", "35")
		e.add("pages", d, "site.test", `/a,b "q"`, "10", `\N`, "0", "8", "9")
		e.add("pages", d, "site.test", LongPage, "1", `\N`, "0", "1", "1")
		e.add("pages", d, "site.test", "", "2", `\N`, "0", "1", "1")
		// date,entry_page,visitors,entrances,visit_duration,bounces,pageviews
		e.add("entry_pages", d, "/", "70", n(80+i), "3000", "30", "200")
		e.add("entry_pages", d, "/blog/café", "35", "40", "2000", "10", "80")
		// date,exit_page,visitors,visit_duration,exits,bounces,pageviews
		e.add("exit_pages", d, "/", "60", "2500", n(70+i), "30", "150")
		e.add("exit_pages", d, "/blog/café", "45", "2500", "50", "10", "130")
		// date,name,link_url,path,visitors,events
		e.add("custom_events", d, "Signup", "", "", "4", n(5+i%2))
		e.add("custom_events", d, "Outbound Link: Click", "https://elsewhere.example/", "", "3", "3")
		e.add("custom_events", d, "engagement", "", "", "90", "200")
		e.add("custom_events", d, strings.Repeat("e", 70), "", "", "1", "1")
		// date,country,region,city,visitors,visits,visit_duration,bounces,pageviews
		e.add("locations", d, "US", "US-NY", "5128581", "50", n(60+i), "3000", "20", "150")
		e.add("locations", d, "DE", "", "0", "35", "40", "2000", "10", "100")
		e.add("locations", d, "XX", "", "0", "1", "1", "0", "1", "1")
		// date,device,visitors,visits,visit_duration,bounces,pageviews
		e.add("devices", d, "Desktop", "45", n(50+i), "3000", "20", "150")
		e.add("devices", d, "Laptop", "25", "30", "1000", "10", "60")
		e.add("devices", d, "Mobile", "30", "35", "1500", "9", "70")
		e.add("devices", d, "Tablet", "4", "4", "100", "1", "8")
		e.add("devices", d, "(not set)", "1", "1", "0", "1", "1")
		// date,browser,browser_version,visitors,visits,visit_duration,bounces,pageviews
		e.add("browsers", d, "Chrome", "120.0", "25", n(30+i), "1000", "10", "60")
		e.add("browsers", d, "Chrome", "121.0", "35", "40", "1000", "10", "60")
		e.add("browsers", d, "Microsoft Edge", "120.0", "8", "10", "100", "1", "20")
		e.add("browsers", d, "Safari", "17.1", "20", "25", "100", "5", "40")
		e.add("browsers", d, "Samsung Browser", "23.0", "3", "3", "10", "1", "5")
		e.add("browsers", d, "(not set)", "(not set)", "2", "2", "0", "1", "2")
		// date,operating_system,operating_system_version,visitors,visits,visit_duration,bounces,pageviews
		e.add("operating_systems", d, "Mac", "14.1", "25", n(30+i), "1000", "10", "60")
		e.add("operating_systems", d, "Mac", "13.0", "8", "10", "100", "2", "20")
		e.add("operating_systems", d, "Windows", "11", "35", "40", "1000", "10", "60")
		e.add("operating_systems", d, "iOS", "17.1", "25", "30", "100", "5", "40")
		e.add("operating_systems", d, "GNU/Linux", "", "4", "5", "10", "1", "5")
	}
	return e
}

func (e *Export) add(table string, row ...string) {
	name := e.FileName(table)
	if e.Files[name] == nil {
		e.Files[name] = [][]string{headers[table]}
	}
	if len(row) != len(headers[table]) {
		panic(fmt.Sprintf("plausibletest: %s row %v has %d fields, the header %d", table, row, len(row), len(headers[table])))
	}
	e.Files[name] = append(e.Files[name], row)
}

// FileName is the name Plausible's exporter gives a table's file.
func (e *Export) FileName(table string) string {
	return fmt.Sprintf("imported_%s_%s_%s.csv", table, e.First.Format("20060102"), e.Last.Format("20060102"))
}

// Zip is the export as Plausible's download: a zip of the CSV files.
func (e *Export) Zip() []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, table := range tableOrder {
		name := e.FileName(table)
		rows, ok := e.Files[name]
		if !ok {
			continue
		}
		w, err := z.Create(name)
		if err != nil {
			panic(err)
		}
		if _, err := w.Write(CSV(rows)); err != nil {
			panic(err)
		}
	}
	if err := z.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

var tableOrder = []string{"visitors", "sources", "pages", "entry_pages", "exit_pages", "custom_events", "locations", "devices", "browsers", "operating_systems"}

// CSV writes rows as ClickHouse's CSVWithNames does: every field quoted, "" inside.
func CSV(rows [][]string) []byte {
	var b bytes.Buffer
	for _, row := range rows {
		for i, f := range row {
			if i > 0 {
				b.WriteByte(',')
			}
			if _, err := strconv.Atoi(f); err == nil || f == `\N` {
				b.WriteString(f)
				continue
			}
			b.WriteString(`"` + strings.ReplaceAll(f, `"`, `""`) + `"`)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Counts are what a statistic shows: value -> count.
type Counts = map[string]int64

// Want is what the API must show for the website site.test over the whole export, statistic by
// statistic, and the summary's internal counters (bounce, visit_seconds, timed_visit), read
// from the CSV rows with the contract's mapping written out here.
func (e *Export) Want() map[string]Counts {
	want := map[string]Counts{}
	add := func(name, value string, n int64) {
		if n == 0 {
			return
		}
		if want[name] == nil {
			want[name] = Counts{}
		}
		want[name][value] += n
	}
	e.each("visitors", func(r map[string]string) {
		add("visitor", r["date"], num(r["visitors"]))
		add("visit", r["date"], num(r["visits"]))
		add("pageview", r["date"], num(r["pageviews"]))
		add("bounce", r["date"], num(r["bounces"]))
		add("visit_seconds", r["date"], num(r["visit_duration"]))
		add("timed_visit", r["date"], num(r["visits"]))
	})
	referrers := map[string]string{"google.com/": "google.com", "news.ycombinator.com/item": "news.ycombinator.com",
		"www.site.test/a": ""}
	e.each("sources", func(r map[string]string) {
		ref, ok := referrers[r["referrer"]]
		if !ok {
			ref = r["source"] // no referrer URL: the source, a host or a name
		}
		add("referrer", ref, num(r["visits"]))
		if r["utm_campaign"] != "" {
			add("campaign", r["utm_campaign"], num(r["visits"]))
		}
		// Sources and channels as the collector names them; the tags as given.
		source, channel := r["source"], map[string]string{"": "Direct", "Google": "Organic Search", "Hacker News": "Organic Social",
			"example.org": "Referral", "Newsletter": "Email", "site.test": "Referral"}[r["source"]]
		add("source", source, num(r["visits"]))
		add("channel", channel, num(r["visits"]))
		for _, tag := range []string{"utm_source", "utm_medium", "utm_term", "utm_content"} {
			if r[tag] != "" {
				add(tag, r[tag], num(r["visits"]))
			}
		}
	})
	want["utm_campaign"] = want["campaign"] // another name for it
	pages := map[string]string{"/blog/café": "/blog/café", `/a,b "q"`: "/a,b%20%22q%22", LongPage: LongPage[:255], "": "/"}
	page := func(p string) string {
		if v, ok := pages[p]; ok {
			return v
		}
		return p
	}
	e.each("pages", func(r map[string]string) { add("page", page(r["page"]), num(r["pageviews"])) })
	e.each("entry_pages", func(r map[string]string) { add("landing_page", page(r["entry_page"]), num(r["entrances"])) })
	e.each("exit_pages", func(r map[string]string) { add("exit_page", page(r["exit_page"]), num(r["exits"])) })
	events := map[string]string{"Signup": "Signup::", "Outbound Link: Click": "Outbound Link  Click::",
		strings.Repeat("e", 70): strings.Repeat("e", 64) + "::"}
	e.each("custom_events", func(r map[string]string) {
		if v, ok := events[r["name"]]; ok {
			add("event", v, num(r["events"]))
		}
	})
	countries := map[string][2]string{"US": {"US:United States", "NA:North America"}, "DE": {"DE:Germany", "EU:Europe"}}
	e.each("locations", func(r map[string]string) {
		if c, ok := countries[r["country"]]; ok {
			add("country", c[0], num(r["visits"]))
			add("continent", c[1], num(r["visits"]))
		}
	})
	devices := map[string]string{"Desktop": "desktop", "Mobile": "mobile", "Tablet": "tablet", "(not set)": ""}
	e.each("devices", func(r map[string]string) {
		if v, ok := devices[r["device"]]; ok {
			add("device", v, num(r["visits"]))
		}
	})
	browsers := map[string]string{"Microsoft Edge": "Edge", "Samsung Browser": "Samsung Internet", "(not set)": ""}
	e.each("browsers", func(r map[string]string) {
		v, ok := browsers[r["browser"]]
		if !ok {
			v = r["browser"]
		}
		add("browser", v, num(r["visits"]))
	})
	systems := map[string]string{"Mac": "macOS", "GNU/Linux": "Linux"}
	e.each("operating_systems", func(r map[string]string) {
		v, ok := systems[r["operating_system"]]
		if !ok {
			v = r["operating_system"]
		}
		add("operating_system", v, num(r["visits"]))
	})
	return want
}

// each calls fn with every row of a table, by column name.
func (e *Export) each(table string, fn func(map[string]string)) {
	rows := e.Files[e.FileName(table)]
	if len(rows) == 0 {
		return
	}
	for _, row := range rows[1:] {
		r := map[string]string{}
		for i, name := range rows[0] {
			r[name] = row[i]
		}
		fn(r)
	}
}

func num(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic(fmt.Sprintf("plausibletest: %q is not a count", s))
	}
	return n
}
