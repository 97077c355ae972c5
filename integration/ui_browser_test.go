package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// browserDeadline bounds one browser test: the waits inside it poll the
// page for a condition, and this is only the point where a stuck page
// fails the test instead of hanging it.
const browserDeadline = 4 * time.Minute

// newBrowser starts Debian's chromium, headless, and returns the context of
// its one tab. No test downloads a browser: deploy/local/ensure-services.sh
// installs the package, and a machine without it fails here saying so. The
// browser stops when the test ends.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	require.NoError(t, err, "the browser tests need Debian's chromium; run deploy/local/ensure-services.sh")
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	// The first call starts the browser and must run on a context without
	// a deadline (the deadline would end the browser, not the call).
	require.NoError(t, chromedp.Do(tab))
	ctx, cancel := context.WithTimeout(tab, browserDeadline)
	t.Cleanup(cancel)
	return ctx
}

// screenshots returns the folder the browser tests write their pictures
// to: QUEUEBOX_UI_SCREENSHOTS when set (kept after the run, for a reader
// to look at), or else a temporary folder of the test.
func screenshots(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("QUEUEBOX_UI_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	dir = filepath.Join(dir, t.Name())
	require.NoError(t, os.MkdirAll(dir, 0o755))
	t.Logf("screenshots in %s", dir)
	return dir
}

// shoot saves the whole page as dir/name.png.
func shoot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

// phone switches the tab to a phone-sized viewport, or back to the laptop
// size with phone false.
func phone(t *testing.T, ctx context.Context, on bool) {
	t.Helper()
	if on {
		require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait)))
		return
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)))
}
