// Package webtest starts the system's Chromium for browser tests, so that
// every package drives the same browser the same way. Nothing is downloaded:
// the browser is Debian's chromium package (apt-get install chromium).
package webtest

import (
	"context"
	"os/exec"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// ChromiumPath is where Debian's chromium package installs the browser.
const ChromiumPath = "/usr/bin/chromium"

// FindChromium returns the browser's path: ChromiumPath, else "chromium" on
// PATH. A missing browser fails the test (never skips it): a browser test
// that silently does not run proves nothing.
func FindChromium(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath(ChromiumPath); err == nil {
		return ChromiumPath
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	t.Fatalf("chromium not found at %s nor on PATH: install it with `apt-get install -y chromium`", ChromiumPath)
	return ""
}

// NewBrowser starts a headless Chromium with a fresh profile and returns the
// context of its first tab. Run chromedp actions on it, or derive more tabs
// with chromedp.NewContext(ctx). The browser is stopped, and its profile
// removed, when the test ends.
//
// opts are added after the defaults, e.g. chromedp.UserAgent(...) for a
// server that drops hits from headless browsers as bots.
func NewBrowser(t testing.TB, opts ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	path := FindChromium(t)
	// Registered before the browser's cleanup, so removed after the browser
	// has exited and stopped writing to it.
	profile := t.TempDir()

	o := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		// Containers often run as root, where the sandbox cannot start.
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		// No traffic of the browser's own (updates, sync, QUIC probes): the
		// tests must not depend on, nor reach, the network.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
	)
	o = append(o, opts...)

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), o...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc() // waits for the browser process to exit
	})
	// Start the browser now so that a broken install fails here, clearly.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium (%s): %v", path, err)
	}
	return ctx
}

// WatchProblems fails the test on any uncaught exception or console error in the tab of ctx:
// a broken tracker must not pass just because some hits still arrive. The errors are reported
// when the test ends, so call it before the tab's own cleanup is registered.
func WatchProblems(t testing.TB, ctx context.Context) {
	t.Helper()
	var mu sync.Mutex
	var problems []string
	err := chromedp.Listen(ctx, func(ev any) {
		var p string
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			p = "uncaught exception: " + e.ExceptionDetails.Text
			if ex := e.ExceptionDetails.Exception; ex != nil {
				p += " " + ex.Description
			}
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				p = "console error: " + e.Entry.Text + " " + e.Entry.URL
			}
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				p = "console.error called"
			}
		}
		if p != "" {
			mu.Lock()
			problems = append(problems, p)
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Error(p)
		}
	})
}
