// The driver of github.com/rossigee/provider-plausible's API client (internal/clients) for
// scripts/plausible-clients.sh: it is copied into a copy of that module as cmd/record (the
// package is internal to it; it is not part of this module: testdata) and calls the client's
// site, goal, shared-link, custom-property and guest calls as its controllers do, through the
// recording proxy (PLAUSIBLE_RECORD), with only the base URL and the key ours
// (PLAUSIBLE_BASE_URL, PLAUSIBLE_KEY). Each call's outcome is told to the proxy.
package main

import (
	"fmt"
	"net/http"
	"net/url"
	"os"

	"github.com/rossigee/provider-plausible/internal/clients"
)

var record = os.Getenv("PLAUSIBLE_RECORD")

func call(name string, do func() (any, error)) {
	mustPost(record + "/_record/call?name=" + url.QueryEscape(name))
	v, err := do()
	outcome := fmt.Sprintf("ok: %+v", v)
	if err != nil {
		outcome = "error: " + err.Error()
	}
	fmt.Printf("%s: %s\n", name, outcome)
	mustPost(record + "/_record/outcome?text=" + url.QueryEscape(outcome))
}

func mustPost(u string) {
	res, err := http.Post(u, "text/plain", nil)
	if err != nil {
		panic(err)
	}
	res.Body.Close()
}

// none is a call that returns only an error.
func none(err error) (any, error) { return nil, err }

func main() {
	c := clients.NewClient(clients.Config{BaseURL: os.Getenv("PLAUSIBLE_BASE_URL"), APIKey: os.Getenv("PLAUSIBLE_KEY")})
	const domain = "crossplane.example"
	call("CreateSite", func() (any, error) {
		return c.CreateSite(clients.CreateSiteRequest{Domain: domain, Timezone: "Europe/Berlin"})
	})
	call("CreateSite with a team_id", func() (any, error) {
		return c.CreateSite(clients.CreateSiteRequest{Domain: "team.crossplane.example", TeamID: "1"})
	})
	call("CreateSite to delete", func() (any, error) { return c.CreateSite(clients.CreateSiteRequest{Domain: "gone.crossplane.example"}) })
	call("GetSite", func() (any, error) { return c.GetSite(domain) })
	call("GetSiteByDomain", func() (any, error) { return c.GetSiteByDomain(domain) })
	call("GetSite of an unknown site", func() (any, error) { return c.GetSite("unknown.example") })
	call("ListSites", func() (any, error) { return c.ListSites() })
	call("UpdateSite to its own domain", func() (any, error) { return c.UpdateSite(domain, domain) })
	call("UpdateSite to a new domain", func() (any, error) { return c.UpdateSite(domain, "renamed.crossplane.example") })
	call("DeleteSite", func() (any, error) { return none(c.DeleteSite("gone.crossplane.example")) })
	call("DeleteSite again", func() (any, error) { return none(c.DeleteSite("gone.crossplane.example")) })

	call("CreateGoal event", func() (any, error) {
		return c.CreateGoal(domain, clients.CreateGoalRequest{GoalType: "event", EventName: "Signup"})
	})
	call("CreateGoal page", func() (any, error) {
		return c.CreateGoal(domain, clients.CreateGoalRequest{GoalType: "page", PagePath: "/register"})
	})
	call("CreateGoal page without a path", func() (any, error) {
		return c.CreateGoal(domain, clients.CreateGoalRequest{GoalType: "page"})
	})
	call("ListGoals", func() (any, error) { return c.ListGoals(domain) })
	call("GetGoal", func() (any, error) { return c.GetGoal(domain, "1") })
	call("DeleteGoal", func() (any, error) { return none(c.DeleteGoal("1")) })

	call("CreateSharedLink", func() (any, error) {
		return c.CreateSharedLink(clients.CreateSharedLinkRequest{SiteDomain: domain, Name: "Crossplane"})
	})
	call("CreateSharedLink with a password", func() (any, error) {
		return c.CreateSharedLink(clients.CreateSharedLinkRequest{SiteDomain: domain, Name: "Locked", Password: "hunter22"})
	})
	call("ListSharedLinks", func() (any, error) { return c.ListSharedLinks(domain) })
	call("GetSharedLink", func() (any, error) { return c.GetSharedLink(domain, "Crossplane") })
	call("DeleteSharedLink", func() (any, error) { return none(c.DeleteSharedLink(domain, "Crossplane")) })

	call("CreateCustomProperty", func() (any, error) {
		return c.CreateCustomProperty(clients.CreateCustomPropertyRequest{SiteDomain: domain, Key: "author", Description: "Who wrote it"})
	})
	call("ListCustomProperties", func() (any, error) { return c.ListCustomProperties(domain) })
	call("GetCustomProperty", func() (any, error) { return c.GetCustomProperty(domain, "author") })
	call("DeleteCustomProperty", func() (any, error) { return none(c.DeleteCustomProperty(domain, "author")) })

	call("CreateGuest", func() (any, error) {
		return c.CreateGuest(clients.CreateGuestRequest{SiteDomain: domain, Email: "alice@example.com", Role: "viewer"})
	})
	call("CreateGuest again (found)", func() (any, error) {
		return c.CreateGuest(clients.CreateGuestRequest{SiteDomain: domain, Email: "Alice@Example.com", Role: "editor"})
	})
	call("ListGuests", func() (any, error) { return c.ListGuests(domain) })
	call("GetGuest", func() (any, error) { return c.GetGuest(domain, "alice@example.com") })
	call("DeleteGuest", func() (any, error) { return none(c.DeleteGuest(domain, "alice@example.com")) })
}
