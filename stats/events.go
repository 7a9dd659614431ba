package stats

import "strings"

// The event statistic's values keep the seed's encoding, name:value:unit ("Purchase:5:USD",
// "Signup::"), where a ':' of the name or unit is written as a space (EventField): the API
// answers them so. Visit rows, goals and funnels keep names as sent. The pages and the CSV
// read a value apart (SplitEvent) and write the name as sent where it is known
// (EventNameSpelled).

// EventParts are a value of the event statistic read apart.
type EventParts struct{ Name, Value, Unit string }

// EventField is a name or unit as the event statistic writes it: ':' as a space.
func EventField(s string) string { return strings.ReplaceAll(s, ":", " ") }

// SplitEvent reads a value of the event statistic apart. A value without ':' (Other, the
// values past the daily limit) is a name alone.
func SplitEvent(v string) EventParts {
	name, rest, _ := strings.Cut(v, ":")
	value, unit, _ := strings.Cut(rest, ":")
	return EventParts{Name: name, Value: value, Unit: unit}
}

// TrackerEvents are the events the tracker sends of itself, by name as sent.
var TrackerEvents = []string{"Outbound Link: Click", "File Download", "Form: Submission"}

// EventNameSpelled is the name as sent of an encoded name (SplitEvent's Name): its spelling
// in spellings (encoded name -> name as sent, of the website's event goals and TrackerEvents;
// repository.EventSpellings), else the encoded name itself.
func EventNameSpelled(encoded string, spellings map[string]string) string {
	if sent, ok := spellings[encoded]; ok {
		return sent
	}
	return encoded
}
