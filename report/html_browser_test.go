package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// browserPath finds Chromium or Chrome: $PERFGATE_CHROME, else the usual
// names on PATH; "" when none is installed.
func browserPath() string {
	if p := os.Getenv("PERFGATE_CHROME"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// newBrowser starts headless bin with its profile in dir, for the test's
// lifetime. ctx bounds a stuck browser (not a performance assertion);
// bctx drives its tab.
func newBrowser(t *testing.T, bin, dir string) (ctx, bctx context.Context) {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.WindowSize(1280, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(func() { bcancel(); acancel(); cancel() })
	return ctx, bctx
}

// chartInfo is what the page reports about one rendered chart.
type chartInfo struct {
	Kind   string  `json:"kind"`
	Marks  int     `json:"marks"`  // elements of class "data"
	Drawn  int     `json:"drawn"`  // of those, the ones with a non-empty box
	Width  float64 `json:"width"`  // the SVG's rendered size in CSS pixels
	Height float64 `json:"height"` //
}

// TestHTMLInBrowser opens the HTML report in headless Chromium from a
// file:// URL and checks that every chart rendered with data, that nothing
// was fetched from the network, that no error reached the console, that
// the dark theme switches on and that the page prints. Screenshots of both
// themes are saved under the test's temp dir (and copied to
// $PERFGATE_SCREENSHOT_DIR when set).
func TestHTMLInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the browser test starts Chromium")
	}
	bin := browserPath()
	if bin == "" {
		t.Skip("no Chromium or Chrome on PATH: install Debian's chromium (apt-get install -y chromium, as .ci/run does) or set PERFGATE_CHROME")
	}
	dir := t.TempDir()
	var b bytes.Buffer
	if err := HTML(&b, htmlReport(t), HTMLOptions{Version: "v0.1.0-test"}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	wantCharts := strings.Count(b.String(), `<figure class="chart"`)

	ctx, bctx := newBrowser(t, bin, dir)

	var mu sync.Mutex
	var fetched []string
	// Every request the page makes, whatever the console says about it.
	if err := chromedp.Listen(bctx, func(ev any) {
		if ev, ok := ev.(*network.EventRequestWillBeSent); ok {
			if u := ev.Request.URL; !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
				mu.Lock()
				fetched = append(fetched, u)
				mu.Unlock()
			}
		}
	}); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	// The console, read on its own goroutine until the end marker arrives:
	// every message before it has then been seen.
	const endMarker = "perfgate-test-end"
	console := chromedp.Console(bctx)
	var messages []chromedp.ConsoleMessage
	consoleDone := make(chan struct{})
	go func() {
		defer close(consoleDone)
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Text == endMarker {
				return
			}
			messages = append(messages, m)
		}
	}()
	enableNetwork := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{})
		return err
	})
	if err := chromedp.Do(bctx, enableNetwork, chromedp.Navigate("file://"+file), chromedp.WaitReady(chromedp.CSS("footer"))); err != nil {
		t.Fatalf("opening the report in %s: %v", bin, err)
	}
	charts, err := chromedp.Run(bctx, chromedp.Evaluate[[]chartInfo](`[...document.querySelectorAll("figure.chart")].map(f => {
		const svg = f.querySelector("svg"), r = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
		const marks = [...f.querySelectorAll(".data")];
		const drawn = marks.filter(m => { const b = m.getBBox(); return b.width > 0 || b.height > 0; });
		return {kind: f.dataset.kind, marks: marks.length, drawn: drawn.length, width: r.width, height: r.height};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	background := chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`)
	bgLight, err := chromedp.Run(bctx, background)
	if err != nil {
		t.Fatal(err)
	}
	light, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#theme"))); err != nil {
		t.Fatal(err)
	}
	bgDark, err := chromedp.Run(bctx, background)
	if err != nil {
		t.Fatal(err)
	}
	dark, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := chromedp.Run(bctx, chromedp.PrintToPDF())
	if err != nil {
		t.Fatalf("printing: %v", err)
	}
	for name, img := range map[string][]byte{"report-light.png": light, "report-dark.png": dark} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, img, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
		if out := os.Getenv("PERFGATE_SCREENSHOT_DIR"); out != "" {
			if err := os.WriteFile(filepath.Join(out, name), img, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	if len(charts) != wantCharts || wantCharts == 0 {
		t.Errorf("the browser found %d charts, the page has %d", len(charts), wantCharts)
	}
	for i, c := range charts {
		if c.Marks == 0 || c.Drawn != c.Marks || c.Width < 200 || c.Height < 100 {
			t.Errorf("chart %d (%s) did not render with data: %+v", i+1, c.Kind, c)
		}
	}
	if bgLight == bgDark {
		t.Errorf("the theme switch left the background at %s", bgLight)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF")) {
		t.Errorf("printing to PDF gave %d bytes that are not a PDF", len(pdf))
	}
	if _, err := chromedp.Run(bctx, chromedp.Evaluate[any](`console.info("`+endMarker+`")`)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-consoleDone:
	case <-ctx.Done():
		t.Fatal("the console's end marker never arrived")
	}
	for _, m := range messages {
		if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.IsException() {
			t.Errorf("browser console: %s", m)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, u := range fetched {
		t.Errorf("the page fetched %s: it must be self-contained", u)
	}
}
