// Package goatcountertest writes large GoatCounter CSV exports (format version 2) for the
// import's memory test and benchmark, in the shape of the real exports of
// importer/goatcounter/testdata: hits by time, a few per session, events and bots among them.
package goatcountertest

import (
	"bufio"
	"io"
	"math/rand/v2"
	"strconv"
	"time"
)

// Header is the first line of a version 2 export.
const Header = "2Path,Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,Referrer scheme,Screen size,Location,FirstVisit,Date\n"

// Export is what Write wrote: its rows and what the import must count of them.
type Export struct {
	Rows, Pageviews, Events, Bots int64
}

var (
	browsers  = []string{"Chrome 120", "Firefox 121", "Safari 17.2", "Chrome 119", " "}
	systems   = []string{"Windows 10", "macOS 10.15", "iOS 17.2", "Android 14", "Linux "}
	locations = []string{"US", "DE", "GB", "FR", "NL", "US-TX", "IN", "BR", ""}
	referrers = []string{",,", "Google,g,", "Hacker News,g,", "news.example.com/a,h,", "newsletter,c,"}
	screens   = []string{`"1920,1080,1"`, `"1366,768,1"`, `"390,844,3"`, ""}
)

// Write writes an export of rows hits over days days from first on: sessions of 1 to 5 hits
// (a minute apart), started in time order, so that about rows/3 sessions come and go; paths
// from a pool of pages; one hit in ten an event, one in a hundred a bot's.
func Write(w io.Writer, rows int64, first time.Time, days, pages int) (Export, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	rng := rand.New(rand.NewPCG(uint64(rows), 7))
	if _, err := bw.WriteString(Header); err != nil {
		return Export{}, err
	}
	var out Export
	span := int64(days) * 86400
	line := make([]byte, 0, 256)
	var session uint64
	for out.Rows < rows {
		session++
		hits := 1 + rng.IntN(5)
		start := first.Unix() + span*out.Rows/rows
		b, s, l, rf, sc := pick(rng, browsers), pick(rng, systems), pick(rng, locations), pick(rng, referrers), pick(rng, screens)
		for h := 0; h < hits && out.Rows < rows; h++ {
			event, bot := rng.IntN(10) == 0, rng.IntN(100) == 0
			line = line[:0]
			if event {
				line = append(line, "click-"...)
				line = strconv.AppendInt(line, int64(rng.IntN(20)), 10)
			} else {
				line = append(line, "/page-"...)
				line = strconv.AppendInt(line, int64(rng.IntN(pages)), 10)
			}
			line = append(line, ",A title,"...)
			line = appendBool(line, event)
			line = append(line, ',', ',')
			line = append(line, b...)
			line = append(line, ',')
			line = append(line, s...)
			line = append(line, ',')
			line = strconv.AppendUint(line, session, 16)
			line = append(line, "-a1b2c3d4e5f6a7b8,"...)
			if bot {
				line = append(line, "150,"...)
				out.Bots++
			} else {
				line = append(line, "0,"...)
				if event {
					out.Events++
				} else {
					out.Pageviews++
				}
			}
			if h == 0 {
				line = append(line, rf...)
			} else {
				line = append(line, ",,"...)
			}
			line = append(line, sc...)
			line = append(line, ',')
			line = append(line, l...)
			line = append(line, ",1,"...)
			line = time.Unix(start+int64(h)*60, 0).UTC().AppendFormat(line, time.RFC3339)
			line = append(line, '\n')
			if _, err := bw.Write(line); err != nil {
				return Export{}, err
			}
			out.Rows++
		}
	}
	return out, bw.Flush()
}

func pick(rng *rand.Rand, from []string) string { return from[rng.IntN(len(from))] }

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}
