package web

// The options of the script's tag (data- attributes), each on a page of its own in chromium:
// what each sends, byte for byte, and that links and forms still lead where they lead.

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// tagWith is the snippet with attrs on its tag, followed by markup.
func tagWith(attrs, markup string) func(string) string {
	return func(b string) string {
		return strings.Replace(Snippet(b), "></script>", " "+attrs+"></script>", 1) + markup
	}
}

// stay keeps the page when a link with class "stay" is clicked: the script's own listener
// (on the document) has run by then, so the test sees what it sent without a navigation.
const stay = `addEventListener("click", function (e) { if (e.target.closest(".stay")) e.preventDefault(); })`

// checkBodies waits for len(want) requests and compares their bodies with want, in any order,
// for the steps that leave the page (whose send attempts go with it).
func checkBodies(t *testing.T, f *fixture, want ...hit) {
	t.Helper()
	var got, w []string
	for _, r := range f.events.wait(t, len(want)) {
		got = append(got, engagementBody(r.Body))
	}
	for _, h := range want {
		w = append(w, h.body())
	}
	slices.Sort(got)
	slices.Sort(w)
	if !slices.Equal(got, w) {
		t.Fatalf("bodies:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(w, "\n     "))
	}
}

func TestTrackerOptionsInBrowser(t *testing.T) {
	browser := newBrowser(t)
	no := false

	t.Run("outbound links", func(t *testing.T) {
		f := newFixture(t, tagWith("data-outbound-links", `<a class="stay" id="in" href="/inside">in</a>`+
			`<a id="out" href="http://`+otherHost+`:SITEPORT/away?q=1">out</a>`))
		tb := newTab(t, browser, stay)
		page := f.base + "/page"
		tb.navigate(page)
		scr := tb.screen()
		want := []hit{{Page: page, Screen: scr}}
		check(t, f, tb, "/api/event", beacon, want...)
		// A link of the site itself is not outbound.
		tb.do(chromedp.Click(chromedp.CSS("#in")))
		check(t, f, tb, "/api/event", beacon, want...)
		out := "http://" + otherHost + ":" + f.base[strings.LastIndex(f.base, ":")+1:] + "/away?q=1"
		tb.do(chromedp.Click(chromedp.CSS("#out")))
		tb.until(`location.href == "` + out + `"`)
		checkBodies(t, f, append(want, engagement(page),
			hit{Page: page, Screen: scr, Event: &event{Name: "Outbound Link: Click"}, Props: map[string]string{"url": out}})...)
	})

	t.Run("file downloads, the default list", func(t *testing.T) {
		f := newFixture(t, tagWith("data-file-downloads", `<a class="stay" id="md" href="/files/notes.md">notes</a>`+
			`<a id="pdf" href="/files/report.pdf?v=2#top">report</a>`))
		tb := newTab(t, browser, stay)
		page := f.base + "/page"
		tb.navigate(page)
		scr := tb.screen()
		want := []hit{{Page: page, Screen: scr}}
		tb.do(chromedp.Click(chromedp.CSS("#md")))
		check(t, f, tb, "/api/event", beacon, want...)
		tb.do(chromedp.Click(chromedp.CSS("#pdf")))
		tb.until(`location.pathname == "/files/report.pdf"`)
		checkBodies(t, f, append(want, engagement(page),
			hit{Page: page, Screen: scr, Event: &event{Name: "File Download"}, Props: map[string]string{"url": f.base + "/files/report.pdf"}})...)
	})

	t.Run("file downloads, a given list", func(t *testing.T) {
		f := newFixture(t, tagWith(`data-file-downloads="md, txt"`, `<a class="stay" id="pdf" href="/files/report.pdf">report</a>`+
			`<a class="stay" id="md" href="/files/notes.MD">notes</a>`))
		tb := newTab(t, browser, stay)
		page := f.base + "/page"
		tb.navigate(page)
		scr := tb.screen()
		tb.do(chromedp.Click(chromedp.CSS("#pdf")), chromedp.Click(chromedp.CSS("#md")))
		check(t, f, tb, "/api/event", beacon, hit{Page: page, Screen: scr},
			hit{Page: page, Screen: scr, Event: &event{Name: "File Download"}, Props: map[string]string{"url": f.base + "/files/notes.MD"}})
	})

	t.Run("form submissions", func(t *testing.T) {
		f := newFixture(t, tagWith("data-form-submissions", `<form action="/sent"><input name="q" value="x"><button id="send">Send</button></form>`))
		tb := newTab(t, browser)
		page := f.base + "/contact?from=menu"
		tb.navigate(page)
		scr := tb.screen()
		tb.do(chromedp.Click(chromedp.CSS("#send")))
		tb.until(`location.pathname == "/sent"`)
		checkBodies(t, f, hit{Page: page, Screen: scr}, engagement(page),
			hit{Page: page, Screen: scr, Event: &event{Name: "Form: Submission"}, Props: map[string]string{"path": "/contact"}},
			hit{Page: f.base + "/sent?q=x", Referrer: page, Screen: scr})
	})

	t.Run("tagged elements", func(t *testing.T) {
		f := newFixture(t, tagWith("", `<button class="x pa-event-name=Signup+Click pa-event-plan=pro">sign up</button>`+
			`<div class="plausible-event-name--Old plausible-event-where=footer"><p><b id="inner">inside</b></p></div>`+
			`<a class="stay pa-event-name=Docs pa-event-from=nav" id="docs" href="/docs">docs</a>`+
			`<button id="plain" class="pa-event-plan=none">plain</button>`))
		tb := newTab(t, browser, stay)
		page := f.base + "/page"
		tb.navigate(page)
		scr := tb.screen()
		tb.do(chromedp.Click(chromedp.CSS("button.x")), chromedp.Click(chromedp.CSS("#inner")),
			chromedp.Click(chromedp.CSS("#docs")), chromedp.Click(chromedp.CSS("#plain")))
		check(t, f, tb, "/api/event", beacon, hit{Page: page, Screen: scr},
			hit{Page: page, Screen: scr, Event: &event{Name: "Signup Click"}, Props: map[string]string{"plan": "pro"}},
			hit{Page: page, Screen: scr, Event: &event{Name: "Old"}, Props: map[string]string{"where": "footer"}},
			hit{Page: page, Screen: scr, Event: &event{Name: "Docs"}, Props: map[string]string{"from": "nav", "url": f.base + "/docs"}})
	})

	t.Run("hash routing", func(t *testing.T) {
		f := newFixture(t, tagWith("data-hash", ""))
		tb := newTab(t, browser)
		a, b := f.base+"/app#/a", f.base+"/app#/b"
		tb.navigate(a)
		scr := tb.screen()
		want := []hit{{Page: a, Screen: scr, Hash: true}}
		check(t, f, tb, "/api/event", beacon, want...)
		tb.eval(`location.hash = "/b"`)
		want = append(want, hit{engaged: a, hashed: true}, hit{Page: b, Referrer: a, Screen: scr, Hash: true})
		check(t, f, tb, "/api/event", beacon, want...)
		tb.eval(`pa.track("Open", {props: {tab: "b"}})`)
		want = append(want, hit{Page: b, Referrer: a, Screen: scr, Event: &event{Name: "Open"}, Props: map[string]string{"tab": "b"}, Hash: true})
		check(t, f, tb, "/api/event", beacon, want...)
	})

	t.Run("manual pageviews", func(t *testing.T) {
		f := newFixture(t, tagWith("data-manual", ""))
		tb := newTab(t, browser)
		page := f.base + "/page"
		tb.navigate(page)
		tb.until(`window.pa && pa.pageview`)
		tb.eval(`history.pushState({}, "", "/moved")`)
		check(t, f, tb, "/api/event", nil)
		scr := tb.screen()
		moved := f.base + "/moved"
		tb.eval(`pa.pageview(); pa.pageview({url: "/virtual?x=1", props: {author: "me"}})`)
		check(t, f, tb, "/api/event", beacon, hit{Page: moved, Screen: scr}, engagement(moved),
			hit{Page: f.base + "/virtual?x=1", Referrer: moved, Screen: scr, Props: map[string]string{"author": "me"}})
	})

	t.Run("exclusions", func(t *testing.T) {
		f := newFixture(t, tagWith(`data-exclude="/admin/*, /private|/secret"`, ""))
		tb := newTab(t, browser)
		tb.navigate(f.base + "/admin/users")
		tb.until(`window.pa && pa.pageview`)
		tb.eval(`pa.track("Edit"); history.pushState({}, "", "/private"); pa.track({name: "Save"})`)
		check(t, f, tb, "/api/event", nil)
		scr := tb.screen()
		tb.eval(`history.pushState({}, "", "/admin")`)
		admin := f.base + "/admin"
		check(t, f, tb, "/api/event", beacon, hit{Page: admin, Referrer: f.base + "/private", Screen: scr})
		tb.eval(`history.pushState({}, "", "/secret")`)
		check(t, f, tb, "/api/event", beacon, hit{Page: admin, Referrer: f.base + "/private", Screen: scr}, engagement(admin))
	})

	t.Run("pa.track with options", func(t *testing.T) {
		f := newFixture(t, Snippet)
		tb := newTab(t, browser)
		page := f.base + "/"
		tb.navigate(page)
		scr := tb.screen()
		tb.eval(`pa.track("Purchase", {props: {plan: "pro"}, revenue: {amount: 5.5, currency: "EUR"}, interactive: false}); pa.track("Play", {interactive: true})`)
		check(t, f, tb, "/api/event", beacon, hit{Page: page, Screen: scr},
			hit{Page: page, Screen: scr, Event: &event{Name: "Purchase"}, Props: map[string]string{"plan": "pro"},
				Revenue: &revenue{Amount: 5.5, Currency: "EUR"}, Interactive: &no},
			hit{Page: page, Screen: scr, Event: &event{Name: "Play"}})
	})

	t.Run("localhost sends nothing without data-local", func(t *testing.T) {
		f := newFixture(t, Snippet)
		tb := newTab(t, browser)
		tb.navigate(f.site.URL + "/")
		tb.until(`window.pa && pa.pageview`)
		tb.eval(`pa.track("Purchase"); pa.pageview()`)
		check(t, f, tb, "/api/event", nil)

		f = newFixture(t, tagWith("data-local", ""))
		tb = newTab(t, browser)
		tb.navigate(f.site.URL + "/")
		check(t, f, tb, "/api/event", beacon, hit{Page: f.site.URL + "/", Screen: tb.screen()})
	})

	t.Run("a page scrolled and hidden", func(t *testing.T) {
		f := newFixture(t, tagWith("", `<div style="height: 5000px">tall</div>`))
		tb := newTab(t, browser)
		// Headless chromium's page never has the focus unless emulated: nothing would count as
		// engaged time.
		tb.do(chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
			_, err := cdp.Call(ctx, target, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
			return err
		}))
		page := f.base + "/long"
		tb.navigate(page)
		check(t, f, tb, "/api/event", beacon, hit{Page: page, Screen: tb.screen()})
		// Hidden is what the browser says of a tab in the background or being left.
		tb.eval(`Object.defineProperty(document, "visibilityState", {configurable: true, get: function () { return window.hidden ? "hidden" : "visible"; }})`)
		hide := func() { tb.eval(`hidden = true; document.dispatchEvent(new Event("visibilitychange"))`) }
		show := func() { tb.eval(`hidden = false; document.dispatchEvent(new Event("visibilitychange"))`) }
		engagements := func(n int) []map[string]any {
			var out []map[string]any
			for _, r := range f.events.wait(t, n+1)[1:] {
				var m map[string]any
				if err := json.Unmarshal([]byte(r.Body), &m); err != nil || m["n"] != "engagement" || m["u"] != page || m["d"] != siteHost {
					t.Fatalf("not an engagement of %s: %s", page, r.Body)
				}
				out = append(out, m)
			}
			return out
		}
		hide() // the first: anything seen is further than nothing
		show()
		// The scroll event, which the script reads, comes with the next frame.
		tb.eval(`addEventListener("scroll", function () { window.scrolled = scrollY > 4000; }); scrollTo(0, document.body.scrollHeight)`)
		tb.until(`window.scrolled`)
		hide() // scrolled to the bottom
		show()
		hide() // neither further nor 3 s engaged: nothing
		show()
		time.Sleep(3100 * time.Millisecond)
		hide() // engaged 3 s
		got := engagements(3)
		sds := []any{got[0]["sd"], got[1]["sd"], got[2]["sd"]}
		// The viewport's 600 px of a page about 5100 px tall, then all of it.
		if sd := sds[0].(float64); sd < 5 || sd > 20 || sds[1] != 100.0 || sds[2] != 100.0 {
			t.Errorf("scroll depths %v, want about 12, then 100 twice", sds)
		}
		if e := got[2]["e"].(float64); e < 3000 || e > 10000 {
			t.Errorf("engaged %v ms, want about 3100", e)
		}
		if s := tb.sent(); len(s) != 4 {
			t.Errorf("send attempts %q, want a pageview and three engagements", s)
		}
	})
}

// The lines the tracker writes when it sends nothing.
const (
	infoLocal   = "Analytics: nothing sent: local page, no data-local"
	infoDNT     = "Analytics: nothing sent: Do Not Track"
	infoExclude = "Analytics: nothing sent: data-exclude"
)

// waitInfos waits for the tab's console to hold want, then a little for anything more.
func waitInfos(t *testing.T, tb *tab, want ...string) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for len(tb.consoleInfos()) < len(want) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if got := tb.consoleInfos(); !slices.Equal(got, want) {
		t.Errorf("console.info lines %q, want %q", got, want)
	}
}

// Whenever the tracker sends nothing it writes one console.info line saying why, read here
// from Chromium's console: a local page without data-local (localhost, a file: page), Do Not
// Track under data-dnt, a path of data-exclude. A page that is counted writes none.
func TestTrackerSaysWhyItSendsNothing(t *testing.T) {
	browser := newBrowser(t)
	t.Run("localhost without data-local", func(t *testing.T) {
		f := newFixture(t, Snippet)
		tb := newTab(t, browser)
		tb.navigate("http://localhost:" + f.site.URL[strings.LastIndex(f.site.URL, ":")+1:] + "/")
		tb.until(`window.pa && typeof pa.track == "function"`)
		check(t, f, tb, "/api/event", nil)
		waitInfos(t, tb, infoLocal)
	})
	t.Run("localhost with data-local", func(t *testing.T) {
		f := newFixture(t, tagWith("data-local", ""))
		tb := newTab(t, browser)
		page := "http://localhost:" + f.site.URL[strings.LastIndex(f.site.URL, ":")+1:] + "/"
		tb.navigate(page)
		check(t, f, tb, "/api/event", beacon, hit{Page: page, Screen: tb.screen()})
		waitInfos(t, tb)
	})
	// A file: page: TestTrackerInBrowser's "file URL sends nothing".
	t.Run("Do Not Track", func(t *testing.T) {
		f := newFixture(t, withDNT)
		tb := newTab(t, browser, `Object.defineProperty(Navigator.prototype, "doNotTrack", {get: function () { return "1"; }})`)
		tb.navigate(f.base + "/")
		tb.until(`window.pa && typeof pa.track == "function"`)
		check(t, f, tb, "/api/event", nil)
		waitInfos(t, tb, infoDNT)
	})
	t.Run("data-exclude", func(t *testing.T) {
		f := newFixture(t, tagWith(`data-exclude="/admin/*"`, ""))
		tb := newTab(t, browser)
		tb.navigate(f.base + "/admin/users")
		tb.until(`window.pa && pa.pageview`)
		check(t, f, tb, "/api/event", nil)
		waitInfos(t, tb, infoExclude)
	})
	t.Run("a counted page", func(t *testing.T) {
		f := newFixture(t, Snippet)
		tb := newTab(t, browser)
		page := f.base + "/"
		tb.navigate(page)
		check(t, f, tb, "/api/event", beacon, hit{Page: page, Screen: tb.screen()})
		waitInfos(t, tb)
	})
}
