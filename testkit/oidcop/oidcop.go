// Package oidcop starts a real OpenID provider for tests: zitadel/oidc's provider (package
// op, with the module's example storage and login page), served over HTTP on loopback, with
// the users and clients a test names. Nothing of the protocol is mocked: discovery, the
// authorization endpoint with PKCE, the login form, the token endpoint (client
// authentication, one use of a code), the signed ID tokens, the keys and the user info
// endpoint are the provider's own. Test code only.
package oidcop

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"golang.org/x/text/language"
)

// User is an account at the provider; its password is "pw".
type User struct {
	Username      string
	Email         string
	EmailVerified bool
}

// Client is a client registered at the provider.
type Client struct {
	ID, Secret  string
	RedirectURI string
}

// Provider is a running provider.
type Provider struct {
	Issuer string
	t      testing.TB
}

type users map[string]*storage.User

func (u users) GetUserByID(id string) *storage.User { return u[id] }
func (u users) GetUserByUsername(name string) *storage.User {
	for _, user := range u {
		if user.Username == name {
			return user
		}
	}
	return nil
}
func (u users) ExampleClientID() string { return "service" }

// Start runs a provider until the test ends.
func Start(t testing.TB, us []User, clients []Client) *Provider {
	t.Helper()
	server := httptest.NewUnstartedServer(nil)
	issuer := "http://" + server.Listener.Addr().String()
	store := users{}
	for i, u := range us {
		id := "user" + string(rune('a'+i))
		store[id] = &storage.User{ID: id, Username: u.Username, Password: "pw", FirstName: u.Username, LastName: "Test",
			Email: u.Email, EmailVerified: u.EmailVerified, PreferredLanguage: language.English}
	}
	registered := map[string]*storage.Client{}
	for _, c := range clients {
		registered[c.ID] = storage.WebClient(c.ID, c.Secret, c.RedirectURI)
	}
	server.Config.Handler = exampleop.SetupServer(issuer, storage.NewStorageWithClients(store, registered), nil, false)
	server.Start()
	t.Cleanup(server.Close)
	return &Provider{Issuer: issuer, t: t}
}

// SignIn plays a person at the provider: from an authorization request's address (where a
// client sent the browser) through the provider's login form as username, to the address
// the provider sends the browser back to (the client's redirect URI with the code and the
// state), which it returns without following it. client is the browser's HTTP client (it
// keeps the provider's cookies).
func (p *Provider) SignIn(client *http.Client, authorize, username string) string {
	t := p.t
	t.Helper()
	if client.Jar == nil {
		jar, _ := cookiejar.New(nil)
		client = &http.Client{Jar: jar, CheckRedirect: client.CheckRedirect}
	}
	get := func(u string) *http.Response {
		t.Helper()
		res, err := client.Get(u)
		if err != nil {
			t.Fatalf("provider: GET %s: %v", u, err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	res := get(authorize)
	login := p.resolve(res, "the login page")
	id := login.Query().Get("authRequestID")
	if id == "" {
		t.Fatalf("provider: no auth request at %s", login)
	}
	form := url.Values{"username": {username}, "password": {"pw"}, "id": {id}}
	res, err := client.Post(p.Issuer+"/login/username", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatalf("provider: sign in: %v", err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	callback := p.resolve(res, "the callback")
	res = get(callback.String())
	return p.resolve(res, "the client's redirect URI").String()
}

// resolve is a redirect's target, absolute.
func (p *Provider) resolve(res *http.Response, what string) *url.URL {
	p.t.Helper()
	loc, err := res.Location()
	if err != nil {
		p.t.Fatalf("provider: no redirect to %s (%d)", what, res.StatusCode)
	}
	return loc
}

// AuthorizeURL is the address of an authorization request of a client, as a client without
// PKCE makes it (for a test that needs a token of another client).
func (p *Provider) AuthorizeURL(c Client, state, nonce string) string {
	return p.Issuer + "/auth?" + url.Values{"client_id": {c.ID}, "redirect_uri": {c.RedirectURI}, "response_type": {"code"},
		"scope": {"openid email"}, "state": {state}, "nonce": {nonce}}.Encode()
}
