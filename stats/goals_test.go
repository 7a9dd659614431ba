package stats

import "testing"

func TestGoalPattern(t *testing.T) {
	cases := []struct {
		pattern, page string
		match         bool
	}{
		{"/blog/*", "/blog/a", true},
		{"/blog/*", "/blog/a/b", true},
		{"/blog/*", "/blog", false},
		{"/blog/*", "/x/blog/a", false},
		{"/a|/b", "/b", true},
		{"/a|/b", "/ab", false},
		{"/a.b", "/axb", false},
		{"/a+(b)", "/a+(b)", true},
		{"/*/done", "/signup/x/done", true},
		{"/", "/", true},
		{"/", "/a", false},
	}
	for _, c := range cases {
		if got := GoalPattern(c.pattern).MatchString(c.page); got != c.match {
			t.Errorf("%q on %q: %v, want %v", c.pattern, c.page, got, c.match)
		}
	}
	if GoalPath("/a?b=1") != "/a" || GoalPath("/a") != "/a" {
		t.Error("GoalPath keeps the query")
	}
}

func TestCheckGoalDefaults(t *testing.T) {
	page, event := "/", "Outbound Link: Click"
	g, errs := CheckGoal(GoalInput{Kind: GoalPageview, Page: &page})
	if errs != nil || g.DisplayName != "Visit /" {
		t.Errorf("%+v %v", g, errs)
	}
	empty := ""
	g, errs = CheckGoal(GoalInput{Kind: GoalEvent, Event: &event, Page: &empty, Currency: &empty})
	if errs != nil || g.DisplayName != event || g.Event != event || g.Currency != "" {
		t.Errorf("%+v %v", g, errs)
	}
}
