package main

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/results"
)

// reportCampaign is testCampaign with uniform traffic beside the exchange,
// so that the report has every kind of figure.
const reportCampaign = testCampaign + `
[[traffic]]
kind = "uniform"
fault_seeds = [1]
max_time = "40us"
`

// runReport runs reportCampaign and returns its directory.
func runReport(t *testing.T) string {
	t.Helper()
	camp := filepath.Join(t.TempDir(), "ci.toml")
	require.NoError(t, os.WriteFile(camp, []byte(strings.ReplaceAll(reportCampaign, "%MSG%", "1MTU")), 0o644))
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errs := run("run", camp, "-o", dir, "-q")
	require.Equal(t, 0, code, errs)
	return dir
}

// run, merge and table leave the report in the results directory, with the
// campaign file, the version and the wall time.
func TestReportWritten(t *testing.T) {
	dir := runReport(t)
	page, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	require.NoError(t, err)
	s := string(page)
	assert.Contains(t, s, "<h1>Campaign ci</h1>")
	assert.Contains(t, s, release)
	assert.Contains(t, s, "wall time of the run")
	assert.Contains(t, s, `kind = &#34;uniform&#34;`, "the campaign file, escaped")
	for _, fig := range []string{"throughput-tree-exchange", "regression-tree-exchange", "hca-completion-tree-exchange", "hca-bw-tree-uniform"} {
		assert.Contains(t, s, `id="fig-`+fig+`"`)
	}
	assert.NotContains(t, s, `id="fig-hca-bw-tree-exchange"`, "an exchange gives every HCA the same bandwidth: no whisker plot of it")

	// table rewrites it from the directory's copy of the campaign file.
	require.NoError(t, os.Remove(filepath.Join(dir, results.ReportFile)))
	code, _, errs := run("table", dir)
	require.Equal(t, 0, code, errs)
	page, err = os.ReadFile(filepath.Join(dir, results.ReportFile))
	require.NoError(t, err)
	assert.Contains(t, string(page), "<h1>Campaign ci</h1>")
	assert.Contains(t, string(page), "flitsim table "+dir)

	// While a run holds the directory, table still prints the table and
	// exits 0, and leaves the page alone.
	lock, err := results.AcquireLock(dir, "flitsim run ci")
	require.NoError(t, err)
	defer lock.Release()
	require.NoError(t, os.WriteFile(filepath.Join(dir, results.ReportFile), []byte("old"), 0o644))
	code, out, errs := run("table", dir)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "## Throughput degradation")
	assert.Contains(t, errs, "report.html not rewritten")
	page, err = os.ReadFile(filepath.Join(dir, results.ReportFile))
	require.NoError(t, err)
	assert.Equal(t, "old", string(page))

	// --against sets the levels against another directory's: here the
	// same one, so nothing moves.
	code, out, errs = run("table", dir, "--against", dir)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "## Levels against the other directory")
	assert.Regexp(t, `\d+ levels: \d+ within their interval, 0 beyond, 0 without one; the largest move 0.00 %.`, out)
	code, _, errs = run("table", dir, "--against", filepath.Join(dir, "none"))
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--against")
}

// chromium finds a headless browser: skipped without one, except in CI,
// where .ci/run installs Debian's chromium.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome-headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH (CI must install it)")
	}
	t.Skip("no chromium on PATH")
	return ""
}

// browse runs headless Chromium on a page with extra arguments and returns
// its standard output and error.
func browse(t *testing.T, page string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000"}
	cmd := exec.CommandContext(ctx, chromium(t), append(append(base, args...), "file://"+page)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "chromium: %s", errb.String())
	return out.String(), errb.String()
}

// probe is put at the top of a copy of the report: it records script
// errors, failed loads and console errors, and once the page has loaded
// writes what it saw of the images and inline SVGs into the page.
const probe = `<script>
window.__errs = [];
window.addEventListener('error', function (e) {
  window.__errs.push('error: ' + (e.message || (e.target && (e.target.src || e.target.href)) || 'unknown'));
}, true);
(function () {
  var ce = console.error;
  console.error = function () { window.__errs.push('console.error: ' + Array.prototype.join.call(arguments, ' ')); ce.apply(console, arguments); };
})();
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var svgs = Array.prototype.slice.call(document.querySelectorAll('svg'));
  var res = {
    images: imgs.length,
    badImages: imgs.filter(function (i) { return !i.complete || i.naturalWidth === 0; }).map(function (i) { return i.src; }),
    svgs: svgs.length,
    emptySvgs: svgs.filter(function (s) { var r = s.getBoundingClientRect(); return r.width < 100 || r.height < 50 || s.querySelectorAll('path').length < 3; }).length,
    errors: window.__errs
  };
  var pre = document.createElement('pre');
  pre.id = 'flitsim-check';
  pre.textContent = JSON.stringify(res);
  document.body.appendChild(pre);
});
</script>
`

// The report as a person sees it: headless Chromium renders it; every
// image and inline figure is drawn, nothing is logged as an error, and a
// screenshot is not blank.
func TestReportInBrowser(t *testing.T) {
	browser := chromium(t)
	require.NotEmpty(t, browser)
	dir := runReport(t)
	page := filepath.Join(dir, results.ReportFile)
	data, err := os.ReadFile(page)
	require.NoError(t, err)

	probed := filepath.Join(t.TempDir(), "probed.html")
	require.NoError(t, os.WriteFile(probed, bytes.Replace(data, []byte("<head>"), []byte("<head>\n"+probe), 1), 0o644))
	dom, logs := browse(t, probed, "--dump-dom")
	m := regexp.MustCompile(`(?s)<pre id="flitsim-check">(.*?)</pre>`).FindStringSubmatch(dom)
	require.NotNil(t, m, "the probe did not run: %s", logs)
	var res struct {
		Images    int      `json:"images"`
		BadImages []string `json:"badImages"`
		SVGs      int      `json:"svgs"`
		EmptySVGs int      `json:"emptySvgs"`
		Errors    []string `json:"errors"`
	}
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(m[1])), &res))
	t.Logf("browser saw %d images, %d inline SVGs", res.Images, res.SVGs)
	assert.Empty(t, res.BadImages, "images that did not load")
	assert.GreaterOrEqual(t, res.SVGs, 8, "every figure is drawn (2 topologies × 3 exchange + 3 uniform figures)")
	assert.Zero(t, res.EmptySVGs, "figures drawn empty or tiny")
	assert.Empty(t, res.Errors, "errors in the page")
	// The page has no scripts of its own: anything on the console (Chromium
	// logs every message as INFO:CONSOLE) is a problem.
	for _, line := range strings.Split(logs, "\n") {
		assert.NotContains(t, line, "CONSOLE", "the console is not quiet")
	}

	shot := filepath.Join(t.TempDir(), "report.png")
	browse(t, page, "--window-size=1280,2000", "--screenshot="+shot)
	f, err := os.Open(shot)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	b := img.Bounds()
	bg := img.At(b.Min.X, b.Min.Y)
	br, bgc, bb, _ := bg.RGBA()
	differ, colors := 0, map[[3]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r != br || g != bgc || bl != bb {
				differ++
			}
			colors[[3]uint32{r >> 12, g >> 12, bl >> 12}] = true
		}
	}
	total := (b.Dx() / 2) * (b.Dy() / 2)
	t.Logf("screenshot %dx%d: %.1f %% of the pixels differ from the background, %d colours", b.Dx(), b.Dy(), 100*float64(differ)/float64(total), len(colors))
	assert.Greater(t, float64(differ)/float64(total), 0.03, "the screenshot is blank")
	assert.Greater(t, len(colors), 20, "the screenshot has almost no colours")
}
