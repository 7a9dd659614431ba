package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

// team is a website of an owner's with one member of each role and a stranger who has a
// website of their own, each signed in in a browser of their own.
type team struct {
	e        *env
	owner    harness.User
	site     int64
	goal     int64
	funnel   int64
	users    map[repository.Role]harness.User
	browsers map[repository.Role]*browser
	stranger *browser
}

func newTeam(t *testing.T, e *env) *team {
	t.Helper()
	tm := &team{e: e, owner: e.UserWithPassword("owner@example.com"), users: map[repository.Role]harness.User{}, browsers: map[repository.Role]*browser{}}
	tm.site = e.Site(tm.owner.Key, "example.com", "privacy", "1")
	ctx := context.Background()
	var ids []int64
	for _, page := range []string{"/", "/signup"} {
		g, err := e.Repo.CreateGoal(ctx, tm.site, stats.Goal{Kind: stats.GoalPageview, Page: page, DisplayName: "Visit " + page})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, g.ID)
	}
	tm.goal = ids[0]
	f, err := e.Repo.CreateFunnel(ctx, tm.site, "Signup", ids)
	if err != nil {
		t.Fatal(err)
	}
	tm.funnel = f.ID
	tm.users[repository.RoleOwner] = tm.owner
	tm.browsers[repository.RoleOwner] = e.browser().signIn(tm.owner)
	for _, role := range repository.MemberRoles {
		u := e.UserWithPassword(string(role) + "@example.com")
		e.Member(tm.site, tm.owner, u, role)
		tm.users[role], tm.browsers[role] = u, e.browser().signIn(u)
	}
	other := e.UserWithPassword("stranger@example.com")
	e.Site(other.Key, "stranger.example")
	tm.stranger = e.browser().signIn(other)
	return tm
}

// settingsForm is a form (or page) of a website's settings and the role it needs.
type settingsForm struct {
	path string
	need repository.Role
}

func (tm *team) forms() []settingsForm {
	s := fmt.Sprintf("/websites/%d", tm.site)
	editor, admin, owner := repository.RoleEditor, repository.RoleAdmin, repository.RoleOwner
	return []settingsForm{
		{s + "/edit", editor}, {s + "/favorite", editor}, {s + "/goals", editor},
		{fmt.Sprintf("%s/goals/%d/remove", s, tm.goal), editor}, {s + "/funnels", editor},
		{fmt.Sprintf("%s/funnels/%d/remove", s, tm.funnel), editor}, {fmt.Sprintf("%s/funnels/%d/move", s, tm.funnel), editor},
		{s + "/verify", editor}, {s + "/shared", editor}, {s + "/shared/1/rename", editor}, {s + "/shared/1/delete", editor},
		{s + "/members", admin}, {fmt.Sprintf("%s/members/%d/role", s, tm.users[repository.RoleViewer].ID), admin},
		{fmt.Sprintf("%s/members/%d/remove", s, tm.users[repository.RoleAdmin].ID), admin},
		{s + "/invitations/1/revoke", admin}, {s + "/alerts", editor}, {s + "/reset", admin},
		{s + "/delete", owner}, {s + "/transfer", owner},
	}
}

// Every settings form posted from every role below the one it needs is a 403 page, and from
// someone with no role on the website the 404 page of an unknown website; the settings pages
// likewise. Nothing changes: the goals and funnel are still there, the members keep their
// roles, the website is not deleted.
func TestRoleBoundariesOfTheSettingsForms(t *testing.T) {
	e := newEnv(t)
	tm := newTeam(t, e)
	for _, f := range tm.forms() {
		for role, b := range tm.browsers {
			if role.Can(f.need) {
				continue
			}
			p := b.post(f.path, url.Values{"role": {"admin"}, "user": {fmt.Sprint(tm.users[repository.RoleViewer].ID)}, "confirm": {"1"},
				"favorite": {"1"}, "name": {"x"}, "email": {"x@example.com"}})
			wantStatus(t, string(role)+" posts "+f.path, p, http.StatusForbidden)
			if !strings.Contains(p.body, "Your role on this website does not allow this") {
				t.Errorf("%s posts %s: not the 403 page:\n%.500s", role, f.path, p.body)
			}
		}
		wantStatus(t, "a stranger posts "+f.path, tm.stranger.post(f.path, url.Values{}), http.StatusNotFound)
	}
	pages := []settingsForm{{fmt.Sprintf("/websites/%d/edit", tm.site), repository.RoleEditor},
		{fmt.Sprintf("/websites/%d/shared", tm.site), repository.RoleEditor},
		{fmt.Sprintf("/websites/%d/members", tm.site), repository.RoleAdmin},
		{fmt.Sprintf("/websites/%d/delete", tm.site), repository.RoleOwner}}
	for _, pg := range pages {
		for role, b := range tm.browsers {
			want := http.StatusOK
			if !role.Can(pg.need) {
				want = http.StatusForbidden
			}
			wantStatus(t, string(role)+" opens "+pg.path, b.get(pg.path), want)
		}
		wantStatus(t, "a stranger opens "+pg.path, tm.stranger.get(pg.path), http.StatusNotFound)
	}
	// The settings page offers the deletion of stats to those who may (an admin, the owner).
	for role, b := range tm.browsers {
		if !role.Can(repository.RoleEditor) {
			continue
		}
		offered := strings.Contains(b.get(fmt.Sprintf("/websites/%d/edit", tm.site)).body, fmt.Sprintf("/websites/%d/reset", tm.site))
		if offered != role.Can(repository.RoleAdmin) {
			t.Errorf("the %s's settings page offers to delete stats: %v", role, offered)
		}
	}
	goals, err := e.Repo.Goals(context.Background(), tm.site)
	if err != nil || len(goals) != 2 {
		t.Errorf("after the refused forms: %d goals (%v)", len(goals), err)
	}
	members, err := e.Repo.Members(context.Background(), tm.site)
	if err != nil || len(members) != 3 {
		t.Errorf("after the refused forms: %v (%v)", members, err)
	}
	for _, m := range members {
		if string(m.Role)+"@example.com" != m.Email {
			t.Errorf("member %s has the role %s", m.Email, m.Role)
		}
	}

	// Reading: every role reads the private website's stats pages; the stranger gets the 404
	// of an unknown domain, byte for byte.
	for role, b := range tm.browsers {
		wantStatus(t, string(role)+" reads the dashboard", b.get("/stats/example.com"), http.StatusOK)
		wantStatus(t, string(role)+" reads the realtime view", b.get("/stats/example.com/realtime"), http.StatusOK)
	}
	hidden, unknown := tm.stranger.get("/stats/example.com"), tm.stranger.get("/stats/unknown.example")
	if hidden.status != http.StatusNotFound || hidden.body != unknown.body {
		t.Errorf("the stranger reads the private website: %d", hidden.status)
	}

	// The home page lists the shared website, marked with the role, with the actions it allows.
	home := tm.browsers[repository.RoleViewer].get("/")
	if !strings.Contains(home.body, "Shared with you: Viewer") || strings.Contains(home.body, fmt.Sprintf("/websites/%d/edit", tm.site)) {
		t.Errorf("the viewer's home page:\n%s", home.body)
	}
	home = tm.browsers[repository.RoleAdmin].get("/")
	if !strings.Contains(home.body, "Shared with you: Admin") || !strings.Contains(home.body, fmt.Sprintf("/websites/%d/members", tm.site)) ||
		strings.Contains(home.body, fmt.Sprintf("/websites/%d/delete", tm.site)) {
		t.Errorf("the admin's home page:\n%s", home.body)
	}
	if strings.Contains(tm.stranger.get("/").body, `">example.com</a>`) {
		t.Error("the stranger's home page lists the website")
	}
}

var newSharedLinkURL = regexp.MustCompile(`<pre class="snippet" id="new-link-url">([^<]+)</pre>`)

// invitationLink reads the link of an invitation shown to its maker (mail is off).
var invitationLink = regexp.MustCompile(`<pre class="snippet" id="link">[^<]*(/invitation\?token=[^<]+)</pre>`)

// An admin invites a new address and an existing user; each accepts; an editor cannot invite;
// a wrong address, a revoked invitation and one whose maker lost the right to invite are
// refused; the owner hands the website over.
func TestInvitationsToAWebsite(t *testing.T) {
	e := newEnv(t)
	tm := newTeam(t, e)
	members := fmt.Sprintf("/websites/%d/members", tm.site)
	admin := tm.browsers[repository.RoleAdmin]
	invite := func(b *browser, email, role string) string {
		t.Helper()
		p := b.post(members, url.Values{"email": {email}, "role": {role}})
		wantStatus(t, "invite "+email, p, http.StatusOK)
		m := invitationLink.FindStringSubmatch(p.body)
		if m == nil {
			t.Fatalf("no invitation link shown:\n%s", p.body)
		}
		return strings.ReplaceAll(m[1], "&amp;", "&")
	}
	wantStatus(t, "an editor invites", tm.browsers[repository.RoleEditor].post(members, url.Values{"email": {"x@example.com"}, "role": {"viewer"}}), http.StatusForbidden)
	bad := admin.post(members, url.Values{"email": {"not an address"}, "role": {"owner"}})
	wantStatus(t, "a bad invitation", bad, http.StatusUnprocessableEntity)
	if !strings.Contains(bad.body, "must be one of viewer, editor, admin") || !strings.Contains(bad.body, "must be an e-mail address") {
		t.Errorf("the refusal:\n%s", bad.body)
	}

	// A new address: the page asks for a password, makes the account and signs it in.
	link := invite(admin, "new@example.com", "editor")
	newcomer := e.browser()
	form := newcomer.get(link)
	wantStatus(t, "the invitation", form, http.StatusOK)
	if !strings.Contains(form.body, "Make my account and accept") || form.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("the invitation page:\n%s", form.body)
	}
	token := strings.TrimPrefix(link, "/invitation?token=")
	short := newcomer.post("/invitation", url.Values{"token": {token}, "new_password": {"short"}, "new_password_again": {"short"}})
	wantStatus(t, "a short password", short, http.StatusUnprocessableEntity)
	p := newcomer.post("/invitation", url.Values{"token": {token}, "new_password": {"a good password"}, "new_password_again": {"a good password"}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/stats/example.com" {
		t.Fatalf("accepting: %d %s\n%s", p.status, p.header.Get("Location"), p.body)
	}
	wantStatus(t, "the newcomer edits", newcomer.get(fmt.Sprintf("/websites/%d/edit", tm.site)), http.StatusOK)
	wantStatus(t, "the link again", e.browser().get(link), http.StatusGone)

	// An existing user accepts signed in; another address is refused.
	outsider := e.UserWithPassword("outsider@example.com")
	link = invite(admin, "Outsider@Example.com", "viewer")
	token = strings.TrimPrefix(link, "/invitation?token=")
	if p := e.browser().get(link); !strings.Contains(p.body, "has an account here") {
		t.Errorf("signed out, an existing address is asked to sign in:\n%s", p.body)
	}
	wrong := tm.stranger.post("/invitation", url.Values{"token": {token}})
	wantStatus(t, "another address accepts", wrong, http.StatusForbidden)
	ob := e.browser().signIn(outsider)
	wantStatus(t, "accepting signed in", ob.post("/invitation", url.Values{"token": {token}}), http.StatusSeeOther)
	wantStatus(t, "the outsider reads", ob.get("/stats/example.com"), http.StatusOK)
	wantStatus(t, "the viewer edits", ob.get(fmt.Sprintf("/websites/%d/edit", tm.site)), http.StatusForbidden)

	// Revoked, and made by an admin since demoted: the link no longer works.
	link = invite(admin, "later@example.com", "viewer")
	invs, err := e.Repo.Invitations(context.Background(), tm.site)
	if err != nil || len(invs) != 1 {
		t.Fatalf("pending: %v %v", invs, err)
	}
	wantStatus(t, "revoke", tm.browsers[repository.RoleOwner].post(fmt.Sprintf("/websites/%d/invitations/%d/revoke", tm.site, invs[0].ID), nil), http.StatusSeeOther)
	wantStatus(t, "a revoked invitation", e.browser().get(link), http.StatusGone)
	link = invite(admin, "later@example.com", "viewer")
	wantStatus(t, "demote the admin", tm.browsers[repository.RoleOwner].post(fmt.Sprintf("%s/%d/role", members, tm.users[repository.RoleAdmin].ID), url.Values{"role": {"editor"}}), http.StatusSeeOther)
	wantStatus(t, "an invitation of a demoted admin", e.browser().get(link), http.StatusGone)
	wantStatus(t, "a guessed token", e.browser().get("/invitation?token=AAAA"), http.StatusGone)

	// Handing over: the new owner may delete it, the old owner is an admin.
	owner := tm.browsers[repository.RoleOwner]
	wantStatus(t, "hand over without confirming", owner.post(fmt.Sprintf("/websites/%d/transfer", tm.site), url.Values{"user": {fmt.Sprint(outsider.ID)}}), http.StatusUnprocessableEntity)
	wantStatus(t, "hand over", owner.post(fmt.Sprintf("/websites/%d/transfer", tm.site), url.Values{"user": {fmt.Sprint(outsider.ID)}, "confirm": {"1"}}), http.StatusSeeOther)
	wantStatus(t, "the old owner deletes", owner.get(fmt.Sprintf("/websites/%d/delete", tm.site)), http.StatusForbidden)
	wantStatus(t, "the old owner manages members", owner.get(members), http.StatusOK)
	wantStatus(t, "the new owner deletes", ob.get(fmt.Sprintf("/websites/%d/delete", tm.site)), http.StatusOK)
	wantStatus(t, "hand over again", owner.post(fmt.Sprintf("/websites/%d/transfer", tm.site), url.Values{"user": {fmt.Sprint(outsider.ID)}, "confirm": {"1"}}), http.StatusForbidden)
	// Leaving.
	wantStatus(t, "the viewer leaves", tm.browsers[repository.RoleViewer].post(fmt.Sprintf("%s/%d/remove", members, tm.users[repository.RoleViewer].ID), nil), http.StatusSeeOther)
	wantStatus(t, "after leaving", tm.browsers[repository.RoleViewer].get("/stats/example.com"), http.StatusNotFound)
}

// makeSharedLink makes a shared link on the settings page and returns its address as a path.
func makeSharedLink(t *testing.T, b *browser, site int64, form url.Values) string {
	t.Helper()
	p := b.post(fmt.Sprintf("/websites/%d/shared", site), form)
	wantStatus(t, "make a shared link", p, http.StatusOK)
	m := newSharedLinkURL.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no link shown:\n%s", p.body)
	}
	u, err := url.Parse(strings.ReplaceAll(m[1], "&amp;", "&"))
	if err != nil {
		t.Fatal(err)
	}
	return u.RequestURI()
}

// A shared link shows the private website's dashboard read-only to a browser signed in to
// nothing; a token of another website, a deleted link, a guessed token and none at all are
// the 404 page; a link's password is asked; only embed views of links without a password may
// be framed.
func TestSharedLinks(t *testing.T) {
	e := newEnv(t)
	tm := newTeam(t, e)
	e.seedMonth(tm.site)
	e.realtimeRows(tm.site)
	editor := tm.browsers[repository.RoleEditor]
	link := makeSharedLink(t, editor, tm.site, url.Values{"name": {"For the client <b>"}})
	if !strings.HasPrefix(link, "/share/example.com?auth=") {
		t.Fatalf("link %s", link)
	}
	token := strings.TrimPrefix(link, "/share/example.com?auth=")
	reader := e.browser()
	dash := reader.get(link)
	wantStatus(t, "the shared dashboard", dash, http.StatusOK)
	if dash.header.Get("Cache-Control") != "no-store" || !strings.Contains(dash.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("headers %v", dash.header)
	}
	// Every link of the view stays in it.
	for _, m := range regexp.MustCompile(`href="([^"]+)"`).FindAllStringSubmatch(dash.body, -1) {
		h := strings.ReplaceAll(m[1], "&amp;", "&")
		if strings.Contains(h, "/stats/example.com") || (strings.HasPrefix(h, "/share/") && !strings.Contains(h, "auth="+token)) {
			t.Errorf("a link leaves the shared view: %s", h)
		}
	}
	if strings.Contains(dash.body, "/websites/") {
		t.Error("the shared view links to settings")
	}
	for _, sub := range []string{"/page?auth=" + token, "/realtime?auth=" + token, "/export?name=page&auth=" + token} {
		wantStatus(t, "shared "+sub, reader.get("/share/example.com"+sub), http.StatusOK)
	}
	if rt := reader.get("/share/example.com/realtime?auth=" + token); strings.Contains(rt.body, "Latest pageviews") {
		t.Error("the shared realtime view shows the recent pageviews")
	}
	if rt := tm.browsers[repository.RoleViewer].get("/stats/example.com/realtime"); !strings.Contains(rt.body, "Latest pageviews") {
		t.Error("a member does not see the recent pageviews")
	}

	// Refusals: the same 404 page as an unknown domain.
	other := e.Site(tm.owner.Key, "other.example")
	otherLink := makeSharedLink(t, tm.browsers[repository.RoleOwner], other, url.Values{"name": {"Other"}})
	otherToken := strings.TrimPrefix(otherLink, "/share/other.example?auth=")
	unknown := e.browser().get("/stats/unknown.example")
	for what, path := range map[string]string{
		"a token of another website": "/share/example.com?auth=" + otherToken,
		"a guessed token":            "/share/example.com?auth=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		"no token":                   "/share/example.com",
		"an unknown website":         "/share/unknown.example?auth=" + token,
	} {
		p := e.browser().get(path)
		if p.status != http.StatusNotFound || p.body != unknown.body {
			t.Errorf("%s: %d\n%.300s", what, p.status, p.body)
		}
	}
	bad := reader.get(link + "&embed=true&theme=pink&background=red%3Bx")
	wantStatus(t, "bad embed options", bad, http.StatusUnprocessableEntity)
	if !strings.Contains(bad.body, "theme must be one of light, dark, system") || !strings.Contains(bad.body, "background must be transparent") {
		t.Errorf("the refusal:\n%s", bad.body)
	}

	// Embed views: framed only for a link without a password.
	embed := reader.get(link + "&embed=true&theme=dark&background=%23f9f9f9&width=manual")
	wantStatus(t, "the embed view", embed, http.StatusOK)
	if csp := embed.header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors *") || embed.header.Get("X-Frame-Options") != "" {
		t.Errorf("embed headers %v", embed.header)
	}
	if !strings.Contains(embed.body, `class="embed theme-dark embed-manual"`) || strings.Contains(embed.body, `class="topbar"`) ||
		!strings.Contains(embed.body, "/embed.css?background=%23f9f9f9") {
		t.Errorf("the embed view:\n%.2000s", embed.body)
	}
	css := reader.get("/embed.css?background=%23f9f9f9")
	if css.status != 200 || css.body != "html.embed, html.embed body { background: #f9f9f9; }\n" {
		t.Errorf("embed.css: %d %q", css.status, css.body)
	}
	wantStatus(t, "embed.css with a bad colour", reader.get("/embed.css?background=red;}body{x"), http.StatusUnprocessableEntity)
	for _, path := range []string{"/", "/stats/example.com", link, "/login"} {
		if csp := tm.browsers[repository.RoleOwner].get(path).header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s may be framed: %s", path, csp)
		}
	}

	// A link with a password: asked, limited, granted; never framed.
	locked := makeSharedLink(t, editor, tm.site, url.Values{"name": {"Locked"}, "password": {"open sesame"}})
	b := e.browser()
	form := b.get(locked + "&embed=true")
	wantStatus(t, "a locked link", form, http.StatusUnauthorized)
	if strings.Contains(form.header.Get("Content-Security-Policy"), "frame-ancestors *") {
		t.Error("a password link's form may be framed")
	}
	wantStatus(t, "a wrong password", b.post(locked, url.Values{"password": {"wrong"}}), http.StatusUnauthorized)
	wantStatus(t, "the right password", b.post(locked, url.Values{"password": {"open sesame"}}), http.StatusSeeOther)
	wantStatus(t, "granted", b.get(locked), http.StatusOK)
	if csp := b.get(locked + "&embed=true").header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("a password link's embed view may be framed: %s", csp)
	}

	// Renamed, then deleted: its address is the 404 page at once, its grant with it.
	links, err := e.Repo.SharedLinks(context.Background(), tm.site)
	if err != nil || len(links) != 2 {
		t.Fatalf("links %v %v", links, err)
	}
	settings := editor.get(fmt.Sprintf("/websites/%d/shared", tm.site))
	if !strings.Contains(settings.body, "For the client &lt;b&gt;") || strings.Contains(settings.body, token) {
		t.Errorf("the settings page shows a token, or a name unescaped:\n%s", settings.body)
	}
	for _, l := range links {
		wantStatus(t, "rename", editor.post(fmt.Sprintf("/websites/%d/shared/%d/rename", tm.site, l.ID), url.Values{"name": {"Renamed"}}), http.StatusSeeOther)
		wantStatus(t, "rename to nothing", editor.post(fmt.Sprintf("/websites/%d/shared/%d/rename", tm.site, l.ID), url.Values{"name": {" "}}), http.StatusUnprocessableEntity)
		wantStatus(t, "delete", editor.post(fmt.Sprintf("/websites/%d/shared/%d/delete", tm.site, l.ID), nil), http.StatusSeeOther)
		wantStatus(t, "delete again", editor.post(fmt.Sprintf("/websites/%d/shared/%d/delete", tm.site, l.ID), nil), http.StatusNotFound)
	}
	wantStatus(t, "a deleted link", reader.get(link), http.StatusNotFound)
	wantStatus(t, "a deleted link with its grant", b.get(locked), http.StatusNotFound)
	// Another website's link cannot be deleted through this one.
	links, _ = e.Repo.SharedLinks(context.Background(), other)
	wantStatus(t, "delete another website's link", editor.post(fmt.Sprintf("/websites/%d/shared/%d/delete", tm.site, links[0].ID), nil), http.StatusNotFound)
	wantStatus(t, "the other link still works", e.browser().get(otherLink), http.StatusOK)
}
