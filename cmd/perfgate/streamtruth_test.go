package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/perfgate/perfgate/refserver"
	"github.com/perfgate/perfgate/result"
)

// llmServer serves the reference server (sim-llm and tiny-llm over the
// OpenAI API) on loopback and counts the generation requests it gets.
func llmServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	srv, err := refserver.NewServer(refserver.Options{Model: refserver.ModelSim})
	if err != nil {
		t.Fatal(err)
	}
	var posts atomic.Int64
	h := srv.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return hs.URL, &posts
}

// A wrong model name is found before any load: exit 3 at once, naming
// the model and the names the server offers, and not one request sent.
func TestRunWrongModelPreflight(t *testing.T) {
	url, posts := llmServer(t)
	code, _, stderr := runCLI(t, "run", "--url", url, "--protocol", "openai", "--model", "wrong-model",
		"--concurrency", "2", "--duration", "500ms", "--warmup", "200ms", "--trials", "1")
	if code != exitRunFailed {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitRunFailed, stderr)
	}
	for _, want := range []string{`model "wrong-model" is not served`, `"tiny-llm", "sim-llm"`, "before any load"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not contain %q:\n%s", want, stderr)
		}
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("%d generation requests were sent, want none", n)
	}
}

// With one output token there is no TPOT and no ITL: the result leaves
// them out, the summary prints n/a, and the progress lines and the last
// count agree with the result.
func TestRunOneToken(t *testing.T) {
	url, _ := llmServer(t)
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runCLI(t, "run", "--url", url, "--protocol", "openai", "--model", "sim-llm", "--max-tokens", "1",
		"--concurrency", "2", "--duration", "600ms", "--warmup", "200ms", "--trials", "2", "--out", out)
	if code != exitPass {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"tpot_ms"`, `"itl_ms"`} {
		if strings.Contains(string(raw), key) {
			t.Errorf("the result of one-token requests has %s", key)
		}
	}
	r, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.LLM == nil || r.LLM.TPOT != nil || r.LLM.ITL != nil || r.LLM.Requests == 0 {
		t.Fatalf("LLM figures %+v, want requests without TPOT or ITL", r.LLM)
	}
	if !strings.Contains(stdout, "TPOT n/a · ITL n/a") {
		t.Errorf("summary does not print TPOT and ITL as n/a:\n%s", stdout)
	}
	if r.LLM.PromptWordsMean != 128 || r.LLM.PromptTokensMean <= 0 {
		t.Errorf("prompt %v words (want 128, the default) and %v tokens by the server's count (want > 0)", r.LLM.PromptWordsMean, r.LLM.PromptTokensMean)
	}
	last := regexp.MustCompile(`measured (\d+) requests, (\d+) errors, in (\d+) trials`).FindStringSubmatch(stderr)
	if last == nil {
		t.Fatalf("no line with the result's counts in stderr:\n%s", stderr)
	}
	if n, _ := strconv.ParseInt(last[1], 10, 64); n != r.Summary.Requests {
		t.Errorf("the last progress line counts %d requests, the result %d", n, r.Summary.Requests)
	}
}

// run -h shows the defaults of the flags that have one, and an error
// about a flag's value names the flag.
func TestRunFlagsSayDefaultsAndNames(t *testing.T) {
	_, _, stderr := runCLI(t, "run", "-h")
	for _, want := range []string{
		"-prompt-words words\n", "(default 128)", "(default 64)", "it counts words, not tokens",
		"(default 30s)", "(default chat)", "goodput (default none)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("run -h does not show %q:\n%s", want, stderr)
		}
	}
	code, _, stderr := runCLI(t, "run", "--url", "http://127.0.0.1:1", "--protocol", "openai", "--concurrency", "1")
	if code != exitUsage || !strings.Contains(stderr, "--model: missing") {
		t.Errorf("openai without --model: exit %d, stderr %q; want exit 2 naming --model", code, stderr)
	}
}

// A run whose every request failed exits 3 and its result, written for
// the record, is never valid.
func TestRunAllFailedInvalid(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(down.Close)
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := runCLI(t, "run", "--url", down.URL, "--rate", "20", "--duration", "300ms", "--warmup", "0s", "--trials", "1", "--out", out)
	if code != exitRunFailed {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitRunFailed, stderr)
	}
	r, err := result.ReadFile(out)
	if err != nil {
		t.Fatalf("no result written: %v", err)
	}
	if r.Valid || r.Summary.Errors != r.Summary.Requests || r.Summary.Requests == 0 {
		t.Errorf("result valid %v with %d of %d requests failed; want invalid, all failed", r.Valid, r.Summary.Errors, r.Summary.Requests)
	}
}
