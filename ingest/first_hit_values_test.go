package ingest

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// brandBySplit and screenBySplit are brand and screenValue as they were before they stopped
// allocating: the reference the tests below hold them to.
func brandBySplit(host string) string {
	labels := strings.Split(host, ".")
	n := len(labels)
	if n < 2 {
		return ""
	}
	name := labels[n-2]
	if n >= 3 && countrySuffixes[labels[n-2]] && len(labels[n-1]) == 2 {
		name = labels[n-3]
	}
	return searchEngineBrands[name]
}

func screenByItoa(s string) string {
	w, h, ok := strings.Cut(s, "x")
	if !ok {
		return ""
	}
	width, err1 := strconv.Atoi(w)
	height, err2 := strconv.Atoi(h)
	if err1 != nil || err2 != nil || width < 1 || height < 1 || width > maxScreenSide || height > maxScreenSide {
		return ""
	}
	return strconv.Itoa(width) + "x" + strconv.Itoa(height)
}

// TestFirstHitValuesAsBefore: brand and screenValue give what they gave, on their edge cases
// and on random strings of the pieces that matter.
func TestFirstHitValuesAsBefore(t *testing.T) {
	hosts := []string{"", ".", "..", "google", "google.", ".google", "google.com", "www.google.com", "google.co.uk",
		"www.google.co.uk", "co.uk", "google.com.br", "x.google.com.br", "bing.com", "yandex.ru", "com.au", "a.b.c.d"}
	screens := []string{"", "x", "1920x1080", "01920x1080", "+1920x1080", "1920x-1", "0x0", "20000x20000", "20001x1",
		"1920x1080x1", " 1920x1080", "1920 x1080", "1x1", "007x7"}
	rng := rand.New(rand.NewPCG(29, 13))
	labels := []string{"google", "co", "com", "uk", "br", "www", "bing", "yandex", "duckduckgo", "x", "", "ecosia"}
	parts := []string{"0", "1", "9", "19", "20000", "x", "+", "-", " ", "a"}
	for range 20000 {
		var host []string
		for n := rng.IntN(5); n >= 0; n-- {
			host = append(host, labels[rng.IntN(len(labels))])
		}
		hosts = append(hosts, strings.Join(host, "."))
		var screen string
		for n := rng.IntN(6); n >= 0; n-- {
			screen += parts[rng.IntN(len(parts))]
		}
		screens = append(screens, screen)
	}
	for _, h := range hosts {
		if got, want := brand(h), brandBySplit(h); got != want {
			t.Errorf("brand(%q) = %q, want %q", h, got, want)
		}
	}
	for _, s := range screens {
		if got, want := screenValue(s), screenByItoa(s); got != want {
			t.Errorf("screenValue(%q) = %q, want %q", s, got, want)
		}
	}
}
