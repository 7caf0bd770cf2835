package ghaction

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/perfgate/perfgate/internal/capread"
)

// GitHub is what the action reads of the runner's GITHUB_* variables.
type GitHub struct {
	APIURL, ServerURL, Repository, RunID, RunAttempt string
	EventName                                        string
	EventPath                                        string
	Event                                            *Event
}

// Event is the part of the event payload (GITHUB_EVENT_PATH) read.
type Event struct {
	PullRequest *struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
		} `json:"head"`
		// Base is the commit the pull request merges into (compare-with base).
		Base struct {
			SHA string `json:"sha"`
		} `json:"base"`
	} `json:"pull_request"`
	// WorkflowRun is set for workflow_run events (the fork-safe comment job).
	WorkflowRun *struct {
		HeadSHA    string `json:"head_sha"`
		HTMLURL    string `json:"html_url"`
		Event      string `json:"event"`
		Conclusion string `json:"conclusion"`
	} `json:"workflow_run"`
}

// PRNumber is the pull request's number, 0 when the event is not one.
func (ev *Event) PRNumber() int {
	if ev == nil || ev.PullRequest == nil {
		return 0
	}
	return ev.PullRequest.Number
}

// HeadSHA is the pull request's head commit (not GITHUB_SHA, which for a
// pull_request event is the temporary merge commit), or "".
func (ev *Event) HeadSHA() string {
	if ev == nil || ev.PullRequest == nil {
		return ""
	}
	return ev.PullRequest.Head.SHA
}

// BaseSHA is the pull request's base commit, or "".
func (ev *Event) BaseSHA() string {
	if ev == nil || ev.PullRequest == nil {
		return ""
	}
	return ev.PullRequest.Base.SHA
}

// maxEventBytes bounds the event payload read.
const maxEventBytes = 32 << 20

// ReadGitHub reads the GITHUB_* variables and the event payload.
func ReadGitHub(getenv func(string) string) (GitHub, error) {
	gh := GitHub{APIURL: getenv("GITHUB_API_URL"), ServerURL: getenv("GITHUB_SERVER_URL"),
		Repository: getenv("GITHUB_REPOSITORY"), RunID: getenv("GITHUB_RUN_ID"),
		RunAttempt: getenv("GITHUB_RUN_ATTEMPT"), EventName: getenv("GITHUB_EVENT_NAME"), Event: &Event{}}
	if gh.ServerURL == "" {
		gh.ServerURL = "https://github.com"
	}
	path := getenv("GITHUB_EVENT_PATH")
	gh.EventPath = path
	if path == "" {
		return gh, nil
	}
	f, err := capread.Open(path, maxEventBytes)
	if err != nil {
		return gh, fmt.Errorf("reading the event payload: %w", err)
	}
	defer f.Close()
	if err := json.NewDecoder(f).Decode(gh.Event); err != nil {
		return gh, fmt.Errorf("decoding the event payload %q: %w", path, err)
	}
	if sha := gh.Event.HeadSHA(); sha != "" && !IsSHA(sha) {
		return gh, fmt.Errorf("event payload %q: pull_request.head.sha %q is not a commit id", path, sha)
	}
	return gh, nil
}

// RunURL links to this workflow run (its page shows the step summaries).
func (gh GitHub) RunURL() string {
	if gh.Repository == "" || gh.RunID == "" {
		return ""
	}
	u := fmt.Sprintf("%s/%s/actions/runs/%s", strings.TrimRight(gh.ServerURL, "/"), gh.Repository, gh.RunID)
	if gh.RunAttempt != "" && gh.RunAttempt != "1" {
		u += "/attempts/" + gh.RunAttempt
	}
	return u
}

var shaRE = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// IsSHA reports whether s is a full SHA-1 or SHA-256 commit id.
func IsSHA(s string) bool { return shaRE.MatchString(s) }
