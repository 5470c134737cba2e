package tape

import "strings"

// A GitHub Actions log as gh run view --log and --log-failed print it: a
// line per log line, "<job>\t<step>\t<timestamp> <message>"; a job's raw
// log, "<timestamp> <message>". Agents read
// it to fix a failed run; its key lines are read by their messages
// (TestAnActionsLogIsReadByItsMessages).

// actionsLogMessage is the message of a GitHub Actions log line (the job,
// the step and the timestamp before it gone) and true; the line and false
// when it is none.
func actionsLogMessage(t string) (string, bool) {
	// A job's raw log (the API's, gh api …/actions/jobs/N/logs): the
	// runner's timestamp alone, of seven fraction digits, before the
	// message.
	if len(t) > rawStampLen && t[19] == '.' && t[rawStampLen] == ' ' && actionsTimestamp(t[:rawStampLen]) {
		return strings.TrimPrefix(strings.TrimSpace(t[rawStampLen:]), "\ufeff"), true
	}
	i := strings.IndexByte(t, '\t')
	if i <= 0 {
		return t, false
	}
	j := strings.IndexByte(t[i+1:], '\t')
	if j <= 0 {
		return t, false
	}
	rest := t[i+1+j+1:]
	sp := strings.IndexByte(rest, ' ')
	if sp < 0 {
		sp = len(rest)
	}
	if !actionsTimestamp(rest[:sp]) {
		return t, false
	}
	return strings.TrimPrefix(strings.TrimSpace(rest[sp:]), "\ufeff"), true
}

// rawStampLen is the length of a runner's timestamp in a job's raw log,
// "2026-07-16T04:04:32.6845218Z".
const rawStampLen = len("2006-01-02T15:04:05.0000000Z")

// actionsTimestamp: "2026-07-23T15:20:36.2965800Z", the fraction optional.
func actionsTimestamp(s string) bool {
	if len(s) < len("2006-01-02T15:04:05Z") || s[len(s)-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return false
	}
	for k := 0; k < len(s)-1; k++ {
		switch c := s[k]; {
		case k == 4 || k == 7 || k == 10 || k == 13 || k == 16:
		case k == 19:
			if c != '.' {
				return false
			}
		case c < '0' || c > '9':
			return false
		}
	}
	return true
}
