// Command plausiblerecord is the recording proxy of scripts/plausible-clients.sh: it forwards
// every request to -target and writes each exchange (the request as the client sent it, the
// answer as the service gave it) to -out, the fixtures that TestPlausibleClients replays.
// A driver names the client call that follows with POST /_record/call?name=..., and tells how
// the client took the answers with POST /_record/outcome?text=...; neither is forwarded.
// The key is not written: the Authorization header is kept as "Bearer KEY".
//
// With -trim FILE it instead writes FILE without its Kubernetes glue to -out (trim.go): how
// provider-plausible's client is built without the modules the proxy lacks.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
)

// Fixture is one client's recording.
type Fixture struct {
	Client string `json:"client"` // the client and its commit
	Calls  []Call `json:"calls"`
}

// Call is one call of the client's API and the requests it made.
type Call struct {
	Name      string     `json:"call"`
	Outcome   string     `json:"outcome"` // what the client returned: its value or its error
	Exchanges []Exchange `json:"exchanges"`
}

// Exchange is one request and its answer.
type Exchange struct {
	Method   string            `json:"method"`
	Path     string            `json:"path"`
	Query    string            `json:"query,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Body     string            `json:"body,omitempty"`
	Status   int               `json:"status"`
	Response json.RawMessage   `json:"response"` // the JSON answer, or a JSON string of any other
}

// kept are the request headers that change an answer; the rest (Content-Length, Accept-
// Encoding, Connection) are the transport's.
var kept = []string{"Authorization", "Content-Type", "Accept", "User-Agent", "X-Forwarded-For", "X-Debug-Request"}

type recorder struct {
	mu    sync.Mutex
	fix   Fixture
	out   string
	proxy *httputil.ReverseProxy
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	target := flag.String("target", "", "the service's base URL")
	out := flag.String("out", "", "the fixture file to write")
	client := flag.String("client", "", "the client's name and commit")
	trimmed := flag.String("trim", "", "a Go file to write to -out without its Kubernetes glue")
	flag.Parse()
	if *trimmed != "" {
		if err := trim(*trimmed, *out); err != nil {
			log.Fatal(err)
		}
		return
	}
	base, err := url.Parse(*target)
	if err != nil || *target == "" || *out == "" {
		log.Fatalf("plausiblerecord: -target URL and -out FILE are required (target: %v)", err)
	}
	r := newRecorder(base, *client, *out)
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("plausiblerecord: listen: %v", err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, r))
}

func newRecorder(target *url.URL, client, out string) *recorder {
	return &recorder{fix: Fixture{Client: client, Calls: []Call{}}, out: out, proxy: httputil.NewSingleHostReverseProxy(target)}
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	switch req.URL.Path {
	case "/_record/call":
		r.mu.Lock()
		r.fix.Calls = append(r.fix.Calls, Call{Name: req.URL.Query().Get("name"), Exchanges: []Exchange{}})
		r.mu.Unlock()
		return
	case "/_record/outcome":
		r.mu.Lock()
		if n := len(r.fix.Calls); n > 0 {
			r.fix.Calls[n-1].Outcome = req.URL.Query().Get("text")
		}
		err := r.save()
		r.mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	x := Exchange{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, Body: string(body), Headers: map[string]string{}}
	for _, h := range kept {
		if v := req.Header.Get(h); v != "" {
			x.Headers[h] = v
		}
	}
	if _, ok := x.Headers["Authorization"]; ok {
		x.Headers["Authorization"] = "Bearer KEY"
	}
	req.Header.Del("Accept-Encoding") // the answer is recorded as text
	rec := &capture{ResponseWriter: w, status: http.StatusOK}
	r.proxy.ServeHTTP(rec, req)
	x.Status = rec.status
	x.Response = rec.body.Bytes()
	if !json.Valid(x.Response) {
		x.Response, _ = json.Marshal(rec.body.String())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.fix.Calls) == 0 {
		r.fix.Calls = append(r.fix.Calls, Call{Name: "(unnamed)"})
	}
	c := &r.fix.Calls[len(r.fix.Calls)-1]
	c.Exchanges = append(c.Exchanges, x)
}

// save writes the fixture so far (after every call: the driver may stop at any point).
func (r *recorder) save() error {
	b, err := json.MarshalIndent(r.fix, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the fixture: %w", err)
	}
	if err := os.WriteFile(r.out, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write the fixture: %w", err)
	}
	return nil
}

type capture struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *capture) WriteHeader(status int) { c.status = status; c.ResponseWriter.WriteHeader(status) }

func (c *capture) Write(b []byte) (int, error) {
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}
