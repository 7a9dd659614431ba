package harness

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/website"
)

// User is a user of the test, with one API key.
type User struct {
	ID       int64
	Email    string
	Key      string
	Password string // "" unless made by UserWithPassword
}

// User creates a user with one API key.
func (e *Env) User(email string) User {
	e.T.Helper()
	ctx := context.Background()
	u, err := e.Repo.CreateUser(ctx, email)
	if err != nil {
		e.T.Fatalf("create user %s: %v", email, err)
	}
	key, err := e.Repo.CreateAPIKey(ctx, u.ID)
	if err != nil {
		e.T.Fatalf("create API key of %s: %v", email, err)
	}
	return User{ID: u.ID, Email: u.Email, Key: key}
}

// UserWithPassword creates a user who can also sign in to the pages: the password is
// "pw of " and the e-mail address.
func (e *Env) UserWithPassword(email string) User {
	e.T.Helper()
	u := e.User(email)
	u.Password = "pw of " + email
	hash, err := website.HashPassword(u.Password)
	if err != nil {
		e.T.Fatalf("hash password: %v", err)
	}
	if err := e.Repo.SetUserPassword(context.Background(), email, hash); err != nil {
		e.T.Fatalf("set password of %s: %v", email, err)
	}
	return u
}

// Site creates a website of the key's user through the API (so this node's settings learn it
// at once), with the form's other fields as name, value pairs, and returns its id.
func (e *Env) Site(key, domain string, fields ...string) int64 {
	e.T.Helper()
	form := url.Values{"domain": {domain}}
	for i := 0; i+1 < len(fields); i += 2 {
		form.Set(fields[i], fields[i+1])
	}
	res := e.Do(Request{Method: http.MethodPost, Path: "/api/v1/websites", Key: key, Form: form})
	if res.Status != http.StatusCreated {
		e.T.Fatalf("create website %s: %d %s", domain, res.Status, res.Body)
	}
	var body struct{ Data struct{ ID int64 } }
	if err := json.Unmarshal(res.Body, &body); err != nil {
		e.T.Fatalf("create website %s: %v", domain, err)
	}
	return body.Data.ID
}

// Count adds to a website's counters of one statistic on day (YYYY-MM-DD), value -> count, as
// a flush of collected hits would.
func (e *Env) Count(siteID int64, day, name string, values map[string]int64) {
	e.T.Helper()
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		e.T.Fatalf("count on %q: %v", day, err)
	}
	var counts []repository.StatCount
	for v, n := range values {
		counts = append(counts, repository.StatCount{WebsiteID: siteID, Name: name, Date: d, Value: v, Count: n})
	}
	if _, err := e.Repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: uuid.NewString(), Counts: counts}, 0); err != nil {
		e.T.Fatalf("count %s on %s: %v", name, day, err)
	}
}

// Member makes u a member of a website of owner's with a role, as accepting an invitation
// from the owner does.
func (e *Env) Member(site int64, owner, u User, role repository.Role) {
	e.T.Helper()
	ctx := context.Background()
	token, err := e.Repo.InviteMember(ctx, site, owner.ID, u.Email, role, time.Hour)
	if err != nil {
		e.T.Fatalf("invite %s: %v", u.Email, err)
	}
	if _, err := e.Repo.AcceptInvitation(ctx, token, u.ID); err != nil {
		e.T.Fatalf("%s accepts: %v", u.Email, err)
	}
}
