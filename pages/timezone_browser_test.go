package pages_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/web/webtest"
)

// zoneField is what a person and a screen reader get of the time zone field.
type zoneField struct {
	Label      string   `json:"label"`      // the text of the input's label(s)
	List       string   `json:"list"`       // the id of the datalist the input is tied to
	Options    int      `json:"options"`    // how many zones that datalist offers
	Value      string   `json:"value"`      // the zone in the field
	Described  []string `json:"described"`  // the texts the input's aria-describedby names
	Error      string   `json:"error"`      // the refusal shown in the field's own block
	Invalid    bool     `json:"invalid"`    // aria-invalid="true"
	Overflow   int64    `json:"overflow"`   // how much wider than the screen the page is
	FieldWider bool     `json:"fieldWider"` // the input sticks out of its card
}

const readZoneField = `(() => {
	const input = document.querySelector("#timezone");
	const field = input.closest(".field");
	const error = field.querySelector(".error-text");
	const card = input.closest(".card").getBoundingClientRect();
	const box = input.getBoundingClientRect();
	return {
		label: [...input.labels].map(l => l.textContent.trim().replace(/\s+/g, " ")).join(" | "),
		list: input.list ? input.list.id : "",
		options: input.list ? input.list.options.length : 0,
		value: input.value,
		described: (input.getAttribute("aria-describedby") || "").split(" ").filter(Boolean)
			.map(id => (document.getElementById(id) || {textContent: "(missing " + id + ")"}).textContent.trim()),
		error: error ? error.textContent.trim() : "",
		invalid: input.getAttribute("aria-invalid") === "true",
		overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
		fieldWider: box.left < card.left || box.right > card.right,
	};
})()`

// The time zone field of the add and edit forms in Chromium, at a phone's width and a
// desktop's: labelled, tied to its list of zones, saying which zone it starts from, and no
// wider than the screen; a name that is not a zone is refused next to the field, in words,
// with nothing written. Screenshots of each state go to SCREENSHOT_DIR.
func TestWebsiteZoneFieldInChromium(t *testing.T) {
	check := newPageChecker(t)
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "example.com")
	edit := fmt.Sprintf("/websites/%d/edit", id)

	// A refusal answers 422, which Chromium logs as a console error: the tab is not watched
	// for them (webtest.WatchProblems).
	ctx := webtest.NewBrowser(t)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
	field := func(what string) zoneField {
		t.Helper()
		var f zoneField
		tabDo(t, ctx, viewportOf(375))
		tabEval(t, ctx, readZoneField, &f)
		if f.Overflow > 0 || f.FieldWider {
			t.Errorf("%s at 375px: the page is %dpx wider than the screen, or the field sticks out (%v)", what, f.Overflow, f.FieldWider)
		}
		if !strings.HasPrefix(f.Label, "Time zone") || f.List != "timezones" || f.Options < 300 {
			t.Errorf("%s: label %q, list %q with %d zones: want a labelled input tied to the list of zones", what, f.Label, f.List, f.Options)
		}
		return f
	}
	do(chromedp.Navigate(e.Server.URL+"/login"),
		chromedp.SendKeys(chromedp.CSS("#email"), owner.Email),
		chromedp.SendKeys(chromedp.CSS("#password"), owner.Password),
		chromedp.Submit(chromedp.CSS("#password")),
		chromedp.WaitVisible(chromedp.CSS("table.sites")))

	for _, form := range []struct{ name, path, submit, advice string }{
		// The add form starts from the service's zone, and says so.
		{"add", "/", `#add button[type=submit]`, "the service's zone, UTC"},
		{"edit", edit, `main form[action$="/edit"] button[type=submit]`, "A change takes effect at the start"},
	} {
		do(chromedp.Navigate(e.Server.URL+form.path), chromedp.WaitVisible(chromedp.CSS("#timezone")))
		check.look(ctx, "zone-"+form.name, 1280, 375)
		f := field(form.name)
		if f.Value != "UTC" || f.Invalid || f.Error != "" || len(f.Described) != 1 || !strings.Contains(f.Described[0], form.advice) {
			t.Errorf("%s: the field shows %q (invalid %v, error %q, described by %q), want the service's zone UTC and advice with %q",
				form.name, f.Value, f.Invalid, f.Error, f.Described, form.advice)
		}

		// Refused with another change beside it (e-mail reports ticked): nothing is written.
		if form.name == "add" {
			do(chromedp.SendKeys(chromedp.CSS("#domain"), "mars.example"))
		}
		do(chromedp.SetValue(chromedp.CSS("#timezone"), "Mars/Olympus"),
			chromedp.Click(chromedp.CSS(`input[name=email]`)),
			chromedp.Click(chromedp.CSS(form.submit)),
			chromedp.WaitVisible(chromedp.CSS("#timezone-error")))
		check.look(ctx, "zone-"+form.name+"-refused", 1280, 375)
		f = field(form.name + " refused")
		const refusal = "must be an IANA time zone name, such as Europe/Berlin or UTC"
		if f.Value != "Mars/Olympus" || !f.Invalid || f.Error != refusal ||
			len(f.Described) != 2 || f.Described[1] != refusal {
			t.Errorf("%s refused: the field shows %q (invalid %v), error %q in its block, described by %q: want the value kept and %q on the field",
				form.name, f.Value, f.Invalid, f.Error, f.Described, refusal)
		}
	}
	if _, err := e.Repo.WebsiteByDomain(t.Context(), "mars.example"); !errors.Is(err, repository.ErrNotFound) {
		t.Errorf("the refused add wrote a website (%v)", err)
	}
	site, err := e.Repo.WebsiteByDomain(t.Context(), "example.com")
	if err != nil {
		t.Fatal(err)
	}
	if site.Email != 0 || site.Timezone != nil || site.TimezoneNext != nil {
		t.Errorf("the refused edit wrote: e-mail %d, zone %v, next %v", site.Email, site.Timezone, site.TimezoneNext)
	}
}
